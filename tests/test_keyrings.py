"""The keyring fixtures are real: a Secret Service that stores and hands back passwords to
this process and to others, a machine with no keyring, and a hermetic default."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import keyring
import keyring.backends.fail
import keyring.backends.SecretService
import keyring.errors
import pytest

from tests.keyrings import SecretServiceDaemon

SERVICE = "memoryd-keyring-fixture-test"


def python(code: str) -> subprocess.CompletedProcess[str]:
    """A separate Python that finds its keyring by itself, from the inherited environment."""
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ), timeout=60
    )


def test_secret_service_round_trip(secret_service: str) -> None:
    assert os.environ["DBUS_SESSION_BUS_ADDRESS"] == secret_service
    assert isinstance(keyring.get_keyring(), keyring.backends.SecretService.Keyring)
    assert keyring.get_password(SERVICE, "alice") is None

    keyring.set_password(SERVICE, "alice", "s3cret ünïcode")
    assert keyring.get_password(SERVICE, "alice") == "s3cret ünïcode"

    child = python(
        "import keyring, keyring.backends.SecretService as S\n"
        "assert isinstance(keyring.get_keyring(), S.Keyring), keyring.get_keyring()\n"
        f"print(keyring.get_password({SERVICE!r}, 'alice'))\n"
        f"keyring.set_password({SERVICE!r}, 'bob', 'from the child')\n"
    )
    assert child.returncode == 0, child.stderr
    assert child.stdout == "s3cret ünïcode\n"
    assert keyring.get_password(SERVICE, "bob") == "from the child"

    keyring.delete_password(SERVICE, "alice")
    assert keyring.get_password(SERVICE, "alice") is None
    with pytest.raises(keyring.errors.PasswordDeleteError):
        keyring.delete_password(SERVICE, "alice")
    child = python(f"import keyring; print(keyring.get_password({SERVICE!r}, 'alice'))")
    assert child.returncode == 0, child.stderr
    assert child.stdout == "None\n"


def test_secret_service_stores_in_the_unlocked_login_keyring(secret_service: str, tmp_path: Path) -> None:
    import secretstorage

    keyring.set_password(SERVICE, "alice", "pw")
    with closing(secretstorage.dbus_init()) as conn:
        default = secretstorage.get_default_collection(conn)
        assert default.get_label() == "Login" and not default.is_locked()
        [item] = default.search_items({"service": SERVICE, "username": "alice"})
        assert item.get_secret() == b"pw"
    # On disk in the test's own data dir, never the user's.
    assert (tmp_path / "keyring-data" / "share" / "keyrings" / "login.keyring").is_file()


def test_each_test_gets_a_fresh_keyring(secret_service: str) -> None:
    # test_secret_service_round_trip left bob behind in its own keyring, not in this one.
    assert keyring.get_password(SERVICE, "bob") is None


def test_a_test_whose_daemon_aborted_runs_once_more(
    secret_service_daemon: SecretServiceDaemon, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """tests/keyrings.py's second run: the first run aborts its daemon (SIGABRT), as
    gnome-keyring 42.1 does under a burst of writes, and so fails; the second, on a fresh
    daemon, passes. Without the second run this test fails."""
    marker = tmp_path_factory.getbasetemp() / "keyring-daemon-aborted-once"
    if not marker.exists():
        marker.touch()
        assert secret_service_daemon.proc is not None
        secret_service_daemon.proc.send_signal(signal.SIGABRT)
        secret_service_daemon.proc.wait(timeout=10)
    keyring.set_password(SERVICE, "carol", "pw")
    assert keyring.get_password(SERVICE, "carol") == "pw"


def test_no_keyring(no_keyring: None) -> None:
    assert "DBUS_SESSION_BUS_ADDRESS" not in os.environ
    assert not any(Path(os.environ["XDG_RUNTIME_DIR"]).iterdir())
    with pytest.raises(keyring.errors.NoKeyringError):
        keyring.set_password(SERVICE, "alice", "pw")
    # Without a bus there is no Secret Service to fall back to either.
    with pytest.raises(RuntimeError):
        keyring.backends.SecretService.Keyring.priority  # noqa: B018

    child = python(
        "import keyring, keyring.errors\n"
        "try:\n"
        f"    keyring.set_password({SERVICE!r}, 'alice', 'pw')\n"
        "except keyring.errors.NoKeyringError as e:\n"
        "    print('NoKeyringError', type(keyring.get_keyring()).__module__)\n"
    )
    assert child.returncode == 0, child.stderr
    assert child.stdout == "NoKeyringError keyring.backends.fail\n"


def test_default_is_hermetic() -> None:
    """A test that asks for no keyring gets none: never the developer's, never a plaintext file."""
    assert isinstance(keyring.get_keyring(), keyring.backends.fail.Keyring)
    with pytest.raises(keyring.errors.NoKeyringError):
        keyring.get_password(SERVICE, "alice")
    child = python("import keyring; print(type(keyring.get_keyring()).__module__)")
    assert child.returncode == 0, child.stderr
    assert child.stdout == "keyring.backends.fail\n"


RERUN_CONFTEST = """
import pytest

from tests.keyrings import DAEMON_ABORTED, pytest_runtest_protocol  # noqa: F401  (the hook)


@pytest.fixture
def secret_service_daemon(request, tmp_path_factory):
    # Stands in for the real daemon: it "aborts" in the runs the test names, as the real
    # fixture marks a daemon that died by SIGABRT.
    runs = tmp_path_factory.getbasetemp() / f"runs-{request.node.name}"
    runs.write_text(runs.read_text() + "x" if runs.exists() else "x")
    yield len(runs.read_text())
    aborts = request.node.get_closest_marker("aborts")
    if aborts and len(runs.read_text()) in aborts.args:
        request.node.stash[DAEMON_ABORTED] = "aborted"
"""

RERUN_TESTS = """
import pytest


def test_fails_without_an_abort(secret_service_daemon):
    assert False, "a real failure"


@pytest.mark.aborts(1)
def test_fails_once_under_an_abort(secret_service_daemon):
    assert secret_service_daemon == 2, "the daemon aborted"


@pytest.mark.aborts(1, 2)
def test_fails_twice_under_aborts(secret_service_daemon):
    assert False, f"run {secret_service_daemon}"


@pytest.mark.aborts(1)
def test_passes_under_an_abort(secret_service_daemon):
    pass
"""


def test_only_a_failure_under_an_aborted_daemon_runs_again(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """tests/keyrings.py's second run, in a pytest of its own with a stand-in daemon: a
    failure without an abort is reported at once; a failure under an abort runs once more
    and the second run's outcome is the test's; a pass is never run again."""
    pytester.makeconftest(RERUN_CONFTEST)
    pytester.makepyfile(test_rerun=RERUN_TESTS)
    pytester.makeini("[pytest]\nmarkers =\n    aborts: runs in which the stand-in daemon aborts\n")
    root = Path(__file__).resolve().parents[1]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(root), str(root / "core")]))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist", "-rA")
    # One warning per second run: the two tests that failed under an abort, not the failure
    # without one nor the pass under one.
    result.assert_outcomes(passed=2, failed=2, warnings=2)
    warned = result.stdout.str().split("warnings summary")[1].split("PASSES")[0]
    assert "test_fails_without_an_abort" not in warned and "test_passes_under_an_abort" not in warned
    result.stdout.fnmatch_lines(["*FAILED*test_fails_without_an_abort - AssertionError: a real*"])
    result.stdout.fnmatch_lines(["*FAILED*test_fails_twice_under_aborts*run 2*"])
    result.stdout.fnmatch_lines(["*PASSED*test_fails_once_under_an_abort*"])
