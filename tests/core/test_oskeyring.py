"""The retries a Secret Service earns (memoryd.oskeyring.call), with the real
gnome-keyring-daemon: a read of a sensitive memory whose keyring call fails because the
Secret Service is off the bus goes through when the service is back by the first retry, is one
line and a non-zero exit when it is not, and a machine with no keyring at all is told so at
once, with no retry. SecretStorage's own errors, which keyring lets through from an item's
calls, are retried and reported the same way."""

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


class _ItemGone(keyring.backends.SecretService.Keyring):
    """The real Secret Service backend, whose next `times` reads meet what gnome-keyring's
    reload makes of an item found a moment before: SecretStorage's ItemNotFoundException,
    which keyring does not wrap."""

    def __init__(self, times: int) -> None:
        super().__init__()
        self.times = times

    def get_password(self, service: str, username: str) -> str | None:
        if self.times:
            self.times -= 1
            raise secretstorage.exceptions.ItemNotFoundException("Item does not exist!")
        return super().get_password(service, username)


def test_an_item_gone_for_a_moment_is_read_on_a_retry(secret_service: str):
    state.keyring_set("scope-key:0123456789ab", b"k" * 32)
    keyring.set_keyring(_ItemGone(times=len(oskeyring.RETRY_PAUSES)))
    assert state.keyring_get("scope-key:0123456789ab") == b"k" * 32


def test_an_item_gone_through_every_retry_is_a_one_line_keyring_error(secret_service: str):
    state.keyring_set("scope-key:0123456789ab", b"k" * 32)
    keyring.set_keyring(_ItemGone(times=1 + len(oskeyring.RETRY_PAUSES)))
    with pytest.raises(KeyUnavailable) as caught:
        state.keyring_get("scope-key:0123456789ab")
    assert "ItemNotFoundException: Item does not exist!" in str(caught.value)
    assert "\n" not in str(caught.value)
