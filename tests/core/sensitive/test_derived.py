"""Derived data follows the scope's rule: nothing derived from a sensitive scope's plaintext
lies on disk in the clear. Today that is the start-up snapshot, the knowledge-graph tables,
the FTS tables and the configured Markdown exports; each holds the canary before marking
(so its absence after means something) and none after."""

from __future__ import annotations

from pathlib import Path

from memoryd.app import Memoryd

from ..governance.sessions import capture
from .support import CANARY, leaks


def test_snapshot_graph_fts_and_exports_are_clean_after_marking(
    cli, secret_service: str, project: Path, tmp_path: Path, isolated_home: Path
):
    ws = tmp_path / "workspace"
    (tmp_path / "config.toml").write_text(f'[[exports.markdown]]\nscope = "{project}"\nout = "{ws}"\n')
    app = Memoryd()
    app.record("decision", f"Bank {CANARY}", f"We bank with {CANARY}, for invoices.", scope_path=project)
    app.record("fact", "Ledger folder", f"Invoices go under {CANARY}/2026.", scope_path=project)
    capture(cli, project, tmp_path, "derived-1", [(f"where is {CANARY}?", f"{CANARY} is the bank.")])
    assert cli("inject", "--cwd", str(project)).returncode == 0  # renders the snapshot
    assert cli("consolidate", "--phase", "exports").returncode == 0

    with app.store.engine.connect() as c:
        entities = [r[0] for r in c.exec_driver_sql("SELECT id FROM entities").fetchall()]
    assert any(CANARY.lower() in e.lower() for e in entities), entities
    before = set(leaks(isolated_home))
    assert {"index.db", "index.db-wal"} & before, before  # the FTS and graph rows (maybe in the WAL yet)
    assert f"scopes/{app.scope(project).hash}/snapshot.md" in before, before
    assert leaks(ws) == ["MEMORY.md"]

    out = cli("mark-sensitive", str(project))
    assert out.returncode == 0, out.stderr
    assert leaks(isolated_home) == []
    assert leaks(ws) == []
    graph = cli("graph", "export", "--format", "json")
    assert graph.returncode == 0 and CANARY.lower() not in graph.stdout.lower(), graph.stderr
