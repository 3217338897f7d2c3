"""What the OS keyring raises when there is none to use here, and the retries a Secret
Service earns.

keyring says so in three ways: a KeyringError (NoKeyringError on a headless machine, a
locked keyring), a RuntimeError while it loads the backend PYTHON_KEYRING_BACKEND or its
config names, when that backend is not viable (a Secret Service whose daemon has left the
session bus), and an ImportError when that backend's module is not there (a typo in it).
To a user all three mean the same: no usable keyring, a one-line error and the way around
it, never an internal error.

A Secret Service can also fail for a moment: gnome-keyring reloads its keyring file each
time the file changes on disk, its own writes included (it logs "asked to register item
..., but it's already registered"), and a lookup that lands in the reload finds no default
collection (keyring's InitError), or an item found a moment before is gone (SecretStorage's
ItemNotFoundException, which keyring lets through). Many short memoryd processes reading
and writing keys in a row meet that window. So a call that fails that way is made again,
twice at most, after 0.1 s and 0.2 s; what still fails is reported. A missing keyring
(NoKeyringError), a locked one and a bad backend name are not retried: they do not pass."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TypeVar

from memoryd import faults

T = TypeVar("T")

RETRY_PAUSES = (0.1, 0.2)  # seconds before each retry: 0.3 s in all, then it is reported


def _secret_service_errors() -> tuple[type[Exception], ...]:
    """SecretStorage's own exceptions, which keyring's Secret Service backend lets through
    from an item's calls (an item gone while gnome-keyring reloads: ItemNotFoundException).
    Loaded only if that backend loaded it."""
    module = sys.modules.get("secretstorage.exceptions")
    return (module.SecretStorageException,) if module is not None else ()


def unavailable() -> tuple[type[Exception], ...]:
    """The exceptions of a keyring call that mean "no usable keyring" (keyring imported
    only when a keyring is used)."""
    from keyring.errors import KeyringError

    return (KeyringError, RuntimeError, ImportError, *_secret_service_errors())


def passing(exc: BaseException) -> bool:
    """Whether a keyring call's failure can pass a moment later (NoKeyringError is a
    RuntimeError too, and cannot)."""
    from keyring.errors import InitError, NoKeyringError

    kinds = (InitError, RuntimeError, *_secret_service_errors())
    return isinstance(exc, kinds) and not isinstance(exc, NoKeyringError)


def call(fn: Callable[[], T]) -> T:
    """fn(), tried again after each of RETRY_PAUSES while it fails in a way that can pass."""
    for pause in RETRY_PAUSES:
        try:
            return fn()
        except Exception as exc:
            if not passing(exc):
                raise
        faults.pause("keyring:retry")
        time.sleep(pause)
    return fn()
