"""Secrets never enter memory: known key and token shapes, and anything the user wraps in
<private>...</private>, become typed placeholders before a byte is written. Standard
library only, because the hook path runs it."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

_ASSIGN_NAMES = (
    r"password|passwd|pwd|passphrase|secret|client_secret|token|access_token|refresh_token|"
    r"auth_token|api[_-]?key|apikey|access[_-]?key|secret[_-]?key|private[_-]?key"
)

# Order matters: blocks first, then specific shapes, then generic assignments.
_PATTERNS: list[tuple[str, re.Pattern[str], int]] = [
    ("private", re.compile(r"<private>.*?</private>", re.S | re.I), 0),
    (
        "private_key",
        re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?-----END [A-Z0-9 ]*PRIVATE KEY-----", re.S),
        0,
    ),
    ("anthropic_key", re.compile(r"\bsk-ant-[A-Za-z0-9_\-]{16,}"), 0),
    ("openai_key", re.compile(r"\bsk-(?:proj-|svcacct-)?[A-Za-z0-9_\-]{20,}"), 0),
    ("github_token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})"), 0),
    ("aws_access_key", re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b"), 0),
    (
        "aws_secret_key",
        re.compile(
            r"(?i)(aws_secret_access_key|aws_secret_key|secretaccesskey)(\W{1,4})([A-Za-z0-9/+=]{40})"
        ),
        3,
    ),
    ("slack_token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"), 0),
    ("google_api_key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}\b"), 0),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), 0),
    (
        "env_secret",
        re.compile(
            r"(?m)^(\s*(?:export\s+)?[A-Z][A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|PWD|"
            r"CREDENTIALS?)[A-Z0-9_]*\s*=\s*)(\S.*)$"
        ),
        2,
    ),
    (
        "secret_assignment",
        re.compile(rf"(?i)(\b(?:{_ASSIGN_NAMES})\b[\"']?\s*[=:]\s*)(\"[^\"\n]+\"|'[^'\n]+'|[^\s,;'\"]+)"),
        2,
    ),
]

_PLACEHOLDER = re.compile(r"^\[REDACTED:[a-z_]+\]$")


class Redactor:
    """Counts what it replaced (never the secrets) so the audit can say how many."""

    def __init__(self, extra_patterns: Iterable[str] = ()) -> None:
        self.patterns = list(_PATTERNS)
        for i, pattern in enumerate(extra_patterns):
            self.patterns.append((f"custom_{i}", re.compile(pattern), 0))
        self.counts: Counter[str] = Counter()

    def __call__(self, text: str) -> str:
        if not text:
            return text
        for name, pattern, group in self.patterns:
            text = pattern.sub(lambda m, n=name, g=group: self._replace(m, n, g), text)
        return text

    def _replace(self, match: re.Match[str], name: str, group: int) -> str:
        value = match.group(group)
        if _PLACEHOLDER.match(value.strip("\"'")):
            return match.group(0)
        self.counts[name] += 1
        placeholder = f"[REDACTED:{name}]"
        if group == 0:
            return placeholder
        start, end = match.span(group)
        base = match.start(0)
        whole = match.group(0)
        return whole[: start - base] + placeholder + whole[end - base :]

    def redact_obj(self, value: object) -> object:
        """Redact every string inside a JSON-like value."""
        if isinstance(value, str):
            return self(value)
        if isinstance(value, list):
            return [self.redact_obj(v) for v in value]
        if isinstance(value, dict):
            return {k: self.redact_obj(v) for k, v in value.items()}
        return value

    @property
    def total(self) -> int:
        return sum(self.counts.values())
