"""The audit chain anchored in the OS keyring (a real Secret Service: gnome-keyring on a
private bus): an adversary who can write every file, and so recompute every plain hash and
rewrite index.db's head, is still caught by `memoryd audit verify` and `memoryd doctor`,
run as the real CLI, each naming the first bad seq. Without a keyring, both say plainly that
the chain is not anchored; with MACs but no key (a restore elsewhere), they say so too."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import keyring
import pytest

from memoryd.app import Memoryd
from memoryd.audit import canonical, chain_hash
from memoryd.audit_anchor import SERVICE, entry_for
from memoryd.paths import Layout

Lines = list[dict[str, Any]]


def _log(home: Path) -> Path:
    return home / "audit" / "audit.jsonl"


def _read(home: Path) -> Lines:
    return [json.loads(x) for x in _log(home).read_text().splitlines()]


def _write(home: Path, records: Lines) -> None:
    _log(home).write_text("".join(canonical(r) + "\n" for r in records))


def _rechain(records: Lines, start: int = 0) -> Lines:
    """What an attacker without the key can do: recompute every plain hash from `start`."""
    prev = records[start - 1]["this_hash"] if start else "sha256:" + "0" * 64
    for r in records[start:]:
        r["prev_hash"] = prev
        r["this_hash"] = chain_hash(prev, r)
        prev = r["this_hash"]
    return records


def _index(home: Path, sql: str, *params: Any) -> None:
    con = sqlite3.connect(home / "index.db")
    try:
        con.execute(sql, params)
        con.commit()
    finally:
        con.close()


def _head_to_last(home: Path) -> None:
    last = _read(home)[-1]
    _index(home, "UPDATE audit_head SET seq = ?, this_hash = ? WHERE id = 1", last["seq"], last["this_hash"])


def _record(cli: Callable[..., Any], project: Path, title: str, **env: str) -> None:
    res = cli("record", "--type", "fact", "--title", title, "--body", "b", cwd=project, env=env)
    assert res.returncode == 0, res.stderr


def _caught(cli: Callable[..., subprocess.CompletedProcess[str]], seq: int, why: str) -> None:
    verify = cli("audit", "verify")
    assert verify.returncode == 1, verify.stdout + verify.stderr
    assert f"broken at seq {seq}: " in verify.stderr and why in verify.stderr, verify.stderr
    assert verify.stderr.count("\n") == 1 and "Traceback" not in verify.stderr
    doctor = cli("doctor")
    assert doctor.returncode == 1, doctor.stdout + doctor.stderr
    assert f"BROKEN at seq {seq}: " in doctor.stdout and why in doctor.stdout, doctor.stdout


@pytest.fixture
def anchored(secret_service: str, project: Path, isolated_home: Path) -> Path:
    """Five records with their knowledge-graph saves (ten events), all MAC'd under a key made
    at the first append in this data dir's keyring entry."""
    app = Memoryd()
    for i in range(5):
        app.record("fact", f"fact {i}", f"body {i}", scope_path=project)
    verdict = app.audit_verify()
    assert verdict.ok and verdict.events == 10 and verdict.anchored_from == 1, verdict
    assert all(r["mac"].startswith("hmac-sha256:") for r in _read(isolated_home))
    value = json.loads(keyring.get_password(SERVICE, entry_for(isolated_home)) or "{}")
    assert (value["from"], value["seq"], value["hash"]) == (1, 10, _read(isolated_home)[-1]["this_hash"])
    return isolated_home


def test_intact_anchored_chain_is_said_to_be_anchored(anchored: Path, cli):
    verify = cli("audit", "verify")
    assert verify.returncode == 0 and "10 events" in verify.stdout
    assert "anchored by this data dir's OS keyring key from seq 1" in verify.stdout
    doctor = cli("doctor")
    assert doctor.returncode == 0 and "intact" in doctor.stdout
    assert "anchored by this data dir's OS keyring key from seq 1" in doctor.stdout
    # the key never reaches the log, the CLI or its JSON
    key = json.loads(keyring.get_password(SERVICE, entry_for(anchored)) or "{}")["key"]
    shown = cli("audit", "verify", "--json").stdout + cli("audit", "--json").stdout + doctor.stdout
    assert key not in shown and key not in _log(anchored).read_text()


@pytest.mark.parametrize("mac", [None, "hmac-sha256:" + "ab" * 32])
def test_forged_append_with_correct_hashes_and_index_head(anchored: Path, cli, mac: str | None):
    records = _read(anchored)
    forged = {**records[-1], "seq": 11, "actor": "cli", "event_type": "grant", "target_id": "x"}
    forged.pop("mac")
    forged = _rechain([*records, forged], start=10)[-1]
    if mac:
        forged["mac"] = mac
    _write(anchored, [*records, forged])
    _head_to_last(anchored)
    _caught(cli, 11, "MAC")


def test_edit_rehash_and_index_update(anchored: Path, cli):
    records = _read(anchored)
    records[2]["actor"] = "mallory"
    _write(anchored, _rechain(records, start=2))  # every later hash recomputed, the MACs kept
    _head_to_last(anchored)
    _caught(cli, 3, "MAC does not match")


def test_edit_rehash_without_macs_and_index_update(anchored: Path, cli):
    records = _read(anchored)
    records[2]["target_id"] = "something-else"
    for r in records[2:]:
        r.pop("mac")
    _write(anchored, _rechain(records, start=2))
    _head_to_last(anchored)
    _caught(cli, 3, "no MAC")


def test_truncate_and_delete_the_index_anchor(anchored: Path, cli):
    _write(anchored, _read(anchored)[:7])
    _index(anchored, "DELETE FROM audit_head")
    _caught(cli, 8, "the tail was removed")


def test_truncate_and_set_the_index_anchor_to_the_last_event_left(anchored: Path, cli):
    _write(anchored, _read(anchored)[:7])
    _head_to_last(anchored)
    _caught(cli, 8, "OS keyring's anchor recorded seq 10")


def test_truncation_is_not_buried_by_later_appends(anchored: Path, cli, project: Path):
    """After the tail went, memoryd's own next writes (seq 8, 9, ... past the old head)
    must not cover it: the append that finds the gap keeps it in the keyring."""
    _write(anchored, _read(anchored)[:7])
    _index(anchored, "DELETE FROM audit_head")
    for i in range(3):
        _record(cli, project, f"later {i}")
    assert len(_read(anchored)) == 13  # past the old head (10)
    _caught(cli, 8, "the tail was removed")


def test_stripped_macs(anchored: Path, cli):
    records = _read(anchored)
    for r in records:
        r.pop("mac")
    _write(anchored, records)  # the plain hashes stay right: the MAC is outside them
    _caught(cli, 1, "no MAC, though the chain is anchored from seq 1")


def test_whole_log_replaced_by_a_fresh_plain_chain(anchored: Path, cli):
    records = _read(anchored)[:4]
    for r in records:
        r.pop("mac")
    _write(anchored, _rechain(records))
    _index(anchored, "DELETE FROM audit_head")
    _caught(cli, 1, "no MAC")


def test_back_dated_event_is_caught_even_with_a_valid_mac(anchored: Path, cli):
    """Only someone holding the key could write this; the order check still names it."""
    from memoryd.audit_anchor import Anchor

    anchor = Anchor.from_json(keyring.get_password(SERVICE, entry_for(anchored)) or "")
    records = _read(anchored)
    records[5]["ts"] = "2001-01-01T00:00:00Z"
    _rechain(records, start=5)
    for r in records:
        r["mac"] = anchor.mac(r["this_hash"])
    _write(anchored, records)
    _head_to_last(anchored)
    head = anchor.advanced(10, records[-1]["this_hash"])
    keyring.set_password(SERVICE, entry_for(anchored), head.to_json())
    _caught(cli, 6, "earlier than the event before it")


# -- no keyring, and MACs without their key ------------------------------------------------
def test_no_keyring_works_as_before_and_says_not_anchored(cli, project: Path, isolated_home: Path):
    _record(cli, project, "t")
    assert not any("mac" in r for r in _read(isolated_home))
    verify = cli("audit", "verify")
    assert verify.returncode == 0 and "audit chain intact: 2 events" in verify.stdout
    assert "not anchored: no OS keyring key exists" in verify.stdout
    doctor = cli("doctor")
    assert doctor.returncode == 0 and "not anchored: no OS keyring key exists" in doctor.stdout
    assert json.loads(cli("audit", "verify", "--json").stdout)["anchored_from"] is None


def test_macs_with_the_key_missing_are_said_plainly(anchored: Path, cli):
    """A restore on another machine: the log carries MACs, this keyring has no key."""
    keyring.delete_password(SERVICE, entry_for(anchored))
    for res in (cli("audit", "verify"), cli("doctor")):
        assert res.returncode == 0 and "Traceback" not in res.stderr, res.stderr
        assert "10 events carry MACs, but this data dir's key is missing from the OS keyring" in res.stdout


def test_macs_with_no_keyring_reachable_are_said_plainly(anchored: Path, cli):
    env = {"PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    for res in (cli("audit", "verify", env=env), cli("doctor", env=env)):
        assert res.returncode == 0 and "Traceback" not in res.stderr, res.stderr
        assert "10 events carry MACs, but no OS keyring can be reached" in res.stdout


# -- memoryd's own rewrites ---------------------------------------------------------------
def test_restore_of_an_older_backup_in_place_re_anchors(anchored: Path, cli, project: Path, tmp_path: Path):
    out = tmp_path / "b.tar.gz"
    assert cli("backup", "--out", str(out)).returncode == 0
    _record(cli, project, "after")
    done = cli("restore", "--force", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    verify = cli("audit", "verify")
    assert verify.returncode == 0 and "from seq 1" in verify.stdout, verify.stdout + verify.stderr
    assert cli("doctor").returncode == 0
    restore = _read(anchored)[-1]
    assert restore["event_type"] == "restore"
    details = json.loads(restore["details"])["audit_anchor"]
    assert details["key"] == "kept" and details["previous_anchor_seq"] > details["restored_end_seq"]


def test_restore_into_another_home_anchors_from_the_restore(anchored: Path, cli, tmp_path: Path):
    out = tmp_path / "b.tar.gz"
    assert cli("backup", "--out", str(out)).returncode == 0
    other = tmp_path / "other-home"
    env = {"MEMORYD_HOME": str(other)}
    assert cli("restore", str(out), env=env).returncode == 0
    verify = cli("audit", "verify", env=env)
    assert verify.returncode == 0, verify.stderr
    restore_seq = _read(other)[-1]["seq"]
    assert f"from seq {restore_seq}; seq 1-{restore_seq - 1}" in verify.stdout, verify.stdout
    assert Memoryd(Layout(other)).audit_verify().anchored_from == restore_seq


def test_marking_sensitive_rewrites_and_re_macs_the_chain(anchored: Path, cli, project: Path):
    before = _read(anchored)
    out = cli("mark-sensitive", str(project))
    assert out.returncode == 0, out.stderr
    after = _read(anchored)
    assert any(r["event_type"] == "audit_redacted" for r in after)
    assert [r["this_hash"] for r in after[:10]] != [r["this_hash"] for r in before]  # rewritten
    verify = cli("audit", "verify")
    assert verify.returncode == 0 and "from seq 1" in verify.stdout, verify.stdout + verify.stderr
    assert cli("doctor").returncode == 0


# -- times never run backwards ---------------------------------------------------------------
@pytest.mark.parametrize("with_keyring", [False, True])
def test_clock_set_back_cannot_back_date_an_event(
    request: pytest.FixtureRequest, cli, project: Path, isolated_home: Path, with_keyring: bool
):
    if with_keyring:
        request.getfixturevalue("secret_service")
    _record(cli, project, "late", MEMORYD_NOW="2030-06-01T12:00:00Z")
    _record(cli, project, "set back", MEMORYD_NOW="2020-01-01T00:00:00Z")
    times = [r["ts"] for r in _read(isolated_home)]
    assert times == sorted(times) and times[-1] == "2030-06-01T12:00:00Z", times
    assert cli("audit", "verify").returncode == 0


def test_a_damaged_keyring_anchor_is_reported_and_writes_go_on(anchored: Path, cli, project: Path):
    keyring.set_password(SERVICE, entry_for(anchored), "not an anchor")
    _record(cli, project, "still writes")
    _caught(cli, 1, "anchor for this data dir is not readable")


def test_concurrent_writers_keep_the_anchor_whole(anchored: Path, project: Path):
    """Each append reads and writes the keyring's head under the audit lock: writers in
    parallel processes neither lose a MAC nor leave the head behind."""
    argv = [sys.executable, "-m", "memoryd.cli.main", "record", "--type", "fact", "--body", "b"]
    procs = [
        subprocess.Popen(
            [*argv, "--title", f"p{i}"],
            cwd=project,
            env=os.environ.copy(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for i in range(4)
    ]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    records = _read(anchored)
    assert len(records) == 18 and all("mac" in r for r in records)
    value = json.loads(keyring.get_password(SERVICE, entry_for(anchored)) or "{}")
    assert (value["seq"], value["hash"], value["broken"]) == (18, records[-1]["this_hash"], None)
    assert Memoryd().audit_verify().ok
