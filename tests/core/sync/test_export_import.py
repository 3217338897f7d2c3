"""memoryd export / import FILE.json: a populated home moved into an empty one answers the
same; a repeated import changes nothing; bad files are refused in one line without
touching the store; nothing device-private (grants, spool, audit) and no plaintext of a
sensitive project ever leaves in the file, yet the sealed memories open on the other side
once the key is imported and a grant given."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import keyring

from memoryd import crypto
from memoryd.testing import claude_exchange, stop_payload, write_jsonl
from tests.core.sensitive.support import CANARY, PIN, leaks, one_line_error

from .homes import Clock, Home, at, capture, diff, make_homes

SPOOL_CANARY = "SpooledWombat7731"
AUDIT_CANARY = "AuditedPlatypus5529"
RECOVERY = "recovery file passphrase 42"
REMEMBER = (
    "Remember: in this repo always use pnpm, never npm. This is important for the lockfile.",
    "Understood: pnpm only; I switched the scripts in package.json to pnpm.",
)
REMEMBER_2 = (
    "Remember: from now on we deploy with ansible, never by hand. This is important.",
    "OK, ansible only from now on.",
)
QUERIES = ("pnpm", "ansible deploy", "staging database", "release", "lockfile", "cache")
DOC_KEYS = {"format", "version", "device", "exported_at", "scopes", "links", "memories"}


def _tree(home: Path) -> dict[str, object]:
    """What "unchanged" means for a data directory: every file byte for byte, the index by
    its rows (SQLite may checkpoint its write-ahead log into the file at any open)."""
    out: dict[str, object] = {}
    for p in sorted(home.rglob("*")):
        rel = str(p.relative_to(home))
        if p.is_file() and not rel.startswith("index.db"):
            out[rel] = p.read_bytes()
    con = sqlite3.connect(home / "index.db")
    try:
        out["index.db"] = list(con.iterdump())
    finally:
        con.close()
    return out


def _search(home: Home, query: str, scopes: list[str] | None = None) -> list[tuple[str, float]]:
    return [(r.slug, r.score) for r in home.app().search(query, scopes=scopes)]


def _populate(home: Home, tmp_path: Path, clk: Clock) -> dict[str, Path]:
    """Two projects: records, a captured session promoted, another rejected (its reason
    in the audit log only), recalls, a forgotten memory, and a capture left spooled."""
    p1, p2 = tmp_path / "web", tmp_path / "infra"
    for p in (p1, p2):
        p.mkdir()
    transcripts = tmp_path / "transcripts"
    clk.tick()
    session = capture(home, p1, transcripts, "sess-1", [REMEMBER])
    other = capture(home, p2, transcripts, "sess-2", [REMEMBER_2])
    clk.tick()
    app = home.app()
    app.promote(app.analyze_session(session).promotion_id)
    pid = home.app().analyze_session(other).promotion_id
    assert pid
    home.app().reject(pid, reason=f"covered elsewhere {AUDIT_CANARY}")
    clk.tick()
    recorded = []
    for scope, title, body in (
        (p1, "Release train", "Release on Fridays after the smoke tests."),
        (p1, "Cache policy", "Cache API responses for five minutes."),
        (p2, "Staging database", "The staging database is db-2."),
        (p2, "Deploy keys", "Deploy keys live in the vault; ansible reads them."),
        (p2, "Old cache note", "Cache was memcached once."),
    ):
        clk.tick()
        recorded.append(home.app().record("fact", title, body, scope_path=scope)[0].meta.slug)
    clk.tick()
    home.app().get(recorded[0])
    home.app().get(recorded[2])
    home.app().forget(recorded[4])
    # A capture nobody drained: its payload sits in the spool.
    home.use()
    from memoryd.capture.hook import capture as hook

    lines = claude_exchange("what is the spool canary", "nothing", session_id="sess-3", cwd=str(p2))
    transcript = write_jsonl(transcripts / "sess-3.jsonl", lines)
    payload = stop_payload("sess-3", transcript, p2, last_assistant_message=f"said {SPOOL_CANARY}")
    assert hook("claude-code", payload, spawn=False)[0]
    return {"web": p1, "infra": p2}


# -- acceptance -------------------------------------------------------------------------
def test_export_into_an_empty_home(tmp_path: Path, monkeypatch, clk: Clock):
    a, b = make_homes(tmp_path, monkeypatch, "A", "B")
    projects = _populate(a, tmp_path, clk)
    assert leaks(a.path, SPOOL_CANARY) and leaks(a.path, AUDIT_CANARY)  # both are there to leak
    out = tmp_path / "memories.json"
    a.app()  # the device id is made once, by whichever of sync, export or import comes first
    from memoryd.sync import run

    run.device(a.path)
    before_export = _tree(a.path)
    code, text, err = a.main("export", "--out", str(out))
    assert code == 0 and "exported 8 memories" in text, (text, err)
    assert _tree(a.path) == before_export  # export writes nothing in the home

    raw = out.read_bytes()
    doc = json.loads(raw)
    assert set(doc) == DOC_KEYS and doc["format"] == "memoryd-memories" and doc["version"] == 1
    for canary in (SPOOL_CANARY, AUDIT_CANARY):
        assert canary.lower().encode() not in raw.lower()
    for forbidden in ("grant", "spool", "audit"):
        assert forbidden not in set(doc) and all(
            forbidden not in k for e in doc["memories"].values() for k in e
        )

    code, text, err = b.main("import", str(out))
    assert code == 0, err
    assert "imported 8 memories" in text and "8 written here" in text, text
    files_a, files_b = a.files(), b.files()
    assert files_b == files_a, diff(files_a, files_b)
    assert b.slugs() == a.slugs()
    clk.tick()
    for q in QUERIES:
        hits_a, hits_b = _search(a, q), _search(b, q)
        assert hits_a, q
        assert hits_b == hits_a, q
    h_web = a.app().scope(projects["web"]).hash
    assert _search(b, "pnpm release", [h_web]) == _search(a, "pnpm release", [h_web])

    # Again: nothing to write, no conflicts, not a byte changed.
    tree = {k: v for k, v in _tree(b.path).items() if k.startswith("scopes/")}
    report = b.app().import_memories(out)
    assert (report.written, report.conflicts) == (0, 0)
    assert {k: v for k, v in _tree(b.path).items() if k.startswith("scopes/")} == tree
    assert b.app().sync_conflicts() == []
    assert [e.event_type for e in b.app().audit_events(event_type="import")] == ["import"] * 2
    assert b.app().audit_verify().ok


def test_export_one_project_and_overwrite(tmp_path: Path, monkeypatch, clk: Clock):
    (a,) = make_homes(tmp_path, monkeypatch, "A")
    projects = _populate(a, tmp_path, clk)
    h_web = a.app().scope(projects["web"]).hash
    out = tmp_path / "web.json"
    code, text, err = a.main("export", "--out", str(out), "--scope", str(projects["web"]), "--json")
    assert code == 0, err
    memories = json.loads(out.read_text())["memories"]
    assert json.loads(text)["memories"] == len(memories) == 4  # session, promoted, 2 records
    assert {h["scope_hash"] for e in memories.values() for h in e["heads"]} == {h_web}
    web = {r["slug"] for r in a.app().list(scopes=[h_web])}
    assert set(memories) == web

    one_line_error(a.cli("export", "--out", str(out)), 2, "exists", "--force")
    assert json.loads(out.read_text())["memories"] == memories
    code, _, err = a.main("export", "--out", str(out), "--force")
    assert code == 0, err
    assert len(json.loads(out.read_text())["memories"]) == 8
    one_line_error(a.cli("export", "--out", str(tmp_path / "nowhere" / "x.json")), 2, "does not exist")


def test_bad_files_change_nothing(tmp_path: Path, monkeypatch, clk: Clock):
    a, b = make_homes(tmp_path, monkeypatch, "A", "B")
    project = tmp_path / "proj"
    project.mkdir()
    a.app().record("fact", "Alpha", "Alpha body.", scope_path=project)
    b.app().record("fact", "Beta", "Beta body.", scope_path=project)
    good = tmp_path / "good.json"
    a.app().export_memories(good)
    text = good.read_text()
    bad = {
        "notjson.json": "this is { not json",
        "format.json": json.dumps({"format": "memoryd-backup", "version": 1, "memories": {}}),
        "newer.json": json.dumps({**json.loads(text), "version": 2}),
        "cut.json": text[: len(text) * 2 // 3],
    }
    words = {
        "notjson.json": "not JSON",
        "format.json": "format",
        "newer.json": "newer",
        "cut.json": "not JSON",
    }
    before = _tree(b.path)
    for name, content in bad.items():
        path = tmp_path / name
        path.write_text(content)
        one_line_error(b.cli("import", str(path)), 2, name, words[name])
        assert _tree(b.path) == before, name
    one_line_error(b.cli("import", str(tmp_path / "missing.json")), 2, "missing.json")
    assert _tree(b.path) == before


# -- sensitive projects -----------------------------------------------------------------
def test_sensitive_project_travels_sealed(tmp_path: Path, monkeypatch, clk: Clock, secret_service: str):
    a, b = make_homes(tmp_path, monkeypatch, "A", "B")
    payroll, web = tmp_path / "payroll", tmp_path / "web"
    for p in (payroll, web):
        p.mkdir()
    clk.tick()
    a.app().record("fact", f"Salary band {CANARY}", f"The band is {CANARY}.", scope_path=payroll)
    a.app().record("fact", "Plain note", "Nothing secret about the web app.", scope_path=web)
    clk.tick()
    a.app().set_grant_pin(PIN)  # the person chose it before marking
    a.app().mark_sensitive(payroll)
    h = a.app().scope(payroll).hash
    (secret,) = [r["slug"] for r in a.app().list(scopes=[h])]  # marking gave it an opaque name
    a.app().grant(payroll, duration="session", pin=PIN)
    keyfile = tmp_path / "payroll.memoryd-key"
    a.app().key_export(payroll, keyfile, passphrase=RECOVERY)

    out = tmp_path / "memories.json"
    assert a.app().export_memories(out) == 2
    raw = out.read_bytes()
    assert leaks(tmp_path, CANARY) == [], leaks(tmp_path, CANARY)  # not in the export, nor anywhere
    doc = json.loads(raw)
    assert doc["scopes"][h]["sensitive"]["key_check"]
    sealed = [hd for e in doc["memories"].values() for hd in e["heads"] if hd["scope_hash"] == h]
    assert len(sealed) == 1 and all(hd["encrypted"] for hd in sealed)
    for hd in sealed:
        plain = crypto.unb64(hd["content"])
        assert CANARY.lower().encode() not in plain.lower() and b"Salary" not in plain
    assert secret in doc["memories"]

    # B is another machine: its keyring never held the key, and its person chose B's own grant
    # PIN (kept per data dir) before anything sensitive arrived there.
    keyring.delete_password("memoryd", f"scope-key:{h}")
    b.app().set_grant_pin(PIN)
    report = b.app().import_memories(out)
    assert report.locked == 1, report
    enc = [k for k in b.files() if k.startswith(f"scopes/{h}/")]
    assert enc and all(k.endswith(".md.enc") for k in enc), enc
    assert leaks(b.path) == []
    assert _search(b, CANARY) == []
    assert b.app().search(CANARY, scopes=[h]) == []

    b.app().key_import(keyfile, passphrase=RECOVERY)
    b.app().grant(payroll, duration="session", pin=PIN)
    hits = b.app().search(CANARY, scopes=[h])
    assert [r.slug for r in hits] == [secret], "the imported sealed memory is not found"
    assert CANARY in b.app().get(secret).doc.body
    assert leaks(b.path) == []


# -- unmarkings carried by sync --------------------------------------------------------
def _unmarking(doc: dict, scope_hash: str, when: str, proof: str | None) -> dict:
    forged = json.loads(json.dumps(doc))
    forged["device"] = {"id": "evil0000evil0000", "name": "evil"}
    forged["scopes"][scope_hash] = {
        **forged["scopes"][scope_hash],
        "unmarked_at": when,
        "unmark_proof": proof,
    }
    return forged


def test_an_unmarking_in_a_device_file_needs_the_scopes_key(
    tmp_path: Path, monkeypatch, clk: Clock, secret_service: str
):
    """Any process can write a device file into the sync folder, and an unmarking in one
    used to remove this device's `sensitive.json`: the project's next captures were then
    written in the clear. An unmarking now carries a MAC under the scope's key, made by
    `unmark`; one without it, with a made-up one, or with a true one for another time is
    refused (the scope stays sensitive, sealed, and says so). A device without the key
    waits for it; once it is here the true unmarking is taken."""
    from memoryd.sensitive import state as sensitive_state

    a, b = make_homes(tmp_path, monkeypatch, "A", "B")
    payroll = tmp_path / "payroll"
    payroll.mkdir()
    clk.tick()
    a.app().record("fact", f"Salary band {CANARY}", f"The band is {CANARY}.", scope_path=payroll)
    a.app().set_grant_pin(PIN)
    a.app().mark_sensitive(payroll)
    h = a.app().scope(payroll).hash
    a.app().grant(payroll, duration="session", pin=PIN)
    keyfile = tmp_path / "payroll.memoryd-key"
    a.app().key_export(payroll, keyfile, passphrase=RECOVERY)
    marked = tmp_path / "marked.json"
    a.app().export_memories(marked)
    b.app().set_grant_pin(PIN)
    # A review (2026-11-28): a forged unmarking dated after the marking, reaching a device
    # the marking had not reached yet, kept the marking out, and that device wrote and
    # synced the project's memories in the clear. It cannot be checked there: it waits,
    # and the marking is taken.
    early = tmp_path / "early.json"
    early.write_text(json.dumps(_unmarking(json.loads(marked.read_text()), h, at(clk.minutes + 5), None)))
    report = b.app().import_memories(early)
    assert sensitive_state.load(b.app().layout, h) is not None, report.held
    assert any("once this device can check it" in why for why in report.held), report.held
    b.app().import_memories(marked)
    b.app().key_import(keyfile, passphrase=RECOVERY)  # B's own keyring, in a real second machine
    assert sensitive_state.load(b.app().layout, h) is not None

    doc = json.loads(marked.read_text())
    later = at(clk.minutes + 600)  # ahead of this clock, as another device's may be
    real_key = sensitive_state.keyring_get(sensitive_state.key_entry(h))
    assert real_key
    true_then = sensitive_state.unmark_proof(real_key, h, at(1))
    for tried, when, proof in (
        ("no proof", later, None),
        ("a made-up proof", later, "0" * 64),
        ("a made-up proof under the right key check", later, true_then.split(":")[0] + ":" + "f" * 64),
        ("a true proof for another time", later, true_then),
        ("a true proof, dated years ahead", at(60 * 24 * 365 * 80), true_then),
    ):
        forged = tmp_path / "forged.json"
        forged.write_text(json.dumps(_unmarking(doc, h, when, proof)))
        clk.tick()
        report = b.app().import_memories(forged)
        assert sensitive_state.load(b.app().layout, h) is not None, tried
        assert any("refused" in why and h in why for why in report.held), (tried, report.held)
        b.app().record("fact", "Another band", f"Next year {CANARY}.", scope_path=payroll)
        assert leaks(b.path) == [], tried  # still sealed on write
        kept = json.loads((b.path / "sync" / "state.json").read_text())["scopes"][h]
        assert kept["unmarked_at"] is None, tried  # not passed on from here

    # A proof under a key this device does not hold cannot be judged here: it waits, and
    # the scope stays sensitive.
    now = clk.tick()
    forged.write_text(
        json.dumps(_unmarking(doc, h, now, sensitive_state.unmark_proof(crypto.new_key(), h, now)))
    )
    report = b.app().import_memories(forged)
    assert sensitive_state.load(b.app().layout, h) is not None
    assert any("once this device can check it" in why for why in report.held), report.held

    # The person unmarks on A (its keyring holds the key again); the unmarking travels.
    clk.tick()
    a.app().key_import(keyfile, passphrase=RECOVERY)
    a.app().grant(payroll, duration="session", pin=PIN)
    a.app().unmark_sensitive(payroll)
    unmarked = tmp_path / "unmarked.json"
    a.app().export_memories(unmarked)
    assert json.loads(unmarked.read_text())["scopes"][h]["unmark_proof"]
    # A's unmark took the key out of the one keyring these tests share: B, as a device
    # whose key is not at hand, waits.
    clk.tick()
    report = b.app().import_memories(unmarked)
    assert sensitive_state.load(b.app().layout, h) is not None
    assert any("once this device can check it" in why for why in report.held), report.held
    b.app().key_import(keyfile, passphrase=RECOVERY)
    clk.tick()
    report = b.app().import_memories(unmarked)
    assert report.held == [] and sensitive_state.load(b.app().layout, h) is None


def test_a_plain_version_for_a_scope_sealed_here_waits_for_the_key(
    tmp_path: Path, monkeypatch, clk: Clock, secret_service: str
):
    """A red-team test (2026-11-28): device A marked a project with a passphrase and has no
    grant; device B, which had not seen the marking, recorded in it and its version came
    to A in the clear, and A wrote it into the sealed scope's folder as plain text. It now
    waits, and is written sealed once the key is here."""
    a, b = make_homes(tmp_path, monkeypatch, "A", "B")
    plan = tmp_path / "plan"
    plan.mkdir()
    clk.tick()
    a.app().record("fact", "Old note", "Nothing yet.", scope_path=plan)
    a.app().mark_sensitive(plan, passphrase=RECOVERY)
    h = a.app().scope(plan).hash
    clk.tick()
    marker = plan / ".memoryd-sensitive"
    marker.rename(tmp_path / "marker")  # B is another machine: its checkout has no marker yet
    b.app().record("fact", "Device B plan", f"The bid is {CANARY}.", scope_path=plan)
    (tmp_path / "marker").rename(marker)
    out = tmp_path / "from-b.json"
    b.app().export_memories(out)

    clk.tick()
    report = a.app().import_memories(out)
    assert report.locked >= 1, report
    assert [p.name for p in (a.path / "scopes" / h).rglob("*.md")] == [], "a plain file in a sealed scope"
    assert CANARY not in "".join(p.read_text(errors="replace") for p in (a.path / "scopes").rglob("*.md*"))

    a.app().grant(plan, duration="session", passphrase=RECOVERY)
    clk.tick()
    a.app().import_memories(out)
    assert [p.name for p in (a.path / "scopes" / h).rglob("*device-b-plan*")] != []  # now written
    assert [p.name for p in (a.path / "scopes" / h).rglob("*.md")] == []  # sealed
