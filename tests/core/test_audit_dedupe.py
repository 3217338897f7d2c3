"""The audit log's dedupe: a retry of an event is not logged twice, unless a later event
(an undo) cancels it, which the log itself records (so it holds after an index rebuild)."""

from __future__ import annotations

from pathlib import Path

from memoryd.app import Memoryd


def test_a_retry_is_one_event_a_cancelled_one_is_logged_again(isolated_home: Path):
    log = Memoryd().store.audit
    first = log.append("reject", actor="cli", target_id="1", dedupe="reject:1@t")
    assert log.append("reject", actor="cli", target_id="1", dedupe="reject:1@t").seq == first.seq
    log.append("undo", actor="cli", target_id="1", details={"cancels": ["reject:1@t"]}, dedupe="undo:a")
    again = log.append("reject", actor="cli", target_id="1", dedupe="reject:1@t")
    assert again.seq == first.seq + 2
    assert log.append("reject", actor="cli", target_id="1", dedupe="reject:1@t").seq == again.seq


def test_only_a_list_cancels(isolated_home: Path):
    """A `cancels` that is a string holding the key (text, not a list of keys) cancels
    nothing: `in` would otherwise test a substring."""
    log = Memoryd().store.audit
    first = log.append("reject", actor="cli", target_id="1", dedupe="reject:1@t")
    log.append("note", actor="cli", details={"cancels": "see reject:1@t"}, dedupe="note:1")
    assert log.append("reject", actor="cli", target_id="1", dedupe="reject:1@t").seq == first.seq
