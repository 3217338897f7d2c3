"""An agent trying to grant itself access (issue 18, finding 3), each attempt refused with
the refusal in the audit log: a pseudo-terminal and `y`, a wrong PIN, a hand-written grant
file, an edited one, the test clock set back inside an expired grant; a PIN set behind
the person's back. The honest paths (the PIN piped or typed, the tray's yes) still work."""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import keyring
import pytest

from memoryd import clock
from memoryd.app import Memoryd
from memoryd.scope import resolve
from memoryd.sensitive import broker, grants

from .support import (
    CANARY,
    PIN,
    audit_events,
    grant_pin,
    grant_tty,
    one_line_error,
    record,
    set_pin,
    tty_cli,
)
from .test_broker import TrayStandIn


@pytest.fixture(autouse=True)
def not_asking_afterwards() -> Iterator[None]:
    yield
    broker.uninstall()


@pytest.fixture
def tray() -> Iterator[Callable[..., TrayStandIn]]:
    """test_broker's stand-in for the tray's socket, answering what `decide` returns."""
    started: list[TrayStandIn] = []

    def start(decide: Callable[[dict[str, Any]], bytes | None]) -> TrayStandIn:
        started.append(TrayStandIn(Memoryd().grant_socket(), decide))
        return started[-1]

    yield start
    for server in started:
        server.stop()
        assert not server.errors, server.errors


@pytest.fixture
def slug(cli, secret_service: str, project: Path) -> str:
    """A random-key scope with a grant PIN chosen before it was marked, as a person would."""
    record(cli, project, "Payroll", f"The band is {CANARY}.")
    set_pin(cli)
    out = cli("mark-sensitive", str(project), stdin=PIN + "\n")
    assert out.returncode == 0, out.stderr
    return json.loads(cli("list", "--scope", str(project), "--json").stdout)[0]["slug"]


def _denied(cli, slug: str, env: dict[str, str] | None = None, why: str = "grant") -> None:
    out = cli("get", slug, env=env)
    one_line_error(out, 3, why)
    assert CANARY not in out.stdout + out.stderr


def _why(cli) -> list[str]:
    return [json.loads(e["details"]).get("why", "") for e in audit_events(cli, "access_denied")]


def _grant_file(home: Path, project: Path) -> Path:
    return home / "grants" / f"{resolve(project).hash}.json"


def _past_grant(project: Path, duration: str, seconds_ago: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """A genuine grant the person gave `seconds_ago` (the real clock moved back in-process)."""
    then = clock.wall() - timedelta(seconds=seconds_ago)
    with monkeypatch.context() as m:
        m.setattr(clock, "wall", lambda: then)
        Memoryd().grant(project, duration=duration, pin=PIN)


def test_pty_and_y_grants_nothing(cli, slug: str, project: Path, isolated_home: Path):
    code, out, term = tty_cli("grant", str(project), "--duration", "session", answer="y")
    assert code == 3 and "wrong grant PIN" in term and "Traceback" not in term, (out, term)
    # the issue's own recipe: `script` makes the terminal, `y` is piped into it
    memoryd = f"{shlex.quote(sys.executable)} -m memoryd.cli.main grant {shlex.quote(str(project))}"
    scripted = cli_shell(f"(sleep 1; echo y) | script -qec '{memoryd} --duration session' /dev/null")
    assert "wrong grant PIN: not granted" in scripted and "granted session" not in scripted, scripted
    _denied(cli, slug)
    assert _why(cli).count("wrong grant PIN") == 2
    assert not _grant_file(isolated_home, project).exists()
    assert audit_events(cli, "grant") == []


def cli_shell(command: str) -> str:
    import subprocess

    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=60)
    return done.stdout + done.stderr


def test_pty_with_a_wrong_pin_is_refused_and_audited_without_the_pin(
    cli, slug: str, project: Path, isolated_home: Path
):
    wrong = "plum-000000"
    code, out, term = tty_cli("grant", str(project), "--duration", "once", answer=wrong)
    assert code == 3 and "wrong grant PIN" in term, (out, term)
    one_line_error(cli("grant", str(project), "--duration", "once", stdin=wrong + "\n"), 3, "wrong grant PIN")
    one_line_error(cli("grant", str(project), "--duration", "once"), 3, "wrong grant PIN")  # no PIN at all
    _denied(cli, slug)
    assert _why(cli).count("wrong grant PIN") == 3
    for path in isolated_home.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert wrong.encode() not in data and PIN.encode() not in data, path
    stored = json.loads(_pin_record())
    assert stored["kdf"]["n"] >= 2**15 and stored["kdf"]["r"] == 8 and stored["kdf"]["p"] == 1
    assert PIN not in json.dumps(stored)


def _pin_record() -> str:
    from memoryd import crypto
    from memoryd.paths import data_home
    from memoryd.sensitive import pin

    return crypto.unb64(keyring.get_password("memoryd", pin.entry(data_home()))).decode()


def test_a_hand_written_grant_file_grants_nothing(cli, slug: str, project: Path, isolated_home: Path):
    h = resolve(project).hash
    forged = {
        "grants": [
            {
                "scope_hash": h,
                "duration": "task",
                "granted_at": "2026-01-01T00:00:00Z",
                "expires_at": None,
                "task": "x",
            }
        ]
    }
    path = _grant_file(isolated_home, project)
    path.parent.mkdir(mode=0o700, exist_ok=True)
    path.write_text(json.dumps(forged))
    _denied(cli, slug)
    assert grants.FORGED in _why(cli)
    assert not path.exists()  # the failing record was removed
    forged["grants"][0]["mac"] = "0" * 64  # a MAC field does not help without the key
    path.write_text(json.dumps(forged))
    assert cli("grants", "--json").stdout.strip() == "[]"
    _denied(cli, slug)
    assert _why(cli).count(grants.FORGED) == 2
    forged["grants"][0]["mac"] = None  # nor a null one: refused in one line, never a traceback
    path.write_text(json.dumps(forged))
    _denied(cli, slug)
    assert _why(cli).count(grants.FORGED) == 3


@pytest.mark.parametrize(
    "edit",
    [
        {"expires_at": "2099-01-01T00:00:00Z"},  # pushed out
        {"duration": "task", "task": "x", "expires_at": None},  # `once` made `task`
    ],
)
def test_an_edited_grant_file_grants_nothing(
    cli, slug: str, project: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch, edit: dict
):
    _past_grant(project, "once", 100, monkeypatch)  # genuine, and expired
    path = _grant_file(isolated_home, project)
    data = json.loads(path.read_text())
    data["grants"][0].update(edit)
    path.write_text(json.dumps(data))
    _denied(cli, slug)
    assert grants.FORGED in _why(cli)
    assert audit_events(cli, "sensitive_read") == []


def test_the_test_clock_set_back_inside_an_expired_grant_grants_nothing(
    cli, slug: str, project: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
):
    _past_grant(project, "once", 100, monkeypatch)
    (record_,) = json.loads(_grant_file(isolated_home, project).read_text())["grants"]
    inside = clock.iso(clock.parse_ts(record_["granted_at"]) + timedelta(seconds=10))
    _denied(cli, slug, env={"MEMORYD_NOW": inside})
    assert audit_events(cli, "sensitive_read") == [] and len(_why(cli)) == 1
    assert not _grant_file(isolated_home, project).exists()  # the expired grant was pruned
    # nor does a grant made under a pinned clock live by it
    out = grant_pin(cli, project, "once", env={"MEMORYD_NOW": "2020-01-01T00:00:00Z"})
    assert "2020" not in out.stdout
    assert cli("get", slug, env={"MEMORYD_NOW": "2020-01-01T00:01:00Z"}).returncode == 0


def test_the_honest_paths_still_grant(cli, slug: str, project: Path):
    grant_tty(project, "once")
    shown = cli("get", slug)
    assert shown.returncode == 0 and CANARY in shown.stdout
    assert cli("revoke", str(project)).returncode == 0
    _denied(cli, slug)
    grant_pin(cli, project, "task", "--task", "audit")
    assert cli("get", slug).returncode == 0
    (event,) = [e for e in audit_events(cli, "grant") if json.loads(e["details"])["duration"] == "task"]
    assert json.loads(event["details"])["by"] == "pin"


def test_first_pin_after_random_scopes_exist_needs_the_tray(
    cli, secret_service: str, project: Path, tray, isolated_home: Path
):
    record(cli, project, "Payroll", f"The band is {CANARY}.")
    out = cli("mark-sensitive", str(project))  # nothing on stdin: marked, no PIN chosen
    assert out.returncode == 0 and "no grant PIN set" in out.stderr, out.stderr
    one_line_error(cli("grant", str(project), "--duration", "once", stdin="123456\n"), 3, "no grant PIN")
    one_line_error(cli("grant-pin", "set", stdin="agents-pin-1\n"), 3, "tray")
    assert "first grant PIN while random-key scopes exist needs the tray" in _why(cli)
    # the scope's settings hidden for the moment (a review, 2026-11-28): still the tray's
    settings = isolated_home / "scopes" / resolve(project).hash / "sensitive.json"
    hidden = settings.rename(isolated_home / "hidden.json")
    one_line_error(cli("grant-pin", "set", stdin="agents-pin-1\n"), 3, "tray")
    hidden.rename(settings)
    one_line_error(
        cli("grant", str(project), "--duration", "once", stdin="agents-pin-1\n"), 3, "no grant PIN"
    )

    server = tray(lambda req: Memoryd().grant_answer(False, error="the user denied it"))
    one_line_error(cli("grant-pin", "set", stdin="agents-pin-1\n"), 3, "denied")
    assert server.requests[-1]["op"] == "pin"
    server.stop()
    tray(lambda req: Memoryd().grant_answer(True))
    out = cli("grant-pin", "set", stdin=PIN + "\n")
    assert out.returncode == 0, out.stderr
    (event,) = audit_events(cli, "grant_pin_set")
    assert json.loads(event["details"])["by"] == "tray"


def test_changing_the_pin_needs_the_old_one(cli, slug: str, project: Path):
    one_line_error(cli("grant-pin", "set", stdin="another-pin\n"), 2, "change")
    one_line_error(cli("grant-pin", "change", stdin="guess-1234\nagents-pin\n"), 3, "wrong grant PIN")
    one_line_error(
        cli("grant", str(project), "--duration", "once", stdin="agents-pin\n"), 3, "wrong grant PIN"
    )
    out = cli("grant-pin", "change", stdin=f"{PIN}\nnew-pin-2468\n")
    assert out.returncode == 0 and "changed" in out.stdout, out.stderr
    one_line_error(cli("grant", str(project), "--duration", "once", stdin=PIN + "\n"), 3, "wrong grant PIN")
    assert cli("grant", str(project), "--duration", "once", stdin="new-pin-2468\n").returncode == 0


def test_a_pin_set_before_the_person_marks_is_noticed(cli, secret_service: str, project: Path):
    set_pin(cli, "agents-pin-1")  # no random-key scope yet: anyone could set the first PIN
    record(cli, project, "Payroll", f"The band is {CANARY}.")
    one_line_error(cli("mark-sensitive", str(project), stdin=PIN + "\n"), 3, "wrong grant PIN")
    assert "wrong grant PIN" in _why(cli)


def test_the_tray_decides_when_it_runs(cli, slug: str, project: Path, tray):
    def allow(req):
        Memoryd().grant(req["scope_hash"], duration="once", in_tray=True, actor="tray")
        return Memoryd().grant_answer(True, duration="once")

    server = tray(lambda req: Memoryd().grant_answer(False, error="the user denied access"))
    one_line_error(cli("grant", str(project), "--duration", "session", stdin=PIN + "\n"), 3, "denied")
    _denied(cli, slug, why="denied")
    server.stop()
    tray(allow)
    out = cli("grant", str(project), "--duration", "session")  # no PIN: the person said yes in the tray
    assert out.returncode == 0 and "granted once" in out.stdout, out.stderr
    assert cli("get", slug).returncode == 0


def test_inject_with_a_hand_written_grant_file_prints_the_note_and_exits_0(
    cli, slug: str, project: Path, isolated_home: Path
):
    """The hook's fast path sees a grant file; the gate refuses its record: the hook still
    exits 0 with the content-free note, and the refusal is audited."""
    path = _grant_file(isolated_home, project)
    path.parent.mkdir(mode=0o700, exist_ok=True)
    record_ = {"scope_hash": resolve(project).hash, "duration": "task", "granted_at": clock.iso(clock.wall())}
    path.write_text(json.dumps({"grants": [{**record_, "expires_at": None, "task": "x", "mac": "0" * 64}]}))
    out = cli("inject", "--cwd", str(project))
    assert out.returncode == 0 and "memoryd grant" in out.stdout and CANARY not in out.stdout, out
    assert grants.FORGED in _why(cli)


def test_a_pin_chosen_for_another_data_dir_unlocks_nothing_here(
    cli, secret_service: str, project: Path, tmp_path: Path, isolated_home: Path
):
    """An outside test found the PIN was one keyring entry for the whole machine: an agent
    chose it for an empty data dir of its own (no scope there, so no tray asked) and then
    granted itself this data dir's scope. The PIN is per data dir now."""
    record(cli, project, "Payroll", f"The band is {CANARY}.")
    out = cli("mark-sensitive", str(project), stdin="\n")  # the person chose no PIN (yet)
    assert out.returncode == 0, out.stderr
    slug = json.loads(cli("list", "--scope", str(project), "--json").stdout)[0]["slug"]
    elsewhere = {"MEMORYD_HOME": str(tmp_path / "agents-empty-home")}
    out = cli("grant-pin", "set", stdin="888888\n", env=elsewhere)
    assert out.returncode == 0, out.stderr  # allowed there: that data dir has nothing to guard
    one_line_error(
        cli("grant", str(project), "--duration", "session", stdin="888888\n"), 3, "no grant PIN is set"
    )
    _denied(cli, slug)
    assert "no grant PIN is set" in _why(cli)
    # and setting this data dir's first PIN still needs the person (the tray), as before
    one_line_error(cli("grant-pin", "set", stdin="888888\n"), 3, "tray")


def test_guessing_the_pin_locks_it(cli, slug: str, project: Path, isolated_home: Path):
    """After 5 wrong PINs in a row none is checked for a while, the right one included: a
    6-digit PIN cannot be tried through. The count lives in the keyring, not in a file."""
    for n in range(5):
        one_line_error(
            cli("grant", str(project), "--duration", "once", stdin=f"guess-{n:06}\n"), 3, "wrong grant PIN"
        )
    out = cli("grant", str(project), "--duration", "once", stdin=PIN + "\n")
    one_line_error(out, 3, "too many wrong grant PINs")
    _denied(cli, slug)
    assert _why(cli).count("wrong grant PIN") == 5
    assert "grant PIN locked after repeated wrong tries" in _why(cli)
    assert json.loads(_pin_record())["failures"] == 5
    assert not (isolated_home / "grants").exists() or not list((isolated_home / "grants").iterdir())


@pytest.mark.parametrize("duration", ["session", "task"])
def test_a_saved_grant_put_back_after_revoke_grants_nothing(
    cli, slug: str, project: Path, isolated_home: Path, duration: str
):
    """An outside test saved a genuine grant file while it lived and copied it back after
    `revoke`: it still granted until its expiry (for ever, for a task). Every revoke now
    replaces the scope's epoch in the keyring, so records signed before it fail their check,
    while the grants a revoke leaves are signed anew and keep working."""
    task = ("--task", "audit") if duration == "task" else ()
    grant_pin(cli, project, duration, *task)
    if duration == "task":
        grant_pin(cli, project, "task", "--task", "payroll")  # another task's grant, left alone
    path = _grant_file(isolated_home, project)
    saved = path.read_bytes()
    assert cli("get", slug).returncode == 0
    assert cli("revoke", str(project), *task).returncode == 0
    if duration == "task":
        assert cli("get", slug).returncode == 0  # the payroll grant still stands, re-signed
        assert cli("revoke", str(project), "--task", "payroll").returncode == 0
    path.write_bytes(saved)
    _denied(cli, slug)
    assert grants.FORGED in _why(cli)


def test_a_data_dir_of_the_agents_own_grants_nothing(
    cli, slug: str, project: Path, tmp_path: Path, isolated_home: Path
):
    """An outside test (2026-11-28): the scope's key, grant epoch and grant-key entries
    are named by the scope hash alone, which any data dir computes from the folder. An
    agent set a PIN in an empty data dir of its own, copied sensitive.json there, granted
    itself a task grant with that PIN (signed with the real key), then (a) copied the
    grant file back into the person's data dir, or (b) copied the sealed files next to
    it and read them there. A scope now belongs to the data dir that marked it (its
    keyring id in `scope-owner:<hash>`); every other data dir is refused its key."""
    h = resolve(project).hash
    evil = tmp_path / "agents-home"
    env = {"MEMORYD_HOME": str(evil)}
    assert cli("grant-pin", "set", stdin="888888\n", env=env).returncode == 0  # nothing to guard there
    (evil / "scopes" / h).mkdir(parents=True)
    (evil / "scopes" / h / "sensitive.json").write_bytes(
        (isolated_home / "scopes" / h / "sensitive.json").read_bytes()
    )
    out = cli("grant", str(project), "--duration", "task", "--task", "pwn", stdin="888888\n", env=env)
    one_line_error(out, 1, "belongs to another memoryd data dir")
    assert not (evil / "grants" / f"{h}.json").exists()

    # (b): the sealed files copied next to the copied settings open nowhere but home
    for enc in isolated_home.glob(f"scopes/{h}/*/*.md.enc"):
        (evil / enc.relative_to(isolated_home)).parent.mkdir(parents=True, exist_ok=True)
        (evil / enc.relative_to(isolated_home)).write_bytes(enc.read_bytes())
    assert cli("reindex", env=env).returncode in (0, 1)
    for args in (("get", slug), ("search", CANARY, "--all-scopes"), ("inject", "--scope", str(project))):
        out = cli(*args, env=env)
        assert CANARY not in out.stdout + out.stderr, args

    # (a): a grant record signed elsewhere is refused here (no data dir but this one signs)
    grant_pin(cli, project, "once")
    signed = _grant_file(isolated_home, project).read_bytes()
    (evil / "grants").mkdir(exist_ok=True)
    (evil / "grants" / f"{h}.json").write_bytes(signed)
    out = cli("get", slug, env=env)
    assert CANARY not in out.stdout + out.stderr

    # Marking the folder again from a data dir that has not seen it would overwrite this
    # one's key in the keyring: refused; and from the agent's, where the copy is, too.
    fresh = {"MEMORYD_HOME": str(tmp_path / "agents-second-home")}
    assert cli("grant-pin", "set", stdin="888888\n", env=fresh).returncode == 0
    one_line_error(
        cli("mark-sensitive", str(project), stdin="888888\n", env=fresh), 2, "another memoryd data dir"
    )
    one_line_error(
        cli("mark-sensitive", str(project), stdin="888888\n", env=env), 1, "another memoryd data dir"
    )
    grant_pin(cli, project, "once")
    assert CANARY in cli("get", slug).stdout  # the person's data dir still reads it


def test_pins_tried_all_at_once_are_counted_one_by_one(cli, slug: str, project: Path):
    """An outside test (2026-11-28) released 20 wrong PINs and the right one together:
    each process read the same failure count, spent its 0.1 s in scrypt and wrote count + 1,
    so all 20 were checked and the right one, sent last, still granted. Tries now take
    turns and each counts as a miss before its scrypt: at most FREE_TRIES wrong PINs are
    ever checked before the lockout, however many arrive at once."""
    import os
    import subprocess

    from memoryd.sensitive import pin

    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "memoryd.cli.main", "grant", str(project), "--duration", "once"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(os.environ),
        )
        for _ in range(16)
    ]
    for n, p in enumerate(procs):
        assert p.stdin is not None
        p.stdin.write(f"guess-{n:06}\n".encode())
        p.stdin.close()
    for p in procs:
        p.wait(timeout=120)
    assert _why(cli).count("wrong grant PIN") <= pin.FREE_TRIES
    one_line_error(cli("grant", str(project), "--duration", "once", stdin=PIN + "\n"), 3, "too many wrong")
    _denied(cli, slug)


def test_the_pin_turn_survives_deleted_lock_files_and_a_renamed_data_dir(
    cli, slug: str, project: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
):
    """Tries used to take turns on a lock file in the data dir, which an agent can delete
    while a try holds it (the next try then locked a new file and ran beside the first), or
    hold, and a CLI grant waited forever. Then on the data dir's own flock, which a review
    (2026-11-28) got around by renaming the data dir and making a new one at its path. On
    Linux the turn is now named by the data dir's keyring id, as the PIN record is; a turn
    held past TURN_WAIT refuses the grant with one line (audited), checking nothing and
    counting nothing."""
    import shutil
    import sys

    from memoryd.errors import AuthorizationRequired, UsageError
    from memoryd.sensitive import pin

    monkeypatch.setattr(pin, "TURN_WAIT", 0.3)
    with pin._turn(isolated_home) as held:  # an agent holding the turn
        assert held
        for stale in isolated_home.glob("*.lock"):
            stale.unlink()  # whatever lock files an agent could delete: no other turn opens
        assert pin.check(isolated_home, "guess-000000") == "busy"
        # a new PIN is written in the turn too: a try that read the old record cannot
        # write it back over the new one (a review, 2026-11-28)
        with pytest.raises(UsageError, match="held the grant PIN check"):
            pin.store(isolated_home, "new-pin-000")
        with pytest.raises(AuthorizationRequired, match="held the grant PIN check") as refused:
            Memoryd().grant(project, duration="once", pin=PIN)
        assert "\n" not in str(refused.value)
        if sys.platform.startswith("linux"):  # the data dir renamed, a new one in its place
            aside = isolated_home.with_name("data-aside")
            isolated_home.rename(aside)
            isolated_home.mkdir()
            try:
                assert pin.check(isolated_home, "guess-000002") == "busy"
            finally:
                shutil.rmtree(isolated_home)
                aside.rename(isolated_home)
    assert "grant PIN turn held by another process" in _why(cli)
    assert pin.check(isolated_home, "guess-000001") == "wrong"  # the turn, once free
    assert (pin._record(isolated_home) or {})["failures"] == 1  # the busy tries counted nothing
    grant_pin(cli, project, "once")


def test_a_scope_marked_before_owners_is_claimed_by_its_own_data_dir(
    cli, slug: str, project: Path, tmp_path: Path, isolated_home: Path
):
    """A scope marked before owners were recorded has none: a review (2026-11-28) found an
    agent's data dir claimed it by merely trying a grant there. Only the capture worker's
    drain and a grant the person confirmed claim it; a failed try in another data dir
    claims nothing, and once this data dir has claimed it the other is refused."""
    h = resolve(project).hash
    keyring.delete_password("memoryd", f"scope-owner:{h}")  # as before this release
    evil = tmp_path / "agents-home"
    env = {"MEMORYD_HOME": str(evil)}
    (evil / "scopes" / h).mkdir(parents=True)
    (evil / "scopes" / h / "sensitive.json").write_bytes(
        (isolated_home / "scopes" / h / "sensitive.json").read_bytes()
    )
    out = cli("grant", str(project), "--duration", "session", stdin="000000\n", env=env)
    assert out.returncode != 0
    assert keyring.get_password("memoryd", f"scope-owner:{h}") is None  # claimed nothing

    assert cli("worker", "--wait").returncode == 0  # the person's own data dir, next drain
    assert keyring.get_password("memoryd", f"scope-owner:{h}") is not None
    one_line_error(
        cli("grant", str(project), "--duration", "session", stdin="888888\n", env=env),
        1,
        "belongs to another memoryd data dir",
    )
    grant_pin(cli, project, "once")
    assert CANARY in cli("get", slug).stdout


@pytest.mark.parametrize("anchored", [True, False], ids=["anchored", "marked-before-anchors"])
def test_a_settings_file_rewritten_by_an_agent_opens_nothing(
    cli, slug: str, project: Path, isolated_home: Path, tmp_path: Path, anchored: bool
):
    """A review (2026-11-28): an agent rewrote `sensitive.json` of a random-key scope as a
    passphrase scope of its own (its KDF salt and key check), granted itself with its own
    passphrase, and read every capture sealed under that key from then on; or moved the
    file away and marked the folder again with its own passphrase. The OS keyring keeps
    the key check memoryd set; a file that names another one is not believed."""
    from memoryd import crypto
    from memoryd.sensitive import state as sstate

    h = resolve(project).hash
    if not anchored:  # a review found the grant then anchored the forged file
        keyring.delete_password("memoryd", sstate.check_entry(h))
    path = isolated_home / "scopes" / h / "sensitive.json"
    genuine = path.read_text()
    params = crypto.KdfParams.fresh()
    mine = crypto.derive("agentpass99", params)
    forged = {
        **json.loads(genuine),
        "key_source": "passphrase",
        "kdf": params.as_dict(),
        "key_check": crypto.key_check(mine),
    }
    path.write_text(json.dumps(forged))

    out = cli("grant", str(project), "--duration", "task", "--task", "t", stdin="agentpass99\n")
    one_line_error(out, 1, "wrong passphrase")
    # the person's next write: refused while the file stands (captures wait in the spool)
    out = cli(
        "record", "--type", "fact", "--title", "Next", "--scope", str(project), stdin=f"New {CANARY}-2."
    )
    assert out.returncode != 0 and "Traceback" not in out.stderr
    for args in (("search", f"{CANARY}-2", "--scope", str(project)), ("get", slug)):
        got = cli(*args)
        assert CANARY not in got.stdout + got.stderr, args
    doctor = cli("doctor")
    assert (
        doctor.returncode == 1
        and f"sensitive scope {h}: its settings file names another key" in doctor.stdout
    )

    # The genuine file put back (from a backup), all is as before.
    path.write_text(genuine)
    assert cli("doctor").returncode == 0
    grant_pin(cli, project, "once")
    assert CANARY in cli("get", slug).stdout

    # Moved away and marked again with the agent's passphrase: refused, the key stays.
    path.rename(tmp_path / "away.json")
    (project / ".memoryd-sensitive").unlink(missing_ok=True)
    out = cli("mark-sensitive", str(project), "--passphrase", stdin="agentpass99\nagentpass99\n")
    one_line_error(out, 2, "its settings file", "is missing")
    assert sstate.keyring_get(sstate.key_entry(h)) is not None


def test_a_settings_file_naming_another_folder_is_not_shown(
    cli, slug: str, project: Path, isolated_home: Path, tmp_path: Path
):
    """A review (2026-11-28): a settings file rewritten in the old format, the folder in
    the clear, named another project; the tray's grant dialog then asked to grant
    "todo-app" while granting this scope, and the worker sealed the false name in place.
    A folder is named only where it is the scope's own."""
    h = resolve(project).hash
    decoy = tmp_path / "todo-app"
    decoy.mkdir()
    path = isolated_home / "scopes" / h / "sensitive.json"
    data = json.loads(path.read_text())
    data.pop("sealed_root", None)
    path.write_text(json.dumps({**data, "version": 1, "root": str(decoy)}))

    app = Memoryd()
    assert app.store.keys.root(h) is None
    assert "todo-app" not in app.store.keys.label(h)
    assert cli("worker", "--wait").returncode == 0
    assert "sealed_root" not in json.loads(path.read_text())  # the false name was not sealed in
    assert "todo-app" not in cli("doctor").stdout + cli("list", "--all-scopes").stdout


def test_a_sealed_memory_is_not_merged_into_an_ordinary_one(cli, slug: str, project: Path, tmp_path: Path):
    """A red-team test (2026-11-28): under a grant, `merge --keep <plain> --drop <sealed>
    --force` put the sealed memory's triggers and tags into the plain memory's file and
    index.db, where they stayed after the revoke."""
    plain = tmp_path / "plain"
    plain.mkdir()
    kept = record(cli, plain, "Plain note", "Nothing secret.")
    grant_pin(cli, project, "session")
    sealed = record(cli, project, "Band", "The band.", "zanzibarword")
    out = cli("merge", "--keep", kept, "--drop", sealed, "--force")
    one_line_error(out, 2, "sensitive project")
    assert "zanzibarword" not in cli("get", kept).stdout
