"""A memory file's frontmatter read and written without pydantic, for files memoryd wrote.

The CLI's read path (memoryd.reader) shows a memory and counts a recall in its file; the
full model (memoryd.models.Frontmatter, through memoryd.frontmatter) costs more to import
than the rest of a cold `memoryd search`. A file memoryd wrote is canonical: its YAML is
exactly what memoryd.frontmatter.render makes of the model, so a read then a write of it
through the model changes only what was changed. `canonical` accepts only such a file: the
YAML round-trips byte for byte, the model's fields stand in its order, and every value is
one validation keeps as it is. Anything else (a hand edit, a damaged file, an older
layout) gives None and the caller takes the model's path, which reads, repairs or rejects
it as it always did. FIELDS mirrors the model; tests/core/test_plainfront.py checks that
it does.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

import yaml

from memoryd.kinds import DecayState, MemoryType

FENCE = "---"
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

# Frontmatter's fields in its order, each with the kind of value that validation keeps
# unchanged: "str", "str?" (or null), "int", "int?", "time", "time?", "list", "type",
# "state", "scope", "scores?" (dict of floats or null); "slug?" and "str-" may be absent
# (render drops them when null) but never null.
FIELDS: tuple[tuple[str, str], ...] = (
    ("title", "str"),
    ("slug", "str"),
    ("type", "type"),
    ("scope_hash", "scope"),
    ("source", "str"),
    ("created_at", "time"),
    ("updated_at", "time?"),
    ("tags", "list"),
    ("triggers", "list"),
    ("category", "str?"),
    ("ttl_days", "int?"),
    ("decay_state", "state"),
    ("recall_count", "int"),
    ("last_recalled_at", "time?"),
    ("dura_score", "scores?"),
    ("promoted_from", "str?"),
    ("supersedes", "list"),
    ("superseded_by", "slug?"),
    ("observations", "list"),
    ("relations", "list"),
    ("session_id", "str-"),
)
_OPTIONAL = {name for name, kind in FIELDS if kind in ("slug?", "str-")}
_SCOPE = re.compile(r"[0-9a-f]{12}")
_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
_TYPES = {t.value for t in MemoryType}
_STATES = {s.value for s in DecayState}


def _dump(data: dict[str, Any]) -> str:
    return yaml.dump(
        data, Dumper=_DUMPER, sort_keys=False, allow_unicode=True, default_flow_style=False, width=10_000
    )


def split(text: str) -> tuple[str, str] | None:
    """(YAML head, body), or None when the fences are not where memoryd puts them."""
    if not text.startswith(FENCE + "\n"):
        return None
    end = text.find(f"\n{FENCE}\n", len(FENCE))
    if end < 0:
        return None
    return text[len(FENCE) + 1 : end + 1], text[end + len(FENCE) + 2 :]


def _time(value: Any) -> bool:
    if not isinstance(value, str) or not _TIME.fullmatch(value):
        return False
    try:
        datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        return False
    return True


def _kept(kind: str, value: Any) -> bool:
    """Whether validation keeps `value` as it is for a field of this kind."""
    if kind.endswith("?") and value is None:
        return True
    base = kind.rstrip("?-")
    if base in ("str", "slug"):
        return isinstance(value, str) and (base == "str" or (value == value.strip() and value != ""))
    if base == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if base == "time":
        return _time(value)
    if base == "list":
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    if base == "type":
        return value in _TYPES
    if base == "state":
        return value in _STATES
    if base == "scope":
        return isinstance(value, str) and _SCOPE.fullmatch(value) is not None
    if base == "scores":
        return isinstance(value, dict) and all(
            isinstance(k, str) and isinstance(v, float) for k, v in value.items()
        )
    return False


def _plain_extra(value: Any) -> bool:
    """An extension key's value that render writes back as it was read (no dates: the
    model's dump turns them into strings)."""
    if value is None or isinstance(value, str | int | float | bool):
        return True
    if isinstance(value, list):
        return all(_plain_extra(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain_extra(v) for k, v in value.items())
    return False


def canonical(text: str, slug: str) -> tuple[dict[str, Any], str] | None:
    """(frontmatter as data, body) of a file memoryd wrote for `slug`, or None."""
    parts = split(text)
    if parts is None:
        return None
    head, body = parts
    try:
        data = yaml.load(head, Loader=_LOADER)  # a safe loader
    except Exception:
        return None
    if not isinstance(data, dict) or data.get("slug") != slug:
        return None
    names = [name for name, _ in FIELDS if name not in _OPTIONAL or name in data]
    keys = list(data)
    if keys[: len(names)] != names or any(not isinstance(k, str) for k in keys):
        return None
    kinds = dict(FIELDS)
    if not all(_kept(kinds[n], data[n]) for n in names):
        return None
    if not all(_plain_extra(data[k]) for k in keys[len(names) :]):
        return None
    if _dump(data) != head:
        return None
    return data, body


def render(data: dict[str, Any], body: str) -> str:
    return f"{FENCE}\n{_dump(data)}{FENCE}\n{body}"


def recalled(data: dict[str, Any], when: str) -> dict[str, Any]:
    """The frontmatter after one recall, as Store.record_recall changes the model."""
    out = dict(data)
    out["recall_count"] = data["recall_count"] + 1
    out["last_recalled_at"] = when
    if data["decay_state"] != DecayState.forgotten.value:
        out["decay_state"] = DecayState.alive.value
    return out


def dumped(data: dict[str, Any]) -> dict[str, Any]:
    """What the model's dump gives for this frontmatter (memoryd.app.MemoryView.as_dict):
    every field, null where render left it out, then the extension keys."""
    out = {name: data.get(name) for name, _ in FIELDS}
    out.update((k, v) for k, v in data.items() if k not in out)
    return out
