"""Every kind of tampering with the audit log is caught, naming the first bad seq."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from memoryd.app import Memoryd


def _log(home: Path) -> Path:
    return home / "audit" / "audit.jsonl"


@pytest.fixture
def five_events(project: Path, isolated_home: Path) -> Path:
    """Five records; each is followed by its knowledge-graph save (`entities`): ten events."""
    app = Memoryd()
    for i in range(5):
        app.record("fact", f"fact {i}", f"body {i}", scope_path=project)
    assert app.audit_verify().ok
    return _log(isolated_home)


def _edit(lines: list[bytes]) -> list[bytes]:
    rec = json.loads(lines[2])
    rec["actor"] = "mallory"
    return [*lines[:2], json.dumps(rec).encode() + b"\n", *lines[3:]]


def _recompute_edit(lines: list[bytes]) -> list[bytes]:
    """An editor who also recomputes this line's hash still breaks the next link."""
    from memoryd.audit import canonical, chain_hash

    rec = json.loads(lines[2])
    rec["target_id"] = "something-else"
    rec["this_hash"] = chain_hash(rec["prev_hash"], rec)
    return [*lines[:2], (canonical(rec) + "\n").encode(), *lines[3:]]


TAMPERS: dict[str, tuple[Callable[[list[bytes]], list[bytes]], int]] = {
    "edit": (_edit, 3),
    "edit with rehash": (_recompute_edit, 4),
    "delete": (lambda ls: ls[:1] + ls[2:], 2),
    "insert": (lambda ls: [*ls[:2], ls[1], *ls[2:]], 3),
    "reorder": (lambda ls: [ls[0], ls[2], ls[1], *ls[3:]], 2),
    "truncate tail": (lambda ls: ls[:3], 4),
    "cut last line short": (lambda ls: [*ls[:-1], ls[-1][:40]], 10),
}


@pytest.mark.parametrize("kind", list(TAMPERS))
def test_tampering_is_detected(kind: str, five_events: Path, cli):
    tamper, bad_seq = TAMPERS[kind]
    lines = five_events.read_bytes().splitlines(keepends=True)
    five_events.write_bytes(b"".join(tamper(lines)))
    verdict = Memoryd().audit_verify()
    assert not verdict.ok
    assert verdict.first_bad_seq == bad_seq, verdict.reason
    res = cli("audit", "verify")
    assert res.returncode == 1
    assert f"seq {bad_seq}" in res.stderr and res.stderr.count("\n") == 1


def test_intact_log_verifies_and_lists(five_events: Path, cli):
    res = cli("audit", "verify")
    assert res.returncode == 0 and "10 events" in res.stdout
    events = json.loads(cli("audit", "--json", "--event-type", "record").stdout)
    assert [e["seq"] for e in events] == [1, 3, 5, 7, 9]
    every = json.loads(cli("audit", "--json").stdout)
    assert [(e["seq"], e["event_type"]) for e in every] == [
        (seq, "record" if seq % 2 else "entities") for seq in range(1, 11)
    ]
    for record, entities in zip(every[::2], every[1::2], strict=True):
        assert entities["target_id"] == record["target_id"]
    assert [e["target_id"] for e in events] == [e["target_id"] for e in every[::2]]
    for before, after in itertools.pairwise(every):
        assert after["prev_hash"] == before["this_hash"]
    assert json.loads(cli("audit", "--json", "--since", "2999-01-01T00:00:00Z").stdout) == []
    assert cli("audit", "--since", "yesterday").returncode == 2


def test_crash_fragment_is_dropped_before_next_append(five_events: Path, project: Path):
    with open(five_events, "ab") as fh:
        fh.write(b'{"seq": 11, "ts": "2026')  # an append a crash cut short, never acknowledged
    Memoryd().record("fact", "after crash", "x", scope_path=project)
    verdict = Memoryd().audit_verify()
    assert verdict.ok and verdict.events == 12  # the record and its `entities` save


def test_append_after_a_line_longer_than_any_tail_window(five_events: Path, project: Path, cli):
    """A valid event longer than the 256 KiB the tail reader once looked at: the next
    write must still find it whole (it read half a line and called it damaged)."""
    from memoryd.app import Memoryd

    app = Memoryd()
    app.store.audit.append("note", actor="test", details={"blob": "x" * (300 * 1024)})
    app.record("fact", "after a long line", "x", scope_path=project)
    out = cli("record", "--type", "fact", "--title", "via cli", "--scope", str(project), stdin="y")
    assert out.returncode == 0, out.stderr
    assert Memoryd().audit_verify().ok


def test_crash_fragment_after_a_long_line_is_dropped(five_events: Path, project: Path):
    from memoryd.app import Memoryd

    Memoryd().store.audit.append("note", actor="test", details={"blob": "y" * (300 * 1024)})
    with open(five_events, "ab") as fh:
        fh.write(b'{"seq": 12, "ts": "2026')
    Memoryd().record("fact", "after crash", "x", scope_path=project)
    assert Memoryd().audit_verify().ok


def test_rename_tokens_renames_slugs_inside_strings_only_whole():
    from memoryd.audit import rename_tokens

    rename = {"deploy-day-ab12": "m-1", "v1.2-notes": "m-2", "a-b": "m-3"}
    assert rename_tokens("merge:deploy-day-ab12:a-b:ff00", rename) == "merge:m-1:m-3:ff00"
    assert rename_tokens("scopes/h/facts/v1.2-notes.md", rename) == "scopes/h/facts/m-2.md"
    assert rename_tokens("scopes/h/facts/deploy-day-ab12.md.enc", rename) == "scopes/h/facts/m-1.md.enc"
    assert rename_tokens("a-b-c x-a-b a-b", rename) == "a-b-c x-a-b m-3"
