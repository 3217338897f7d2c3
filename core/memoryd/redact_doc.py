"""The store's redaction pass: every memory the store writes (`Store.save`, `save_many`)
comes through here first, so `record`, `update`, MCP `mem_record`, promotions (edited or
not), importers, the capture worker and whatever writes memories next get it without code
of their own. Title, body, triggers, tags, category, free-text frontmatter and raw turns.

Idempotent (memoryd.redact): text redacted once is left as it is, so a second pass over
what the capture worker already redacted counts nothing and changes nothing."""

from __future__ import annotations

import dataclasses
import re
import secrets
from collections.abc import Sequence
from typing import Any

from memoryd.redact import Redactor

# Extra frontmatter keys (beyond the model's fields, which `scrub` takes one by one) that
# are not free text: graph mentions, the stored analysis, an importer's fingerprint.
# The suspect flag's reasons and fingerprints (memoryd.suspect_doc) are memoryd's own words.
_STRUCTURAL = frozenset({"entity_mentions", "analysis", "import_fingerprint", "suspect", "suspect_cleared"})
_SLUG_WORD = re.compile(r"[a-z0-9]+")
_DATED = re.compile(r"\d{4}-\d{2}-\d{2}-")
_TAG = re.compile(r"[0-9a-f]{4}|[0-9a-f]{6}")


class _Collecting(Redactor):
    """A redactor that also remembers, in memory only, what it took out: a memory's slug
    is made from its title before the store sees it, and must lose the same words."""

    def __init__(self) -> None:
        super().__init__()
        self.removed: list[str] = []

    def _replace(self, match: re.Match[str], name: str, group: int, check: Any, word: bool = False) -> str:
        before = sum(self.counts.values())
        out = super()._replace(match, name, group, check, word)
        if sum(self.counts.values()) != before:
            self.removed.append(match.group(group))
        return out


def scrub(doc: Any, turns: Sequence[Any] | None, *, fresh: bool) -> tuple[list[Any] | None, dict[str, int]]:
    """Redact `doc` in place and return its turns redacted, with the counts per kind.
    `fresh`: the memory is new, so a slug made of secret words may still be renamed."""
    r = _Collecting()
    meta = doc.meta
    meta.title = r(meta.title)
    doc.body = r(doc.body)
    meta.triggers = _dedupe(r(t) for t in meta.triggers)
    meta.tags = _dedupe(r(t) for t in meta.tags)
    if meta.category:
        meta.category = r(meta.category)
    # Provenance and links are memoryd's words and slugs when memoryd wrote them, but a file
    # from the sync folder or `import FILE.json` can carry anything there, and `source` is
    # shown at start-up (an outside test, 2026-11-28).
    meta.source = r(meta.source)
    for name in ("promoted_from", "session_id", "superseded_by"):
        if value := getattr(meta, name):
            setattr(meta, name, r(value))
    for name in ("supersedes", "observations", "relations"):
        if values := getattr(meta, name):
            setattr(meta, name, [r(v) for v in values])
    for key, value in meta.extras.items():
        if key not in _STRUCTURAL:
            new = r.redact_obj(value)
            if new != value:
                setattr(meta, key, new)
    out = None
    if turns is not None:
        out = [t if not t.text else dataclasses.replace(t, text=r(t.text)) for t in turns]
    if fresh and r.removed:
        meta.slug = _clean_slug(meta.slug, r.removed)
    return out, dict(r.counts)


def _dedupe(items: Any) -> list[str]:
    return list(dict.fromkeys(items))


def _clean_slug(slug: str, removed: list[str]) -> str:
    """The slug without the words a secret gives it (`2026-05-18-db-pass-hunter2-3fa1`
    -> `2026-05-18-db-pass-redacted-3fa1`); the rest of the name stays. A secret's words
    are read as the name was made (memoryd.slugs: accents folded, Chinese in pinyin, other
    scripts transliterated), every one of them, short words and numbers included: a name
    kept `pin-84721`, `red-fox-sun` and `mi-ma-hen-an-quan-2024` (an outside test,
    2026-11-28). The date, a promotion's number and the closing tag are memoryd's own."""
    from memoryd import slugs

    words: set[str] = set()
    for value in removed:
        words.update(_SLUG_WORD.findall(value.lower()))
        words.update(_SLUG_WORD.findall(slugs.title_words(value, 4 * len(value) + 8)))
    if not words:
        return slug
    parts = slug.split("-")
    head = 3 if _DATED.match(slug) else 2 if slug.startswith("promoted-") else 0
    tail = 1 if len(parts) > head + 1 and _TAG.fullmatch(parts[-1]) else 0  # memoryd's own tag
    body = parts[head : len(parts) - tail]
    cleaned = (
        parts[:head] + [("redacted" if p.lower() in words else p) for p in body] + parts[len(parts) - tail :]
    )
    if cleaned == parts:
        return slug
    out: list[str] = []
    for p in cleaned:  # one `redacted` for a run of them
        if not (p == "redacted" and out and out[-1] == "redacted"):
            out.append(p)
    out.append(secrets.token_hex(2))  # the cleaned name must not collide with another
    return "-".join(out)
