"""Sessions made the way users get them: a real Claude Code transcript, the real hook
process, the real spool and worker code."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memoryd import clock
from memoryd.app import Memoryd
from memoryd.testing import claude_exchange, stop_payload, write_jsonl


def capture(
    cli: Callable[..., Any],
    project: Path,
    tmp_path: Path,
    sid: str,
    exchanges: list[tuple[str, str]],
    *,
    drain: bool = True,
) -> str | None:
    """Run the hook (no detached worker) and drain in-process; the session's slug."""
    lines: list[dict[str, Any]] = []
    for prompt, answer in exchanges:
        lines += claude_exchange(prompt, answer, session_id=sid, cwd=str(project))
    transcript = write_jsonl(tmp_path / f"{sid}.jsonl", lines)
    out = cli(
        "capture",
        "--source=claude-code",
        stdin=stop_payload(sid, transcript, project),
        cwd=project,
        env={"MEMORYD_NO_WORKER": "1"},
    )
    assert out.returncode == 0, out.stderr
    if not drain:
        return None
    app = Memoryd()
    report = app.drain_spool(wait=True)
    assert report.captured, report
    slug = app.store.slug_for_session("claude-code", sid)
    assert slug
    return slug


REMEMBER = (
    "Remember: in this repo always use pnpm, never npm. This is important for the lockfile.",
    "Understood: pnpm only; I switched the scripts in package.json to pnpm.",
)
ROUTINE = ("what does this function return", "It returns the parsed config as a dict.")


WEEKS_T0 = datetime(2026, 3, 4, 9, 0, 0, tzinfo=clock.UTC)  # a Wednesday; its week starts 2 March


def weeks_at(days: float) -> str:
    return clock.iso(WEEKS_T0 + timedelta(days=days))


def three_weeks(
    cli: Callable[..., Any], project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two weeks ago: 2 captures, 1 approved promotion, 3 recalls; last week: 1 capture;
    this week: 2 recalls."""
    monkeypatch.setenv("MEMORYD_NOW", weeks_at(-14))
    fact = Memoryd().record(
        "fact",
        "Zanzibar port",
        "The zanzibar service listens on 7788.",
        triggers=["zanzibar"],
        scope_path=project,
    )
    slug = capture(cli, project, tmp_path, "w1-a", [REMEMBER])
    capture(cli, project, tmp_path, "w1-b", [ROUTINE])
    assert cli("analyze-session", slug).returncode == 0
    pending = Memoryd().promotions(status="pending")
    assert len(pending) == 1, pending
    assert cli("promote", str(pending[0]["id"])).returncode == 0
    for _ in range(3):
        Memoryd().get(fact[0].meta.slug)
    monkeypatch.setenv("MEMORYD_NOW", weeks_at(-6))
    capture(cli, project, tmp_path, "w2-a", [("where are the logs", "In /var/log/app.")])
    monkeypatch.setenv("MEMORYD_NOW", weeks_at(0))
    for _ in range(2):
        Memoryd().get(fact[0].meta.slug)
