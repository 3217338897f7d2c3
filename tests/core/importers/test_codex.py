"""`memoryd import codex`: Codex rollouts become session memories, once, in their project."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.core.importers.fixtures import CodexFixture, build_codex_home
from tests.core.importers.support import by_key, listed, one_line_error, read_doc, run_import

SOURCE = "codex-rollout"


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project the fixture sessions ran in (their session_meta.cwd)."""
    p = tmp_path_factory.mktemp("codex") / "notes-app"
    p.mkdir()
    return p


@pytest.fixture(scope="module")
def codex(workdir: Path) -> CodexFixture:
    """One CODEX_HOME for the module: imports only read it."""
    return build_codex_home(workdir.parent, project=workdir)


def prompts_in(rollout: Path) -> list[str]:
    """The user prompts Codex logged (event_msg user_message), damaged lines ignored."""
    found = []
    for line in rollout.read_text(encoding="utf-8").splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if not isinstance(rec, dict) or rec.get("type") != "event_msg":
            continue
        if rec["payload"].get("type") == "user_message":
            found.append(rec["payload"]["message"])
    return found


def notify_payload(thread_id: str, project: Path, prompt: str, answer: str) -> str:
    """What Codex's `notify` passes as the last argument after a turn."""
    return json.dumps(
        {
            "type": "agent-turn-complete",
            "thread-id": thread_id,
            "turn-id": "7",
            "cwd": str(project),
            "input-messages": [prompt],
            "last-assistant-message": answer,
        }
    )


def test_import_counts_and_sessions(codex: CodexFixture, workdir: Path, isolated_home: Path) -> None:
    """Every good rollout becomes one codex-rollout session in its cwd's scope, holding its
    first prompt (and not Codex's injected context), with its raw turns searchable."""
    report = run_import("codex", str(codex.root))
    assert report["source"] == SOURCE
    assert report["imported"] == codex.sessions
    assert report["malformed"] == codex.malformed_lines
    assert report["skipped"] == codex.skipped_files
    assert (report["updated"], report["unchanged"]) == (0, 0)
    assert len(report["scopes"]) == 1

    rows = by_key(listed(workdir))
    assert set(rows) == {f"{SOURCE}:{sid}" for sid in codex.session_ids}
    for sid in codex.session_ids:
        row = rows[f"{SOURCE}:{sid}"]
        assert (row["type"], row["source"], row["decay_state"]) == ("session", SOURCE, "alive")
        assert row["scope_hash"] == report["scopes"][0]
        assert row["created_at"][:10] == codex.dates[sid].isoformat()
        prompts = prompts_in(codex.files[sid])
        assert len(prompts) == codex.prompts[sid]
        body = read_doc(isolated_home, row).body
        assert prompts[0] in body
        assert "<environment_context>" not in body and "<user_instructions>" not in body

    pathlib_sid = next(
        s for s in codex.session_ids if any("pathlib" in p for p in prompts_in(codex.files[s]))
    )
    out = run_cli("traces", "pathlib", "--mode", "keyword", "--scope", str(workdir), "--json")
    assert out.returncode == 0, out.stderr
    hits = json.loads(out.stdout)
    assert hits and {h["slug"] for h in hits} == {rows[f"{SOURCE}:{pathlib_sid}"]["slug"]}
    assert any(h["role"] == "user" and "pathlib" in h["text"] for h in hits)


def test_second_run_changes_nothing(codex: CodexFixture, workdir: Path) -> None:
    """A rerun imports nothing, finds every session unchanged and adds no memory."""
    run_import("codex", str(codex.root))
    before = by_key(listed(workdir))
    again = run_import("codex", str(codex.root))
    assert (again["imported"], again["updated"], again["unchanged"]) == (0, 0, codex.sessions)
    assert again["skipped"] == codex.skipped_files
    after = by_key(listed(workdir))
    assert len(after) == len(before) == codex.sessions
    assert {k: r["slug"] for k, r in after.items()} == {k: r["slug"] for k, r in before.items()}


def test_since_imports_from_that_day_on(codex: CodexFixture, workdir: Path) -> None:
    """--since the third session's day imports only the sessions on or after that day."""
    day = codex.dates[codex.session_ids[2]]
    wanted = {sid for sid in codex.session_ids if codex.dates[sid] >= day}
    assert 0 < len(wanted) < codex.sessions
    report = run_import("codex", str(codex.root), "--since", day.isoformat())
    assert report["imported"] == len(wanted)
    assert set(by_key(listed(workdir))) == {f"{SOURCE}:{sid}" for sid in wanted}


def test_codex_home_is_the_default(codex: CodexFixture, workdir: Path) -> None:
    """With no PATH, the import reads $CODEX_HOME."""
    report = run_import("codex", env={"CODEX_HOME": str(codex.root)})
    assert report["imported"] == codex.sessions
    assert len(listed(workdir)) == codex.sessions


def test_missing_dir_and_bad_since_are_usage_errors(codex: CodexFixture, tmp_path: Path) -> None:
    """A CODEX_HOME that does not exist, or a --since that is not a date: exit 2, one line."""
    one_line_error(run_cli("import", "codex", str(tmp_path / "nowhere")), 2, "nowhere")
    one_line_error(run_cli("import", "codex", str(codex.root), "--since", "notadate"), 2, "notadate")
    assert json.loads(run_cli("list", "--all-scopes", "--json").stdout) == []


def test_missing_dir_hint_names_an_existing_option(tmp_path: Path) -> None:
    """The error for a missing CODEX_HOME tells the user what to do with options that exist.

    Bug: importers/codex.py:113 says "pass --path", but `memoryd import` has no --path
    option (PATH is positional), so following the hint fails with "unrecognized arguments"."""
    out = run_cli("import", "codex", str(tmp_path / "nowhere"))
    one_line_error(out, 2)
    assert "--path" not in out.stderr, out.stderr
    follow = run_cli("import", "codex", "--path", str(tmp_path / "nowhere"))
    assert "unrecognized arguments" in follow.stderr


def test_session_captured_live_is_skipped(codex: CodexFixture, workdir: Path, isolated_home: Path) -> None:
    """A session the notify hook captured first is left to that memory: the import skips it
    (saying why) and adds no second memory; the live memory was built from the rollout file
    found by thread id, so its body opens with the session's first prompt."""
    sid = codex.session_ids[2]  # under sessions/, where the worker looks
    prompts = prompts_in(codex.files[sid])
    assert len(prompts) > 1
    env = {"CODEX_HOME": str(codex.root)}
    payload = notify_payload(sid, workdir, prompts[-1], "Done.")
    assert run_cli("capture", "--source=codex", payload, env=env).returncode == 0
    assert run_cli("worker", "--wait", env=env).returncode == 0
    live = listed(workdir)
    assert [(r["source"], r["session_key"]) for r in live] == [("codex", f"codex:{sid}")]
    body = read_doc(isolated_home, live[0]).body
    assert body.startswith(f"## Goal\n{prompts[0]}\n")

    report = run_import("codex", str(codex.root))
    assert report["imported"] == codex.sessions - 1
    assert report["skipped"] == codex.skipped_files + 1
    why = [s for s in report["skipped_items"] if sid in s]
    assert len(why) == 1 and "notify hook" in why[0]
    rows = by_key(listed(workdir))
    assert len(rows) == codex.sessions
    assert f"{SOURCE}:{sid}" not in rows and f"codex:{sid}" in rows


def test_live_capture_after_import_adds_no_duplicate(codex: CodexFixture, workdir: Path) -> None:
    """A session imported first and then resumed in Codex (the notify hook fires for it)
    still has one memory.

    Bug: capture/worker.py:65 looks for an existing memory under its own source only
    (`slug_for_session("codex", sid)`), not the importer's "codex-rollout", so it creates
    a second session memory for the same thread."""
    run_import("codex", str(codex.root))
    sid = codex.session_ids[2]
    env = {"CODEX_HOME": str(codex.root)}
    payload = notify_payload(sid, workdir, "One more thing: update the README.", "Updated.")
    assert run_cli("capture", "--source=codex", payload, env=env).returncode == 0
    assert run_cli("worker", "--wait", env=env).returncode == 0
    rows = listed(workdir)
    same = [r["session_key"] for r in rows if r["session_key"].endswith(f":{sid}")]
    assert len(same) == 1, same
    assert len(rows) == codex.sessions
