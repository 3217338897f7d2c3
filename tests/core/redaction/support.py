"""What the redaction tests share."""

from __future__ import annotations

from memoryd.redact import redact


def gone(text: str, *needles: str) -> str:
    """Redact `text`, check no needle is left and a second pass changes nothing."""
    out = redact(text)
    assert not [n for n in needles if n in out], out
    assert redact(out) == out
    return out
