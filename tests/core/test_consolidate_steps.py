"""A consolidation's progress as values (memoryd.consolidate.Step), beside its English
lines: the tray words these in the user's language (issue 22 item 5)."""

from __future__ import annotations

from pathlib import Path

from memoryd import consolidate
from memoryd.app import Memoryd
from memoryd.capture import spool


def test_each_phase_is_told_as_it_starts_and_ends_with_its_counts(isolated_home: Path, monkeypatch):
    monkeypatch.setenv("MEMORYD_NOW", "2026-11-22T08:00:00Z")
    app = Memoryd()
    spool.put(
        app.layout.spool,
        "claude-code",
        {"session_id": "abc", "cwd": ".", "last_assistant_message": "Done."},
        "2026-11-22T08:00:00Z",
    )
    steps: list[consolidate.Step] = []
    lines: list[str] = []
    report = app.consolidate(force=True, progress=lines.append, steps=steps.append)

    told = [(s.status, s.phase) for s in steps]
    expected = [(status, name) for name in consolidate.PHASES for status in ("running", "done")]
    assert told == [*expected, ("finished", "")]
    capture = steps[1]
    assert capture.counts == {"captured": 1, "tokens": 0} and capture.seconds >= 0
    assert steps[3].counts["analysed"] == 1 and set(steps[3].counts) == {"analysed", "queued", "tokens"}
    assert steps[-1].counts == report.summary()
    # the English lines are still there for the CLI and the log, one per phase and the summary
    assert len(lines) == len(consolidate.PHASES) + 1 and lines[0].startswith("capture: 1 captured")
