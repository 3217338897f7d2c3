"""What the OS keyring raises when there is none to use here, and the retries a Secret
Service earns.

keyring says so in three ways: a KeyringError (NoKeyringError on a headless machine, a
locked keyring), a RuntimeError while it loads the backend PYTHON_KEYRING_BACKEND or its
config names, when that backend is not viable (a Secret Service whose daemon has left the
session bus), and an ImportError when that backend's module is not there (a typo in it);
and its Secret Service backend lets the D-Bus layer's own errors through. To a user all
mean the same: no usable keyring, a one-line error and the way around it, never an
internal error.

A Secret Service can also fail for a moment: gnome-keyring reloads its keyring file each
time the file changes on disk, its own writes included (it logs "asked to register item
..., but it's already registered"), and a lookup that lands in the reload finds no default
collection (keyring's InitError), or an item found a moment before is gone (SecretStorage's
ItemNotFoundException, which keyring lets through). Many short memoryd processes reading
and writing keys in a row meet that window. So a call that fails that way is made again,
twice at most, after 0.1 s and 0.2 s; what still fails is reported. A missing keyring
(NoKeyringError), a locked one, a dismissed prompt and a bad backend name are not retried:
they do not pass."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TypeVar

from memoryd import faults

T = TypeVar("T")

RETRY_PAUSES = (0.1, 0.2)  # seconds before each retry: 0.3 s in all, then it is reported


_failing = False  # the last call here failed through every retry: the next gets one try


def _errors(module: str, *names: str) -> tuple[type[Exception], ...]:
    """Exception classes of a module, if something has imported it (keyring's Secret
    Service backend imports SecretStorage and jeepney; memoryd never does)."""
    loaded = sys.modules.get(module)
    return tuple(getattr(loaded, n) for n in names if loaded is not None and hasattr(loaded, n))


def _transport() -> tuple[type[Exception], ...]:
    """What the D-Bus transport under a Secret Service raises and keyring lets through:
    SecretStorage's own exceptions (an item gone while gnome-keyring reloads), jeepney's
    error replies, the socket's OSError (a reset, a timeout, a stale bus address)."""
    return (
        OSError,
        *_errors("secretstorage.exceptions", "SecretStorageException"),
        *_errors("jeepney.wrappers", "DBusErrorResponse"),
    )


def unavailable() -> tuple[type[Exception], ...]:
    """The exceptions of a keyring call that mean "no usable keyring" (keyring imported
    only when a keyring is used)."""
    from keyring.errors import KeyringError

    return (KeyringError, RuntimeError, ImportError, *_transport())


def passing(exc: BaseException) -> bool:
    """Whether a keyring call's failure can pass a moment later. Not: no keyring at all
    (NoKeyringError, a RuntimeError too), a locked keyring or item, or a prompt the person
    dismissed (keyring wraps one in InitError): asking again would only ask them again."""
    from keyring.errors import InitError, KeyringLocked, NoKeyringError

    settled = (
        NoKeyringError,
        KeyringLocked,
        *_errors("secretstorage.exceptions", "PromptDismissedException", "LockedException"),
    )
    if isinstance(exc, settled) or isinstance(exc.__cause__, settled):
        return False
    return isinstance(exc, (InitError, RuntimeError, *_transport()))


def call(fn: Callable[[], T]) -> T:
    """fn(), tried again after each of RETRY_PAUSES while it fails in a way that can pass;
    once a call has failed through every retry, the next ones in this process get one try
    each until one succeeds (a Secret Service that is configured but not running must not
    cost every call, a SessionStart hook's included, the pauses again)."""
    global _failing
    for pause in () if _failing else RETRY_PAUSES:
        try:
            value = fn()
        except Exception as exc:
            if not passing(exc):
                raise
        else:
            _failing = False
            return value
        faults.pause("keyring:retry")
        time.sleep(pause)
    try:
        value = fn()
    except Exception as exc:
        if passing(exc):
            _failing = True
        raise
    _failing = False
    return value
