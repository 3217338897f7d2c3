"""Small encrypted values in index tables (a sensitive scope's promotion proposals):
`enc:` + base64 of a sealed JSON object, bound to the scope and the row."""

from __future__ import annotations

import json
from typing import Any

from memoryd import crypto

PREFIX = "enc:"


def seal_value(key: bytes, scope_hash: str, name: str, value: dict[str, Any]) -> str:
    data = json.dumps(value, ensure_ascii=False).encode("utf-8")
    return PREFIX + crypto.b64(crypto.seal(key, data, scope_hash=scope_hash, slug=name, kind="row"))


def is_sealed(text: str | None) -> bool:
    return bool(text) and str(text).startswith(PREFIX)


def open_value(key: bytes, scope_hash: str, name: str, text: str) -> dict[str, Any]:
    raw = crypto.open_sealed(
        key, crypto.unb64(text[len(PREFIX) :]), scope_hash=scope_hash, slug=name, kind="row", where=name
    )
    value = json.loads(raw)
    assert isinstance(value, dict)
    return value


PROPOSAL_FIELDS = ("proposed_title", "proposed_body", "proposed_triggers", "reasoning")


def seal_proposal(key: bytes, scope_hash: str, row: dict[str, Any]) -> dict[str, Any]:
    """The words of a proposal go into one sealed value in proposed_body, bound to the
    scope (not the session slug, which marking renames; nor the id, which an insert
    gives only after sealing)."""
    secret = {k: row[k] for k in PROPOSAL_FIELDS}
    sealed = seal_value(key, scope_hash, "proposal", secret)
    return {**row, "proposed_title": "", "proposed_body": sealed, "proposed_triggers": [], "reasoning": None}


def open_proposal(key: bytes, scope_hash: str, row: dict[str, Any]) -> dict[str, Any]:
    if not is_sealed(row.get("proposed_body")):
        return row
    secret = open_value(key, scope_hash, "proposal", row["proposed_body"])
    return {**row, **secret}
