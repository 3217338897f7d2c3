"""What the OS keyring raises when there is none to use here.

keyring says so in three ways: a KeyringError (NoKeyringError on a headless machine, a
locked keyring), a RuntimeError while it loads the backend PYTHON_KEYRING_BACKEND or its
config names, when that backend is not viable (a Secret Service whose daemon has left the
session bus), and an ImportError when that backend's module is not there (a typo in it).
To a user all three mean the same: no usable keyring, a one-line error and the way around
it, never an internal error."""

from __future__ import annotations


def unavailable() -> tuple[type[Exception], ...]:
    """The exceptions of a keyring call that mean "no usable keyring" (keyring imported
    only when a keyring is used)."""
    from keyring.errors import KeyringError

    return (KeyringError, RuntimeError, ImportError)
