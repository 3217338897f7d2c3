"""A question's time words lift the sessions held on the days they name ("last week",
三周前), in every mode and on every read path: the app's store, the CLI's read path, and a
sensitive scope under a grant. A session counts from its turns' times, not from when it
was captured (an import captures months of sessions at once)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memoryd.app import Memoryd
from memoryd.testing import claude_exchange, stop_payload, write_jsonl

from .sensitive.support import PIN, grant_tty, set_pin

NOW = "2026-11-26T10:00:00Z"  # a Thursday
# Two sessions on one subject, matching the question about as well as each other: which
# one comes first is up to the time words, and without them the same one would come first
# for both questions.
OLDER = (
    "2026-11-04T09:00:00.000Z",
    "Make the payment retry loop in billing.py wait between attempts",
    "The retry loop now waits two seconds.",
)
NEWER = (
    "2026-11-18T09:00:00.000Z",
    "Stop the payment retry loop in billing.py after five attempts",
    "Stopped at five; the sixth failure pages on-call.",
)
NEIGHBOURS = (
    ("Code style", "Python code is formatted with ruff; lines stay under 110 characters."),
    ("Release notes", "Every release gets a changelog entry written by hand."),
    ("Deploy target", "The backend runs on Kubernetes; staging and production are separate clusters."),
    ("On-call", "The on-call rota changes on Mondays at ten."),
    ("Database", "We chose PostgreSQL for its JSONB support."),
)
LAST_WEEK = "What did we change in the payment retry loop last week?"
THREE_WEEKS = "What did we change in the payment retry loop three weeks ago?"


@pytest.fixture
def sessions(cli, project: Path, tmp_path: Path, isolated_home: Path) -> dict[str, str]:
    """Both sessions captured now, through the hook and the worker: only their turns say when."""
    for i, (ts, prompt, answer) in enumerate((OLDER, NEWER)):
        _capture(cli, project, tmp_path, i, ts, prompt, answer)
    found = json.loads(cli("list", "--all-scopes", "--json").stdout)
    assert len(found) == 2
    for title, body in NEIGHBOURS:  # so that the question's words are rare enough to count
        assert cli("record", "--type", "fact", "--title", title, "--body", body, cwd=project).returncode == 0
    created = {m["created_at"] for m in found}
    assert all(c.startswith("2026-") and not c.startswith("2026-11-04") for c in created)  # captured now
    by_prompt = {m["title"].split()[0]: m["slug"] for m in found}
    return {"older": by_prompt["Make"], "newer": by_prompt["Stop"]}


def _capture(cli, project: Path, tmp_path: Path, i: int, ts: str, prompt: str, answer: str) -> None:
    sid = f"00000000-0000-4000-8000-00000000000{i}"
    lines = claude_exchange(prompt, answer, session_id=sid, cwd=str(project), ts=ts)
    transcript = write_jsonl(tmp_path / f"{sid}.jsonl", lines)
    payload = stop_payload(sid, transcript, project)
    assert cli("capture", "--source=claude-code", stdin=payload, cwd=project).returncode == 0
    assert cli("worker", "--wait").returncode == 0


def _cli_order(cli, project: Path, query: str, mode: str) -> list[str]:
    out = cli("search", query, "--mode", mode, "--json", cwd=project, env={"MEMORYD_NOW": NOW})
    assert out.returncode == 0, out.stderr
    return [r["slug"] for r in json.loads(out.stdout)]


@pytest.mark.parametrize("mode", ["keyword", "hybrid", "dense"])
def test_time_words_lift_that_weeks_session_through_the_cli(cli, project: Path, sessions, mode: str) -> None:
    assert _cli_order(cli, project, LAST_WEEK, mode)[0] == sessions["newer"]
    assert _cli_order(cli, project, THREE_WEEKS, mode)[0] == sessions["older"]
    if mode == "keyword":  # a Chinese question's words meet the English sessions' by keyword only
        assert _cli_order(cli, project, "上周 payment retry loop 改了什么？", mode)[0] == sessions["newer"]
        assert _cli_order(cli, project, "三周前 payment retry loop 改了什么？", mode)[0] == sessions["older"]


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_time_words_lift_that_weeks_session_in_the_app(
    project: Path, sessions, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMORYD_NOW", NOW)
    app = Memoryd()
    scope = [app.scope(project).hash]

    def first(query: str) -> str:
        return app.search(query, scopes=scope, mode=mode, count_recall=False)[0].slug

    assert first(LAST_WEEK) == sessions["newer"]
    assert first(THREE_WEEKS) == sessions["older"]


def test_time_words_lift_a_sealed_session_by_its_turns(
    cli, secret_service: str, project: Path, sessions, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sealed session's turns are not in the index: their times come from its file."""
    set_pin(cli)
    assert cli("mark-sensitive", str(project), stdin=PIN + "\n").returncode == 0
    assert cli("reindex").returncode == 0
    monkeypatch.setenv("MEMORYD_NOW", NOW)
    for mode in ("keyword", "hybrid"):  # marking re-files the memories: known by title here
        grant_tty(project)
        found = Memoryd().search(LAST_WEEK, scopes=None, mode=mode, count_recall=False)
        assert [r.title.split()[0] for r in found[:1]] == ["Stop"], mode
        grant_tty(project)
        found = Memoryd().search(THREE_WEEKS, scopes=None, mode=mode, count_recall=False)
        assert [r.title.split()[0] for r in found[:1]] == ["Make"], mode


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_time_words_lift_that_weeks_turns(cli, project: Path, tmp_path: Path, sessions, mode: str) -> None:
    """Level 2 (raw turns, `memoryd traces`, MCP `mem_traces`) reads them too. Its lifts
    are added to scores spread over [0, 1] by the candidates, so a few more turns that
    barely match (as any store has) keep two turns from being the whole range."""
    for i, words in enumerate(("change of plans", "what changed", "change log")):
        _capture(
            cli, project, tmp_path, 2 + i, "2026-10-01T09:00:00.000Z", f"A {words} for the office", "Noted."
        )

    def first(query: str) -> str:
        out = cli("traces", query, "--mode", mode, "--json", cwd=project, env={"MEMORYD_NOW": NOW})
        assert out.returncode == 0, out.stderr
        print(
            query, [(r["slug"][-8:], r.get("ts"), r["score"], r["text"][:30]) for r in json.loads(out.stdout)]
        )
        return str(json.loads(out.stdout)[0]["slug"])

    assert first(LAST_WEEK) == sessions["newer"]
    assert first(THREE_WEEKS) == sessions["older"]


def test_forged_turn_times_and_an_off_calendar_clock_break_no_search(
    cli, project: Path, tmp_path: Path, sessions
) -> None:
    """A session whose turns say 0001-01-01T00:00:00+01:00 (.NET's DateTime.MinValue as a
    local time) made every search with a time word fail, on every read path; so did a clock
    pinned to the calendar's last second, read east of UTC, on any search."""
    _capture(cli, project, tmp_path, 5, "0001-01-01T00:00:00+01:00", "Payment retry loop notes", "Noted.")
    for verb, mode in (("search", "keyword"), ("search", "hybrid"), ("traces", "hybrid")):
        out = cli(verb, LAST_WEEK, "--mode", mode, "--json", cwd=project, env={"MEMORYD_NOW": NOW})
        assert out.returncode == 0, (verb, mode, out.stderr)
        assert json.loads(out.stdout), (verb, mode)
    edge = {"MEMORYD_NOW": "9999-12-31T23:59:59Z", "TZ": "Asia/Tokyo"}
    for query in ("payment retry loop", LAST_WEEK):
        out = cli("search", query, "--json", cwd=project, env=edge)
        assert out.returncode == 0, (query, out.stderr)
