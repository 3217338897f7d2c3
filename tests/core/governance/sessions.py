"""Sessions made the way users get them: a real Claude Code transcript, the real hook
process, the real spool and worker code."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

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
