"""The retries a Secret Service earns (memoryd.oskeyring.call), with the real
gnome-keyring-daemon: a read of a sensitive memory whose keyring call fails because the
Secret Service is off the bus goes through when the service is back by the first retry, is one
line and a non-zero exit when it is not, and a machine with no keyring at all is told so at
once, with no retry. In process, with the real backend meeting the errors a reload or a
person makes: SecretStorage's own errors and a missing collection are retried; a locked
keyring or a dismissed prompt is not (asking again would ask the person again); after a
call has failed through every retry the next is tried once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import keyring
import keyring.backends.SecretService
import pytest
import secretstorage

from memoryd import oskeyring
from memoryd.errors import KeyUnavailable
from memoryd.sensitive import state
from tests.keyrings import SecretServiceDaemon

from .sensitive.support import CANARY, PIN, grant_pin, one_line_error, record, set_pin


def _sensitive_memory(cli, project: Path) -> str:
    set_pin(cli)
    out = cli("mark-sensitive", str(project), stdin=PIN + "\n")
    assert out.returncode == 0, out.stderr
    grant_pin(cli, project, "session")
    return record(cli, project, "Vault day", f"The vault {CANARY} opens on Fridays.", "vault")


def _paused_get(slug: str, folder: Path) -> tuple[subprocess.Popen[str], Path]:
    """`memoryd get` held at the retry (after the first keyring call failed, before the
    second), or failed at once if it never got there."""
    env = {**os.environ, "MEMORYD_PAUSE_AT": "keyring:retry", "MEMORYD_PAUSE_DIR": str(folder)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "memoryd.cli.main", "get", slug, "--json"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 90
    while not (folder / "keyring:retry.reached").exists():
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.02)
    return proc, folder / "keyring:retry.go"


def test_a_secret_service_back_by_the_retry_serves_the_read(
    cli, secret_service_daemon: SecretServiceDaemon, project: Path, tmp_path: Path
):
    slug = _sensitive_memory(cli, project)
    secret_service_daemon.stop()
    proc, go = _paused_get(slug, tmp_path)
    secret_service_daemon.start()  # same keyring file, unlocked again: the grant and key are there
    go.touch()
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert CANARY in json.loads(out)["body"]


def test_a_secret_service_still_gone_is_one_line(
    cli, secret_service_daemon: SecretServiceDaemon, project: Path, tmp_path: Path
):
    slug = _sensitive_memory(cli, project)
    secret_service_daemon.stop()
    proc, go = _paused_get(slug, tmp_path)
    go.touch()
    out, err = proc.communicate(timeout=120)
    result = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    one_line_error(result, 1, "no usable OS keyring", "neither running nor activatable")


def test_no_keyring_at_all_is_not_retried(cli, no_keyring: None, project: Path, tmp_path: Path):
    """NoKeyringError cannot pass: setting the grant PIN fails at once, the retry never
    reached, and keyring's advice (install keyrings.alt, a plaintext file) not passed on."""
    env = {"MEMORYD_PAUSE_AT": "keyring:retry", "MEMORYD_PAUSE_DIR": str(tmp_path)}
    out = cli("grant-pin", "set", stdin=PIN + "\n", env=env, timeout=60)
    one_line_error(out, 1, "no usable OS keyring (backend keyring.backends.fail.Keyring: NoKeyringError)")
    assert not (tmp_path / "keyring:retry.reached").exists()


class _Flaky(keyring.backends.SecretService.Keyring):
    """The real Secret Service backend, whose next reads raise what a Secret Service under
    a reload, or a person, makes of them (one exception each, in order); `tries` counts."""

    def __init__(self, *failures: Exception) -> None:
        super().__init__()
        self.failures = list(failures)
        self.tries = 0

    def get_password(self, service: str, username: str) -> str | None:
        self.tries += 1
        if self.failures:
            raise self.failures.pop(0)
        return super().get_password(service, username)


def _gone() -> Exception:
    """An item found a moment before is gone: SecretStorage's error, which keyring lets through."""
    return secretstorage.exceptions.ItemNotFoundException("Item does not exist!")


def _no_collection() -> Exception:
    """What keyring raises when the default collection is not there while gnome-keyring reloads."""
    exc = keyring.errors.InitError("Failed to create the collection: Item does not exist!.")
    exc.__cause__ = secretstorage.exceptions.ItemNotFoundException("Item does not exist!")
    return exc


def _dismissed() -> Exception:
    """What keyring raises when the person dismisses the prompt to create a keyring."""
    exc = keyring.errors.InitError("Failed to create the collection: Prompt dismissed..")
    exc.__cause__ = secretstorage.exceptions.PromptDismissedException("Prompt dismissed.")
    return exc


ENTRY, KEY = "scope-key:0123456789ab", b"k" * 32
RETRIES = len(oskeyring.RETRY_PAUSES)


@pytest.mark.parametrize("failure", [_gone, _no_collection], ids=["item-gone", "no-collection"])
def test_a_moments_failure_is_read_on_a_retry(secret_service: str, failure):
    state.keyring_set(ENTRY, KEY)
    flaky = _Flaky(*[failure() for _ in range(RETRIES)])
    keyring.set_keyring(flaky)
    assert state.keyring_get(ENTRY) == KEY
    assert flaky.tries == RETRIES + 1


def test_a_failure_through_every_retry_is_one_line_and_the_next_call_tries_once(secret_service: str):
    state.keyring_set(ENTRY, KEY)
    flaky = _Flaky(*[_gone() for _ in range(RETRIES + 2)])
    keyring.set_keyring(flaky)
    with pytest.raises(KeyUnavailable) as caught:
        state.keyring_get(ENTRY)
    assert flaky.tries == RETRIES + 1
    assert "ItemNotFoundException: Item does not exist!" in str(caught.value)
    assert "\n" not in str(caught.value)
    # Given up: the next call is tried once (a Secret Service configured but not running
    # must not cost every call the pauses), and a success brings the retries back.
    with pytest.raises(KeyUnavailable):
        state.keyring_get(ENTRY)
    assert flaky.tries == RETRIES + 2
    assert state.keyring_get(ENTRY) == KEY
    flaky.failures = [_gone()]
    assert state.keyring_get(ENTRY) == KEY


@pytest.mark.parametrize(
    "failure",
    [
        _dismissed,
        lambda: keyring.errors.KeyringLocked("Failed to unlock the collection!"),
        lambda: secretstorage.exceptions.LockedException("Item is locked!"),
        lambda: secretstorage.exceptions.PromptDismissedException("Prompt dismissed."),
    ],
    ids=["dismissed-create", "keyring-locked", "item-locked", "prompt-dismissed"],
)
def test_what_a_person_said_no_to_is_not_asked_again(secret_service: str, failure):
    state.keyring_set(ENTRY, KEY)
    flaky = _Flaky(failure(), failure(), failure())
    keyring.set_keyring(flaky)
    with pytest.raises(KeyUnavailable):
        state.keyring_get(ENTRY)
    assert flaky.tries == 1


def test_a_bus_address_to_nowhere_is_one_line(cli, no_keyring: None, tmp_path: Path):
    """A Secret Service configured, and a session bus address left over from a session that
    ended: SecretStorage lets the socket's FileNotFoundError through, which was an internal
    error."""
    env = {
        "PYTHON_KEYRING_BACKEND": "keyring.backends.SecretService.Keyring",
        "DBUS_SESSION_BUS_ADDRESS": f"unix:path={tmp_path / 'gone' / 'bus'}",
    }
    out = cli("grant-pin", "set", stdin=PIN + "\n", env=env, timeout=60)
    one_line_error(out, 1, "no usable OS keyring", "FileNotFoundError")
