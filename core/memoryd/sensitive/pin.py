"""The grant PIN (issue 18): what the person types to grant a random-key scope when no
tray runs. A terminal is not proof of a person (an agent can open a pty), a secret the
agent does not know is. Stored only as a scrypt hash (n=2^15, r=8, p=1, random salt) in
the OS keyring, where random-key scopes keep their keys anyway; never in a file the agent
could overwrite.

One entry per data dir (`grant-pin:<keyring id of the data dir>`): a PIN chosen for an
empty data dir elsewhere must not unlock this one's scopes. Guessing is slowed twice: by
scrypt (about 0.1 s a try) and by a lockout kept in the same keyring value, where a file
edit cannot reset it: after 5 wrong tries in a row, none is checked for a minute, doubling
with each further miss up to a day (grants from the tray's dialog still work)."""

from __future__ import annotations

import hmac
import json
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

from memoryd import clock, crypto
from memoryd.errors import KeyUnavailable, UsageError
from memoryd.paths import keyring_id

from . import state

MIN_LENGTH = 6
MAX_LENGTH = 256
FREE_TRIES = 5
FIRST_LOCK = timedelta(minutes=1)
LONGEST_LOCK = timedelta(days=1)
TURN_WAIT = 30.0  # seconds: 20 tries at once take about 2 s; past this someone holds the turn


def entry(home: Path) -> str:
    return f"grant-pin:{keyring_id(home)}"


def is_set(home: Path) -> bool:
    """Raises KeyUnavailable when there is no keyring to ask."""
    return state.keyring_get(entry(home)) is not None


def _record(home: Path) -> dict[str, Any] | None:
    raw = state.keyring_get(entry(home))
    if raw is None:
        return None
    try:
        data = json.loads(raw.decode("utf-8"))
        params = crypto.KdfParams.from_dict(data["kdf"])
        crypto.unb64(data["hash"])
        int(data.get("failures", 0))
        if data.get("locked_until") is not None:
            clock.parse_ts(str(data["locked_until"]))
    except (ValueError, KeyError, TypeError, UnicodeDecodeError, UsageError):
        raise KeyUnavailable(
            "the grant PIN in the OS keyring is damaged: set a new one from the tray"
        ) from None
    if params.n < crypto.SCRYPT_N or params.r < crypto.SCRYPT_R or params.p < 1:
        raise KeyUnavailable(
            "the grant PIN in the OS keyring has weakened parameters: set a new one from the tray"
        )
    return dict(data)


def _save(home: Path, data: dict[str, Any]) -> None:
    state.keyring_set(entry(home), json.dumps(data).encode("utf-8"))


def _locked(data: dict[str, Any] | None) -> str | None:
    until = data.get("locked_until") if data else None
    if until and clock.parse_ts(str(until)) > clock.wall():
        return str(until)
    return None


def locked_until(home: Path) -> str | None:
    """When the lockout after repeated wrong PINs ends (the real clock), or None."""
    return _locked(_record(home))


def verify(home: Path, pin: str) -> bool:
    """True when `pin` is the one set (check() says why not)."""
    return check(home, pin) == "right"


def check(home: Path, pin: str) -> str:
    """ "right" when `pin` is the one set; "wrong" when it is not or none is set; "locked"
    while the lockout lasts (then nothing is checked); "busy" when another process has held
    the turn for TURN_WAIT seconds. A wrong PIN counts toward the lockout, a right one
    clears it.

    One try at a time per data dir, and each try is counted as a miss before the scrypt
    runs, then cleared if it was right: an outside test (2026-11-28) sent 20 wrong PINs and
    the right one at once, and every process read the same count, spent its 0.1 s in scrypt
    and wrote count + 1, so all 20 were checked and the lock came late."""
    with _turn(home) as mine:
        if not mine:
            return "busy"
        data = _record(home)
        if _locked(data):
            return "locked"
        if data is None or not pin:
            return "wrong"
        failures = int(data.get("failures", 0)) + 1
        until = None
        if failures >= FREE_TRIES:
            wait = min(FIRST_LOCK * 2 ** (failures - FREE_TRIES), LONGEST_LOCK)
            until = clock.iso(clock.wall() + wait)
        _save(home, {**data, "failures": failures, "locked_until": until})
        params = crypto.KdfParams.from_dict(data["kdf"])
        if hmac.compare_digest(crypto.derive(pin, params), crypto.unb64(data["hash"])):
            _save(home, {**data, "failures": 0, "locked_until": None})
            return "right"
        return "wrong"


@contextmanager
def _turn(home: Path) -> Iterator[bool]:
    """The data dir's one PIN turn: True once held, False after TURN_WAIT seconds.

    Not a lock file in the data dir: a review (2026-11-28) noted that an agent could delete
    one while it was held, and the next process would lock a new file beside the first, so
    tries ran side by side again. On POSIX systems the turn is flock() on the data dir
    itself and, on Linux, also an abstract socket named by the data dir's keyring id, as
    the PIN record is: a review got around the flock by renaming the data dir between
    tries, and around the socket alone from a network namespace of its own; doing both at
    once takes both. On Windows a lock file, which cannot be deleted while open. Holding
    the turn denies the CLI grant (after TURN_WAIT, with a one-line error), never the
    tray's."""
    if sys.platform == "win32":  # an open file cannot be deleted there
        from filelock import FileLock, Timeout

        from memoryd.paths import FILE_MODE

        lock = FileLock(str(home / "grant-pin.lock"), mode=FILE_MODE)
        try:
            lock.acquire(timeout=TURN_WAIT)
        except Timeout:
            yield False
            return
        try:
            yield True
        finally:
            lock.release()
        return
    deadline = time.monotonic() + TURN_WAIT
    with _named_turn(home, deadline) as named, _folder_turn(home, deadline) as folder:
        yield named and folder


@contextmanager
def _named_turn(home: Path, deadline: float) -> Iterator[bool]:
    if not sys.platform.startswith("linux"):
        yield True
        return
    import socket

    # (another user could bind the same name: the CLI grant is then busy, nothing more)
    name = f"\0memoryd-pin-turn-{os.getuid()}-{keyring_id(home)}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        while True:
            try:
                sock.bind(name)
                break
            except OSError:  # held by another try
                if time.monotonic() >= deadline:
                    yield False
                    return
                time.sleep(0.02)
        yield True
    finally:
        sock.close()


@contextmanager
def _folder_turn(home: Path, deadline: float) -> Iterator[bool]:
    import fcntl

    fd = os.open(home, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    yield False
                    return
                time.sleep(0.02)
            except OSError as exc:  # a file system that cannot lock a folder (some NFS, SMB)
                raise KeyUnavailable(
                    f"cannot take the grant PIN turn on {home} ({exc.strerror or exc}): grant in the tray app"
                ) from None
        yield True  # closing the descriptor below releases the lock
    finally:
        os.close(fd)


def check_new(pin: str) -> None:
    if len(pin) < MIN_LENGTH:
        raise UsageError(f"choose a grant PIN of at least {MIN_LENGTH} characters")
    if len(pin) > MAX_LENGTH:
        raise UsageError(f"a grant PIN has at most {MAX_LENGTH} characters")


def store(home: Path, pin: str) -> None:
    """Keep the scrypt hash of a new PIN (the caller has decided it may be set)."""
    check_new(pin)
    params = crypto.KdfParams.fresh()
    record = {
        "version": 1,
        "kdf": params.as_dict(),
        "hash": crypto.b64(crypto.derive(pin, params)),
        "failures": 0,
        "locked_until": None,
    }
    # In the turn: a try that read the old record would write it back over the new one
    # (a review, 2026-11-28, changed the PIN while a try ran, and the old PIN came back).
    with _turn(home) as mine:
        if not mine:
            raise UsageError(f"another process has held the grant PIN check for {TURN_WAIT:.0f} s: try again")
        _save(home, record)
