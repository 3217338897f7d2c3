"""The CLI's read path (memoryd.cli.fastread): `search`, `get`, `list` and `scope` served
over the standard library's sqlite3 import no SQLAlchemy, SQLModel or pydantic, and say
and do exactly what the full path says and does on the same store: same stdout, stderr and
exit code, same memory files and index rows afterwards (recall counters included), with
`--json` or not, forgotten states, hand-edited files and sensitive scopes."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from memoryd import embed
from memoryd.app import Memoryd
from memoryd.models import DecayState

HEAVY = ("sqlalchemy", "sqlmodel", "pydantic")
NOW = "2026-06-01T10:00:00Z"
# The full path, as the CLI ran before the read path: the same main() with it switched off.
FULL = "import sys; from memoryd.cli import main as m; m._fast_read = lambda argv: None; sys.exit(m.main())"


def _run(args: list[str], home: Path, cwd: Path, *, full: bool = False, importtime: bool = False):
    head = [sys.executable, *(["-X", "importtime"] if importtime else [])]
    head += ["-c", FULL] if full else ["-m", "memoryd.cli.main"]
    env = {**os.environ, "MEMORYD_HOME": str(home), "MEMORYD_NOW": NOW}
    return subprocess.run([*head, *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=120)


@pytest.fixture(autouse=True)
def cold_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """No embedding model loaded in this process, as in a fresh one: `record` here leaves
    the vectors to the worker (or the first search), whatever ran before in this worker."""
    monkeypatch.setattr(embed, "_loaded", {})


def _said(out: subprocess.CompletedProcess[str], home: Path) -> tuple[int, str, str]:
    """Exit code, stdout and stderr (without `-X importtime` lines), the home path masked."""
    err = "".join(line for line in out.stderr.splitlines(True) if not line.startswith("import time:"))
    return out.returncode, out.stdout.replace(str(home), "HOME"), err.replace(str(home), "HOME")


def _imported(stderr: str) -> set[str]:
    """Top-level packages in `-X importtime` output."""
    return {
        line.rsplit("|", 1)[-1].strip().split(".")[0]
        for line in stderr.splitlines()
        if line.startswith("import time:")
    }


def _heavy(stderr: str) -> list[str]:
    """Modules of SQLAlchemy, SQLModel or pydantic in `-X importtime` output."""
    names = [
        line.rsplit("|", 1)[-1].strip() for line in stderr.splitlines() if line.startswith("import time:")
    ]
    return [n for n in names if n.split(".")[0] in HEAVY]


def _store(project: Path, other: Path) -> dict[str, str]:
    """Memories in two scopes: alive, soft-forgotten, forgotten (archived), superseded
    by nothing, one with triggers, one file edited by hand (not as memoryd writes it)."""
    app = Memoryd()

    def rec(kind: str, title: str, body: str, where: Path, *triggers: str) -> str:
        return app.record(kind, title, body, triggers=list(triggers), scope_path=where)[0].meta.slug

    slugs = {
        "pg": rec(
            "decision", "Use Postgres for the queue", "SQLite locked up under load.", project, "postgres"
        ),
        "tabs": rec("preference", "Tabs not spaces", "The team prefers tabs in Go code.", project),
        "soft": rec("fact", "Queue retries", "The queue retries a job three times.", project, "queue"),
        "gone": rec("fact", "Old queue host", "The queue ran on host q1.", project),
        "hand": rec("playbook", "Deploy the queue", "Run make deploy, then check the queue.", project),
        "far": rec("fact", "Queue in the other project", "Another queue lives here.", other),
    }
    store = app.store
    doc, path = store.read(slugs["soft"])
    doc.meta.decay_state = DecayState.soft_forgotten
    store.files.write(doc)
    store.reindex(actor="test")
    app.forget(slugs["gone"])
    _, path = store.read(slugs["hand"])
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("---\n", "---\n# edited by hand\n", 1), encoding="utf-8")
    return slugs


def _missing_vectors(home: Path) -> int:
    """Texts with a vector ref and no vector of any model."""
    con = sqlite3.connect(home / "index.db")
    try:
        return int(
            con.execute(
                "SELECT count(*) FROM vector_refs r WHERE NOT EXISTS "
                "(SELECT 1 FROM vectors v WHERE v.fingerprint = r.fingerprint)"
            ).fetchone()[0]
        )
    finally:
        con.close()


def _tables(home: Path) -> dict[str, list[tuple[object, ...]]]:
    con = sqlite3.connect(home / "index.db")
    try:
        return {
            t: con.execute(f"SELECT * FROM {t} ORDER BY 1, 2").fetchall()
            for t in ("memories", "recall_stats", "trigger_stats")
        }
    finally:
        con.close()


def _files(home: Path) -> dict[str, bytes]:
    return {
        p.relative_to(home).as_posix(): p.read_bytes()
        for p in sorted((home / "scopes").rglob("*"))
        if p.is_file() and not p.name.startswith(".")
    }


def test_the_read_commands_import_no_sqlalchemy_sqlmodel_or_pydantic(
    project: Path, tmp_path: Path, isolated_home
):
    other = tmp_path / "other"
    other.mkdir()
    slugs = _store(project, other)
    # the memories have no vectors yet (a cold record leaves them to the worker): the first
    # hybrid search embeds them before it answers, a write, so it takes the full path
    out = _run(["search", "postgres"], isolated_home, project, importtime=True)
    assert out.returncode == 0 and slugs["pg"] in out.stdout, out.stderr[-2000:]
    assert _heavy(out.stderr), "embedding missing vectors is the full path's"
    assert _missing_vectors(isolated_home) == 0
    for args in (
        ["search", "postgres"],
        ["search", "postgres", "--mode", "dense"],
        ["search", "postgres", "--mode", "keyword"],
        ["search", "postgres", "--json", "--all-scopes"],
        ["search", "kubernetes"],  # nothing here: the hint searches the other scopes
        ["get", slugs["pg"]],
        ["get", slugs["tabs"], "--json"],
        ["list"],
        ["list", "--all-scopes", "--json"],
        ["scope"],
        ["scope", "--json"],
    ):
        out = _run(args, isolated_home, project, importtime=True)
        assert out.returncode == 0, (args, out.stderr[-2000:])
        assert _heavy(out.stderr) == [], (args, _heavy(out.stderr)[:5])
        if args[0] != "search" or "keyword" in args:  # no model, so no numpy (~100 ms cold)
            assert "numpy" not in _imported(out.stderr), args
    # a search whose hit is a hand-edited file still counts it, through the full model
    out = _run(["search", "make", "deploy"], isolated_home, project, importtime=True)
    assert out.returncode == 0 and slugs["hand"] in out.stdout, out.stderr[-2000:]


def test_fast_and_full_paths_say_and_do_the_same(project: Path, tmp_path: Path, isolated_home):
    other = tmp_path / "other"
    other.mkdir()
    slugs = _store(project, other)
    fast_home, full_home = tmp_path / "fast", tmp_path / "full"
    shutil.copytree(isolated_home, fast_home)
    shutil.copytree(isolated_home, full_home)
    commands = [
        ["search", "queue"],
        ["search", "queue", "--include-forgotten", "--json"],
        ["search", "queue", "--all-scopes", "--type", "fact", "--limit", "2", "--json"],
        ["search", "make", "deploy"],  # the hand-edited file: counted through the model
        ["search", "another"],  # none here, one elsewhere: the hint
        ["search", "queue", "--limit", "0"],  # refused, in the full path's words
        ["get", slugs["pg"], "--json"],
        ["get", slugs["hand"]],  # not as memoryd writes it: the full path reads it
        ["get", slugs["gone"]],  # forgotten: out of the index
        ["list", "--include-forgotten"],
        ["list", "--all-scopes", "--json"],
        ["scope", str(other), "--json"],
        ["search"],  # a usage error: the full parser's words
    ]
    for args in commands:
        fast = _run(args, fast_home, project)
        full = _run(args, full_home, project, full=True)
        said = [(o.returncode, o.stdout.replace(str(h), "HOME"), o.stderr.replace(str(h), "HOME"))
                for o, h in ((fast, fast_home), (full, full_home))]  # fmt: skip
        assert said[0] == said[1], args
    assert _files(fast_home) == _files(full_home)
    assert _tables(fast_home) == _tables(full_home)
    counted = {r[0]: r[10] for r in _tables(fast_home)["memories"]}
    assert counted[slugs["pg"]] >= 3 and counted[slugs["hand"]] >= 2  # recalls were counted


def test_hybrid_search_on_the_read_path_finds_across_languages_as_the_full_path_does(
    project: Path, tmp_path: Path, isolated_home
):
    """The default (hybrid) and dense modes on the read path: a Chinese question finds the
    English memory, with numpy and the model but no SQLAlchemy, and every mode says and
    does what the full path does."""
    app = Memoryd()
    english = app.record(
        "fact",
        "Deploy target",
        "We deploy the backend to Kubernetes on Google Cloud; staging and production are separate clusters.",
        scope_path=project,
    )[0].meta.slug
    app.record("fact", "Code style", "Python code is formatted with ruff.", scope_path=project)
    app.record("fact", "Release notes", "Every release gets a changelog entry.", scope_path=project)
    assert _run(["search", "kubernetes"], isolated_home, project).returncode == 0  # embeds them
    assert _missing_vectors(isolated_home) == 0
    fast_home, full_home = tmp_path / "fast", tmp_path / "full"
    shutil.copytree(isolated_home, fast_home)
    shutil.copytree(isolated_home, full_home)
    ask = "我们的后端服务部署在哪里？"  # where do we deploy the backend? (no word in common)
    found = {}
    for mode in ("hybrid", "dense", "keyword"):
        args = ["search", ask, "--json", *(["--mode", mode] if mode != "hybrid" else [])]
        fast = _run(args, fast_home, project, importtime=True)
        assert fast.returncode == 0 and _heavy(fast.stderr) == [], (mode, fast.stderr[-2000:])
        full = _run(args, full_home, project, full=True)
        assert _said(fast, fast_home) == _said(full, full_home), mode
        found[mode] = [r["slug"] for r in json.loads(fast.stdout)]
    assert found["hybrid"][:1] == [english] and found["dense"][:1] == [english], found
    assert english not in found["keyword"]
    assert _tables(fast_home) == _tables(full_home)
    assert _files(fast_home) == _files(full_home)


def test_sensitive_scopes_take_the_full_path_with_its_gate_and_audit(
    cli, secret_service: str, project: Path, tmp_path: Path, isolated_home
):
    """A search that reaches a sensitive scope reports what it withheld and audits the
    refusal; `get` of a sealed memory is refused and audited; `list` shows no title."""
    other = tmp_path / "other"
    other.mkdir()
    app = Memoryd()
    app.record("fact", "Vault code", "The vault code is 4711.", scope_path=other)
    plain = app.record("fact", "Vault location", "The vault is in the basement.", scope_path=project)[
        0
    ].meta.slug
    app.mark_sensitive(other)
    (sealed,) = [r["slug"] for r in app.list(scopes=[app.scope(other).hash])]  # renamed when sealed

    out = _run(["search", "vault", "--all-scopes"], isolated_home, project, importtime=True)
    assert out.returncode == 0 and plain in out.stdout and sealed not in out.stdout
    assert "1 memories of sensitive scope" in out.stderr and "were not searched" in out.stderr
    assert _heavy(out.stderr), "a sensitive scope in reach takes the full path"
    out = _run(["get", sealed], isolated_home, project)
    assert out.returncode != 0 and out.stderr.count("\n") == 1 and "sensitive" in out.stderr, out.stderr
    denied = [e for e in app.audit_events() if e.event_type == "access_denied"]
    assert [e.details_obj.get("what") for e in denied] == ["search", "get"], denied

    listed = _run(["list", "--all-scopes", "--json"], isolated_home, project, importtime=True)
    assert _heavy(listed.stderr) == []
    titles = {r["slug"]: r["title"] for r in json.loads(listed.stdout)}
    assert titles == {plain: "Vault location", sealed: "(sensitive: grant to read)"}
    full = _run(["list", "--all-scopes", "--json"], isolated_home, project, full=True)
    assert full.stdout == listed.stdout
    # searching only the plain scope stays on the read path
    out = _run(["search", "vault"], isolated_home, project, importtime=True)
    assert out.returncode == 0 and plain in out.stdout and _heavy(out.stderr) == []


@pytest.mark.parametrize("change", ["pending", "newer", "absent"])
def test_an_index_not_at_the_current_version_takes_the_full_path(change: str, project: Path, isolated_home):
    app = Memoryd()
    slug = app.record("decision", "Use Postgres", "SQLite locked up.", scope_path=project)[0].meta.slug
    app.store.vectors.close()  # no connection of this process keeps index.db's WAL
    app.store.engine.dispose()
    if change == "absent":
        (isolated_home / "index.db").unlink()
    else:
        con = sqlite3.connect(isolated_home / "index.db")
        if change == "pending":  # migration 016 not applied yet
            con.execute("ALTER TABLE promotions DROP COLUMN decided_type")
            con.execute("DELETE FROM schema_migrations WHERE version = 16")
        else:  # written by a later memoryd
            con.execute("INSERT INTO schema_migrations VALUES (999, '999_later.sql', '2026-01-01T00:00:00Z')")
        con.commit()
        con.close()
    out = _run(["search", "postgres"], isolated_home, project, importtime=True)
    assert out.returncode == 0, out.stderr[-2000:]
    assert _heavy(out.stderr), "the full path migrates or builds the index"
    if change != "absent":
        assert slug in out.stdout
    if change == "pending":
        con = sqlite3.connect(isolated_home / "index.db")
        assert con.execute("SELECT 1 FROM schema_migrations WHERE version = 16").fetchone()
        con.close()


def test_the_read_path_closes_the_index_before_exit_its_recalls_checkpointed(project: Path, isolated_home):
    """memoryd.cli.fastread.finish closes the index and freezes the collector: the recall a
    search wrote is in index.db itself, the WAL checkpointed and gone, as when the process
    closes its connections on the way out."""
    app = Memoryd()
    slug = app.record("decision", "Use Postgres", "SQLite locked up.", scope_path=project)[0].meta.slug
    app.store.vectors.close()  # no connection of this process keeps index.db's WAL
    app.store.engine.dispose()
    out = _run(["search", "postgres", "--mode", "keyword"], isolated_home, project, importtime=True)
    assert out.returncode == 0 and slug in out.stdout, out.stderr[-2000:]
    assert _heavy(out.stderr) == []  # the read path served it
    wal = isolated_home / "index.db-wal"
    assert not wal.exists() or wal.stat().st_size == 0
    con = sqlite3.connect(isolated_home / "index.db")
    try:
        assert con.execute("SELECT recall_count FROM memories WHERE slug = ?", (slug,)).fetchone()[0] == 1
    finally:
        con.close()
