"""The canary: a word put everywhere a scope's content can reach (memory titles, bodies
and triggers, a captured transcript, a rejected promotion's reason, trigger statistics)
is, once the scope is marked, in no file of the data directory in any letter case, and
comes back only through a grant."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from memoryd.app import Memoryd
from memoryd.scope import resolve

from ..governance.sessions import capture
from .support import (
    CANARY,
    PIN,
    audit_events,
    enc_files,
    grant_tty,
    leaks,
    one_line_error,
    plain_files,
    record,
    set_pin,
    tty_cli,
)

REMEMBER_CANARY = (
    f"Remember: in this repo always file invoices under {CANARY}, never under misc. This is important.",
    f"Understood: invoices go under {CANARY} only; I moved the old ones.",
)


@pytest.fixture
def marked(cli, secret_service: str, project: Path, tmp_path: Path, isolated_home: Path) -> dict:
    slugs = [
        record(cli, project, f"Invoice folder {CANARY}", f"Put invoices under {CANARY}/2026.", CANARY),
        record(cli, project, f"{CANARY.upper()} account", f"The account is named {CANARY.lower()}.", "bank"),
        record(cli, project, "Auditor contact", f"Ask the auditor about {CANARY} before May.", "auditor"),
    ]
    session = capture(cli, project, tmp_path, "canary-session-1", [REMEMBER_CANARY])
    pid = json.loads(cli("analyze-session", session, "--json").stdout)["promotion_id"]
    assert pid, "the rules analyzer proposes a promotion for an explicit 'remember'"
    assert cli("reject", str(pid), "--reason", f"already covered by {CANARY} note").returncode == 0
    pending = capture(cli, project, tmp_path, "canary-session-2", [REMEMBER_CANARY])
    assert json.loads(cli("analyze-session", pending, "--json").stdout)["promotion_id"]

    hits = json.loads(cli("search", CANARY, "--scope", str(project), "--json").stdout)
    assert slugs[0] in {h["slug"] for h in hits}
    with Memoryd().store.engine.connect() as c:
        stats = c.exec_driver_sql('SELECT "trigger" FROM trigger_stats').fetchall()
    assert (CANARY,) in stats, stats
    # The scan finds the canary where it lives before marking, so its silence later means something.
    before = leaks(isolated_home)
    assert "index.db" in before and "audit/audit.jsonl" in before, before
    assert any(p.startswith("scopes/") for p in before), before

    set_pin(cli)
    out = cli("mark-sensitive", str(project), stdin=PIN + "\n")
    assert out.returncode == 0, out.stderr
    assert "5 memories encrypted" in out.stdout, out.stdout
    return {"slugs": slugs, "session": session, "pid": pid, "hash": resolve(project).hash}


def test_mark_leaves_no_canary_and_reads_need_a_grant(cli, marked: dict, project: Path, isolated_home: Path):
    assert leaks(isolated_home) == []
    assert plain_files(isolated_home) == [] and len(enc_files(isolated_home)) == 5
    assert [p.name for p in isolated_home.glob("scopes/*/sessions/*.turns.jsonl.enc")]
    assert not list(isolated_home.glob("scopes/*/*/*.turns.jsonl"))
    for old in [*marked["slugs"], marked["session"]]:
        assert not list(isolated_home.rglob(f"*{old}*"))
    verify = cli("audit", "verify")
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert cli("doctor").returncode == 0

    # Without a grant: refused, counted, audited.
    rows = json.loads(cli("list", "--scope", str(project), "--json").stdout)
    assert len(rows) == 5  # three records, two sessions
    for r in rows:
        assert r["title"] == "(sensitive: grant to read)"
    one_line_error(cli("get", rows[0]["slug"]), 3, "sensitive", "memoryd grant")

    out = cli("search", CANARY, "--scope", str(project), "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == []
    assert "were not searched" in out.stderr and str(project) in out.stderr
    assert out.stderr.count("\n") == 1 and f"5 memories of sensitive scope {project}" in out.stderr

    denied = audit_events(cli, "access_denied")
    whats = [json.loads(e["details"])["what"] for e in denied]
    assert "get" in whats and "search" in whats
    assert all(e["scope_hash"] == marked["hash"] for e in denied)
    proposals = cli("promotions", "--json")
    assert proposals.returncode == 0 and CANARY not in proposals.stdout
    assert leaks(isolated_home) == []

    # A grant needs the person's PIN: neither `y` piped nor `n` typed on a terminal is one.
    one_line_error(cli("grant", str(project), "--duration", "once", stdin="y\n"), 3, "wrong grant PIN")
    code, out, term = tty_cli("grant", str(project), "--duration", "once", answer="n")
    assert code == 3 and "not granted" in term and out == ""
    assert json.loads(cli("grants", "--json").stdout) == []
    assert audit_events(cli, "grant") == []


def test_a_grant_brings_the_canary_back_and_nowhere_else(
    cli, marked: dict, project: Path, isolated_home: Path
):
    grant_tty(project)
    out = cli("search", CANARY, "--scope", str(project), "--json")
    assert out.returncode == 0 and "not searched" not in out.stderr, out.stderr
    hits = json.loads(out.stdout)
    assert len(hits) == 5, hits  # three records, two sessions
    assert any(CANARY in (h.get("title") or "") for h in hits), hits
    for h in hits:
        shown = cli("get", h["slug"])
        assert shown.returncode == 0, shown.stderr
        assert CANARY.lower() in shown.stdout.lower()
    sess = json.loads(cli("list", "--scope", str(project), "--type", "session", "--json").stdout)
    assert len(sess) == 2
    shown = cli("get", sess[0]["slug"], "--json")
    assert shown.returncode == 0 and CANARY in shown.stdout

    assert CANARY in cli("promotions", "--json").stdout  # sealed proposals open under the grant

    reads = audit_events(cli, "sensitive_read")
    assert {json.loads(e["details"])["what"] for e in reads} >= {"get", "search"}
    assert all(e["scope_hash"] == marked["hash"] for e in reads)
    # Reading under a grant writes recall counts, trigger statistics and audit events:
    # none of them may carry the words just read.
    assert leaks(isolated_home) == []
    assert cli("audit", "verify").returncode == 0


# A sensitive project's folder name can be the secret itself: after marking it is in
# neither index.db nor its WAL (issue 22). It stays in scopes/<hash>/sensitive.json, the
# scope's settings (its root, read by the gate's messages and `unmark`): documented in
# docs/security.md.
FOLDER = "KestrelMergerTalks"


def _index_files(home: Path) -> list[str]:
    return [n for n in ("index.db", "index.db-wal", "index.db-shm") if (home / n).exists()]


def _holding(home: Path, word: str) -> list[str]:
    return [n for n in _index_files(home) if word.lower().encode() in (home / n).read_bytes().lower()]


def test_a_sensitive_projects_folder_name_leaves_the_index(
    cli, secret_service: str, tmp_path: Path, isolated_home: Path
):
    secret = tmp_path / FOLDER
    secret.mkdir()
    h = resolve(secret).hash
    slug = record(cli, secret, "Board dates", "The board meets on Friday.", "board")
    capture(cli, secret, tmp_path, "canary-names-1", [("Draft the agenda", "Drafted it.")])
    listed = json.loads(cli("list", "--all-scopes", "--json").stdout)
    assert {r["project"] for r in listed} == {FOLDER}
    Memoryd().store.engine.dispose()
    assert _holding(isolated_home, FOLDER), "the scan finds the name while the project is plain"

    set_pin(cli)
    out = cli("mark-sensitive", str(secret), stdin=PIN + "\n")
    assert out.returncode == 0, out.stderr
    assert _holding(isolated_home, FOLDER) == []

    # Without a grant: the CLI (cold read path and full path alike) says "sensitive project".
    label = f"sensitive project {h}"
    rows = json.loads(cli("list", "--all-scopes", "--json").stdout)
    assert len(rows) == 2 and {r["project"] for r in rows} == {label}
    text = cli("list", "--all-scopes").stdout
    assert FOLDER not in text and label[:30] in text
    assert json.loads(cli("scope", str(secret), "--json").stdout)["project"] == label
    withheld = Memoryd().project_names([h])[h]
    assert withheld.withheld and withheld.root is None and withheld.name == ""

    # New writes into the sensitive project keep the name sealed.
    more = json.loads(
        cli(
            "record", "--type", "fact", "--title", "Venue", "--scope", str(secret), "--json", stdin="Room 4."
        ).stdout
    )
    assert more["slug"] != slug
    Memoryd().store.engine.dispose()
    assert _holding(isolated_home, FOLDER) == []

    # Under a grant the sealed name opens, on the CLI's read path and in the facade.
    grant_tty(secret, "session")
    rows = json.loads(cli("list", "--all-scopes", "--json").stdout)
    assert {r["project"] for r in rows} == {FOLDER}
    assert Memoryd().project_names([h])[h].root == str(secret.resolve())
    Memoryd().store.engine.dispose()
    assert _holding(isolated_home, FOLDER) == []

    # Rotating the key re-seals the name; unmarking brings it back in the clear.
    assert cli("rotate-key", str(secret)).returncode == 0
    assert Memoryd().project_names([h])[h].label == FOLDER
    out = cli("unmark-sensitive", str(secret))
    assert out.returncode == 0, out.stderr
    assert {r["project"] for r in json.loads(cli("list", "--all-scopes", "--json").stdout)} == {FOLDER}


def test_a_project_below_a_sensitive_one_does_not_leak_its_name(
    cli, secret_service: str, tmp_path: Path, isolated_home: Path
):
    """A folder below the sensitive root that had its own scope before the mark: its row
    named it by a path holding the secret folder ("docs (KestrelMergerTalks)")."""
    secret = tmp_path / FOLDER
    docs, other = secret / "docs", tmp_path / "other" / "docs"
    docs.mkdir(parents=True)
    other.mkdir(parents=True)
    record(cli, docs, "In the subfolder", "Minutes go here.", "minutes")
    capture(cli, docs, tmp_path, "canary-names-sub", [("Draft the minutes", "Drafted them.")])
    record(cli, other, "Elsewhere", "Another docs folder.", "other")
    listed = json.loads(cli("list", "--all-scopes", "--json").stdout)
    assert f"docs ({FOLDER})" in {r["project"] for r in listed}, "a namesake makes the parent show"
    Memoryd().store.engine.dispose()
    assert _holding(isolated_home, FOLDER)

    set_pin(cli)
    out = cli("mark-sensitive", str(secret), stdin=PIN + "\n")
    assert out.returncode == 0, out.stderr
    Memoryd().store.engine.dispose()
    assert _holding(isolated_home, FOLDER) == []

    # Without a grant, nothing the CLI prints names the sensitive folder.
    record(cli, other, "Elsewhere again", "Still plain.", "other")
    for args in (
        ("list", "--all-scopes"),
        ("list", "--all-scopes", "--json"),
        ("digest",),
        ("digest", "--json"),
    ):
        shown = cli(*args)
        assert shown.returncode == 0, shown.stderr
        assert FOLDER.lower() not in (shown.stdout + shown.stderr).lower(), args
    sub = Memoryd().project_names([_hash(docs)])[_hash(docs)]
    assert sub.root is None and sub.withheld

    # A scope of its own appearing below the sensitive root later (a repository cloned
    # there after the marker was deleted) is not named in the clear either; it is marked,
    # as everything below a sensitive folder is, so nothing is written to it in the clear
    # (tests/core/sensitive/test_edges.py).
    (secret / ".memoryd-sensitive").unlink()
    repo = secret / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    out = cli(
        "record",
        "--type",
        "fact",
        "--title",
        "In the repository",
        "--scope",
        str(repo),
        stdin="Cloned later.",
    )
    one_line_error(out, 2, "is marked sensitive but has no key")
    Memoryd().store.engine.dispose()
    assert _holding(isolated_home, FOLDER) == []
    assert FOLDER.lower() not in cli("list", "--all-scopes").stdout.lower()


def _hash(path: Path) -> str:
    from memoryd.envpaths import hash_root

    return hash_root(str(path.resolve()))
