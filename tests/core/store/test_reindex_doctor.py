"""Files are the truth: a lost index is rebuilt, drift is reported, damage is skipped."""

from __future__ import annotations

import json
from pathlib import Path

from memoryd.app import Memoryd
from memoryd.testing import claude_exchange, stop_payload, write_jsonl


def _seed(cli, project: Path, tmp_path: Path) -> None:
    for title, body in [
        ("Use Postgres for jobs", "SQLite locked under load; 数据库 迁移 done."),
        ("前端性能预算", "首屏 200KB 以内, 性能 first."),
        ("Never force-push main", "It broke the release branch twice."),
    ]:
        assert (
            cli(
                "record",
                "--type",
                "decision",
                "--title",
                title,
                "--body",
                body,
                "--scope",
                str(project),
                "--trigger",
                "ops",
            ).returncode
            == 0
        )
    t = write_jsonl(
        tmp_path / "t.jsonl",
        claude_exchange(
            "Why is the cron job slow?", "Its index was missing.", session_id="r1", cwd=str(project)
        ),
    )
    assert cli("capture", "--source=claude-code", stdin=stop_payload("r1", t, project)).returncode == 0
    assert cli("worker", "--wait").returncode == 0


def _results(cli, project: Path) -> dict[str, list[str]]:
    out = {}
    for q in ("postgres", "性能", "数据库迁移", "index missing", "force push"):
        res = cli("search", q, "--scope", str(project), "--json")
        out[q] = [r["slug"] for r in json.loads(res.stdout)]
    out["traces"] = [h["slug"] for h in json.loads(cli("traces", "cron", "--all-scopes", "--json").stdout)]
    return out


def test_reindex_on_deleted_index_restores_search(cli, project: Path, tmp_path: Path, isolated_home: Path):
    _seed(cli, project, tmp_path)
    before = _results(cli, project)
    assert all(before.values()), before
    for f in isolated_home.glob("index.db*"):
        f.unlink()
    res = cli("reindex", "--json")
    assert res.returncode == 0
    rep = json.loads(res.stdout)
    assert rep["indexed"] == 4 and rep["by_type"] == {"decision": 3, "session": 1} and rep["turns"] >= 2
    assert _results(cli, project) == before
    doctor = cli("doctor")
    # a fresh index has no audit head yet, so the chain check is the log's own
    assert doctor.returncode == 0, doctor.stdout


def test_doctor_reports_drift_and_damage(cli, project: Path, tmp_path: Path, isolated_home: Path):
    _seed(cli, project, tmp_path)
    assert cli("doctor").returncode == 0
    files = sorted((isolated_home / "scopes").rglob("decisions/*.md"))
    files[0].unlink()  # row without file
    broken = files[1].parent / "2026-01-01-broken-0000.md"
    broken.write_bytes(b"---\ntitle: [unclosed\n---\nbody")  # damaged file
    (files[1].parent / "2026-01-01-latin1-0000.md").write_bytes(b"---\ntitle: caf\xe9\n---\n")
    stray = files[2].parent / "2026-01-01-stray-0001.md"
    stray.write_text(files[2].read_text().replace(files[2].stem, "2026-01-01-stray-0001"))  # file without row
    res = cli("doctor", "--json")
    assert res.returncode == 1
    rep = json.loads(res.stdout)
    assert len(rep["rows_without_files"]) == 1 and rep["files_without_rows"] == [
        stray.relative_to(isolated_home).as_posix()
    ]
    assert len(rep["corrupt_files"]) == 2 and any("not UTF-8" in c for c in rep["corrupt_files"])
    assert json.loads(cli("search", "force push", "--all-scopes", "--json").stdout)  # search still works
    heal = cli("reindex")
    assert heal.returncode == 0 and heal.stderr.count("skipped") == 2
    rep = json.loads(cli("doctor", "--json").stdout)
    assert rep["rows_without_files"] == [] and rep["files_without_rows"] == []


def test_forget_archives_file_and_drops_rows(cli, project: Path, isolated_home: Path):
    app = Memoryd()
    doc, _ = app.record("fact", "Staging DB lives on host db-2", "db-2 only", scope_path=project)
    assert cli("forget", doc.meta.slug).returncode == 0
    archived = list((isolated_home / "scopes").rglob(f"forgotten/{doc.meta.slug}.md"))
    assert archived and "decay_state: forgotten" in archived[0].read_text()
    assert not list((isolated_home / "scopes").rglob(f"facts/{doc.meta.slug}.md"))
    for extra in ((), ("--include-forgotten",)):
        found = cli("search", "staging host", "--scope", str(project), *extra, "--json").stdout
        assert json.loads(found) == []
    assert cli("get", doc.meta.slug).returncode == 1
    # record's knowledge-graph step saves the memory once more (no entity in it: an empty mapping).
    events = [(e["event_type"], e["target_id"]) for e in json.loads(cli("audit", "--json").stdout)]
    assert events == [("record", doc.meta.slug), ("entities", doc.meta.slug), ("forget", doc.meta.slug)]
    # The archive stays out of the index: reindex does not bring it back, doctor is clean.
    assert cli("reindex").returncode == 0
    assert json.loads(cli("search", "staging host", "--scope", str(project), "--json").stdout) == []
    assert cli("doctor").returncode == 0


def test_reindex_restores_chain_head_and_last_runs(cli, project: Path, isolated_home: Path):
    app = Memoryd()
    for i in range(3):
        app.record("fact", f"f{i}", "b", scope_path=project)
    for f in isolated_home.glob("index.db*"):
        f.unlink()
    assert cli("reindex").returncode == 0
    stats = json.loads(cli("stats", "--json").stdout)
    assert set(stats["last_runs"]) == {"record", "entities", "reindex"}  # each record's graph step
    log = isolated_home / "audit" / "audit.jsonl"
    log.write_bytes(b"".join(log.read_bytes().splitlines(keepends=True)[:2]))  # cut the tail again
    res = cli("audit", "verify")
    assert res.returncode == 1 and "seq 3" in res.stderr
