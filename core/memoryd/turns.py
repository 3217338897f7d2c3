"""A session's raw turns as its `<slug>.turns.jsonl` sidecar holds them: standard
library only, so the CLI's read path (memoryd.reader) counts them without the store."""

from __future__ import annotations

import json
from dataclasses import dataclass

from memoryd import jsontext


@dataclass(frozen=True)
class Turn:
    seq: int
    role: str
    text: str
    ts: str | None = None
    ext_id: str | None = None

    def to_json(self) -> str:
        data = {"seq": self.seq, "role": self.role, "ts": self.ts, "ext_id": self.ext_id, "text": self.text}
        return json.dumps(data, ensure_ascii=False)


def turns_from_text(text: str) -> list[Turn]:
    """A turns sidecar's lines; a damaged line is skipped, not fatal."""
    out = []
    for line in text.splitlines():
        try:
            d = jsontext.loads(line)  # a lone surrogate escape comes back as U+FFFD
            ts, ext_id = d.get("ts"), d.get("ext_id")
            out.append(
                Turn(
                    int(d["seq"]),
                    str(d["role"]),
                    str(d["text"]),
                    # what reaches the index's text columns is text or nothing
                    ts if isinstance(ts, str) else None,
                    ext_id if isinstance(ext_id, str) else None,
                )
            )
        except (ValueError, KeyError, TypeError, AttributeError, OverflowError):
            continue
    return out
