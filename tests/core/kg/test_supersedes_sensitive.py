"""Supersedes in a sensitive scope (seed 000 and seed 001 section 5): judged by the rules
(no LLM is asked about a sensitive scope), with the memories' files as the only place
their names live: not the index, not the audit log, not a listing without a grant; and a
chain made before the scope was marked keeps working under its opaque names."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from memoryd.app import Memoryd
from memoryd.config import Config, LLMConfig
from memoryd.scope import resolve
from memoryd.sensitive import marking
from tests.core.llm.replay import Replay, recorded
from tests.core.sensitive.support import PIN, grant_tty, leaks, one_line_error

MODEL = "claude-haiku-4-5-20251001"
# CamelCase names the rules read as entities, and that nothing else under MEMORYD_HOME holds.
OLD_NAME, NEW_NAME = "QuokkaBase", "ZebraStore"
REACT = ("Prefer React for the frontend framework", "Prefer React for the frontend framework.")
SOLID = ("Solid for the frontend framework", "We switched from React to Solid for the frontend framework.")
LEDGER_STORE = ("Ledger store", f"Use {OLD_NAME} instead of FlatFiles for the ledger.")
LEDGER_EXPORTS = ("Ledger exports", f"The {OLD_NAME} exports run nightly at two.")
LEDGER_MOVED = ("Ledger moved", f"We switched from {OLD_NAME} to {NEW_NAME} for the ledger.")


def _at(monkeypatch, when: str) -> None:
    monkeypatch.setenv("MEMORYD_NOW", when)


def _json(out) -> Any:
    assert out.returncode == 0, (out.returncode, out.stdout, out.stderr)
    return json.loads(out.stdout)


def _index(home: Path, sql: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(home / "index.db") as db:
        return db.execute(sql).fetchall()


def _record(app: Memoryd, where: Path, memory_type: str, title: str, body: str) -> str:
    doc, _ = app.record(memory_type, title, body, scope_path=where)
    return doc.meta.slug


def test_acceptance_a_sensitive_scope_supersedes_by_the_rules_and_keeps_names_out(
    cli, secret_service: str, tmp_path: Path, monkeypatch, isolated_home: Path
):
    secret = tmp_path / "payroll"
    secret.mkdir()
    assert cli("mark-sensitive", str(secret), stdin=PIN + "\n").returncode == 0
    grant_tty(secret, "task", "--task", "ledger")
    h = resolve(secret).hash

    # An LLM is configured with a key: a sensitive scope still never reaches it.
    replay = Replay(recorded("anthropic", "kg_extract_react"))

    def app() -> Memoryd:
        return Memoryd(
            config=Config(llm=LLMConfig(provider="anthropic", model=MODEL)),
            llm_env={"ANTHROPIC_API_KEY": "sk-test-0123456789"},
            llm_transport=replay.transport,
        )

    _at(monkeypatch, "2026-05-01T09:00:00Z")
    react = _record(app(), secret, "preference", *REACT)
    store_ = _record(app(), secret, "fact", *LEDGER_STORE)
    _at(monkeypatch, "2026-06-01T09:00:00Z")
    exports = _record(app(), secret, "fact", *LEDGER_EXPORTS)
    _at(monkeypatch, "2026-11-01T09:00:00Z")
    a = app()
    solid = _record(a, secret, "preference", *SOLID)
    assert a.learned is not None and a.learned.by == "rules" and a.learned.judged_by == "rules"
    assert [(j["older"], j["confidence"], j["outcome"]) for j in a.learned.judgements] == [
        (react, 0.9, "superseded")
    ]
    a = app()
    moved = _record(a, secret, "fact", *LEDGER_MOVED)
    assert a.learned is not None and a.learned.judged_by == "rules"
    outcomes = {j["older"]: (j["confidence"], j["outcome"]) for j in a.learned.judgements}
    assert outcomes == {store_: (0.9, "superseded"), exports: (0.6, "pending")}, a.learned.judgements
    assert replay.requests == []

    for slug in (react, store_, exports, solid, moved):
        assert marking.OPAQUE.match(slug), slug
    reader = Memoryd()
    assert reader.store.read(react)[0].meta.superseded_by == solid
    assert reader.store.read(solid)[0].meta.supersedes == [react]
    assert reader.store.read(store_)[0].meta.superseded_by == moved
    assert reader.store.read(exports)[0].meta.superseded_by is None

    # No name of the scope outside its sealed files: not the index, the audit log, anything.
    assert leaks(isolated_home, OLD_NAME) == []
    assert leaks(isolated_home, NEW_NAME) == []
    assert _index(isolated_home, "SELECT count(*) FROM entities") == [(0,)]
    assert _index(isolated_home, "SELECT count(*) FROM entity_mentions") == [(0,)]
    assert _index(isolated_home, "SELECT count(*) FROM relations") == [(0,)]
    assert sorted(
        _index(isolated_home, "SELECT newer_memory_id, older_memory_id FROM supersedes_chain")
    ) == sorted([(solid, react), (moved, store_)])

    # The rules' reasons name the entities: a sensitive scope's stay out of the index.
    assert _index(isolated_home, "SELECT DISTINCT coalesce(reason, '') FROM supersedes_chain") == [("",)]
    assert _index(isolated_home, "SELECT coalesce(reason, '') FROM pending_supersedes") == [("",)]
    # Under the grant the user sees what waits.
    (row,) = _json(cli("supersede", "list", "--json"))
    assert (row["newer_memory_id"], row["older_memory_id"]) == (moved, exports)
    pair = f'"{LEDGER_MOVED[0]}" replaces "{LEDGER_EXPORTS[0]}"'
    assert f"#{row['id']} {pair}?" in cli("digest").stdout
    history = _json(cli("history", moved, "--json"))
    assert [m["slug"] for m in history["chain"]] == [store_, moved]
    assert [m["title"] for m in history["chain"]] == [LEDGER_STORE[0], LEDGER_MOVED[0]]
    assert [p["id"] for p in history["pending"]] == [row["id"]]

    # Without a grant: the pair is listed, its titles and reason are not.
    assert cli("revoke", str(secret)).returncode == 0
    for args in (("supersede", "list"), ("supersede", "list", "--json"), ("digest",), ("digest", "--json")):
        out = cli(*args)
        assert out.returncode == 0, (args, out.stderr)
        for word in (OLD_NAME, NEW_NAME, "Ledger", "React", "Solid", "replaced", "names it"):
            assert word not in out.stdout, (args, word, out.stdout)
    (sealed,) = _json(cli("supersede", "list", "--json"))
    assert sealed["id"] == row["id"] and sealed["scope_hash"] == h and not sealed["reason"]
    (waiting,) = _json(cli("digest", "--json"))["pending_supersedes"]
    assert waiting["id"] == row["id"] and waiting["reason"] == ""
    assert waiting["new_title"] == waiting["old_title"] and "Ledger" not in waiting["new_title"]
    one_line_error(cli("history", moved), 3, "memoryd grant")
    one_line_error(cli("supersede", "confirm", str(row["id"])), 3, "memoryd grant")
    one_line_error(cli("supersede", "dismiss", str(row["id"])), 3, "memoryd grant")
    one_line_error(cli("supersede", "link", exports, react), 3, "memoryd grant")
    assert Memoryd().store.read(exports)[0].meta.superseded_by is None

    grant_tty(secret, "once")
    done = cli("supersede", "confirm", str(row["id"]))
    assert done.returncode == 0 and done.stdout.strip() == f"#{row['id']}: {moved} supersedes {exports}"
    assert Memoryd().store.read(exports)[0].meta.superseded_by == moved
    assert leaks(isolated_home, OLD_NAME) == [] and leaks(isolated_home, NEW_NAME) == []
    # Under a grant `supersede list` opens the titles, as the digest and history do.
    listed = cli("supersede", "list", "--status", "confirmed")
    assert listed.returncode == 0 and pair in listed.stdout, listed.stdout


def test_acceptance_marking_a_scope_sensitive_keeps_its_chain(
    cli, secret_service: str, project: Path, monkeypatch, isolated_home: Path
):
    _at(monkeypatch, "2026-05-01T09:00:00Z")
    react = _record(Memoryd(), project, "preference", *REACT)
    _at(monkeypatch, "2026-11-01T09:00:00Z")
    solid = _record(Memoryd(), project, "preference", *SOLID)
    assert Memoryd().store.read(react)[0].meta.superseded_by == solid
    before = _json(cli("history", react, "--json"))
    assert [m["slug"] for m in before["chain"]] == [react, solid]

    assert cli("mark-sensitive", str(project), stdin=PIN + "\n").returncode == 0
    rows = _json(cli("list", "--scope", str(project), "--json"))
    names = sorted(r["slug"] for r in rows)
    assert len(names) == 2 and all(marking.OPAQUE.match(n) for n in names), names
    assert not {react, solid} & set(names)
    one_line_error(cli("history", names[0]), 3, "memoryd grant")
    one_line_error(cli("history", react), 1)  # the readable name is gone with the plaintext

    grant_tty(project, "session")
    for member in names:
        h = _json(cli("history", member, "--json"))
        chain = h["chain"]
        assert [m["title"] for m in chain] == [REACT[0], SOLID[0]], chain
        old, new = chain[0]["slug"], chain[1]["slug"]
        assert {old, new} == set(names)
        assert chain[0]["superseded_by"] == new and chain[1]["superseded_by"] is None
        (link,) = h["links"]
        assert (link["newer_memory_id"], link["older_memory_id"]) == (new, old)
        assert link["decided_by"] == "auto" and link["confidence"] == 0.9
        text = cli("history", member)
        assert text.returncode == 0 and f"[superseded by {new}]" in text.stdout, text.stdout
        assert react not in text.stdout and solid not in text.stdout
    reader = Memoryd()
    assert reader.store.read(new)[0].meta.supersedes == [old]
    hits = _json(cli("search", "frontend framework", "--scope", str(project), "--json"))
    assert [h["slug"] for h in hits] == [new, old] and hits[1]["superseded_by"] == new
