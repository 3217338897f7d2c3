"""Data-dir locations as plain strings, for the agent hook: only `os`, so the hook path
pays for no pathlib, dataclasses or platformdirs import. `paths` builds on this."""

from __future__ import annotations

import contextlib
import os
import sys

TYPE_CHECKING = False  # not typing's: the hook path must not import typing for it
if TYPE_CHECKING:
    from typing import Any

APP = "memoryd"
DIR_MODE = 0o700
FILE_MODE = 0o600


def data_home() -> str:
    return _user_dir("MEMORYD_HOME", "XDG_DATA_HOME", "~/.local/share", "user_data_dir")


def config_file() -> str:
    """config.toml: $MEMORYD_CONFIG, else in platformdirs' user config dir."""
    env = os.environ.get("MEMORYD_CONFIG")
    if env:
        return os.path.expanduser(env)
    return os.path.join(_user_dir("", "XDG_CONFIG_HOME", "~/.config", "user_config_dir"), "config.toml")


def _user_dir(override: str, xdg: str, xdg_default: str, platformdirs_name: str) -> str:
    """$override, else memoryd's folder by platformdirs' rule, which for Linux and macOS is
    followed here without importing it (under the hooks' `python -S` that would mean
    running site first): on Linux $xdg, else `xdg_default`."""
    env = os.environ.get(override) if override else None
    if env:
        return os.path.expanduser(env)
    if sys.platform.startswith("linux") and "ANDROID_DATA" not in os.environ:
        base = os.environ.get(xdg, "")
        if not base.strip():
            base = os.path.expanduser(xdg_default)
        return os.path.join(base, APP)
    if sys.platform == "darwin":
        return os.path.join(os.path.expanduser("~/Library/Application Support"), APP)
    full_site()
    import platformdirs

    return str(getattr(platformdirs, platformdirs_name)(APP, appauthor=False))


def full_site() -> None:
    """Under `python -S` (the agents' hooks, see memoryd.hookrun) site-packages are not on
    sys.path: bring them in before the first import of a third-party package."""
    if sys.flags.no_site and "site" not in sys.modules:
        import site

        site.main()


def spool_dir(home: str) -> str:
    return os.path.join(home, "spool")


def paused_flag(home: str) -> str:
    """While this file exists, hooks spool nothing (the tray's "Pause capture")."""
    return os.path.join(home, "capture.paused")


def worker_lock(home: str) -> str:
    return os.path.join(spool_dir(home), ".worker.lock")


def ensure_dir(path: str) -> str:
    """Create a private directory and any missing parents, each 0700 (Path.mkdir gives
    parents the umask's mode, which would leave the data dir world-readable)."""
    if os.path.isdir(path):
        return path
    parent = os.path.dirname(os.path.abspath(path))
    if parent and parent != path and not os.path.isdir(parent):
        ensure_dir(parent)
    with contextlib.suppress(FileExistsError):
        os.mkdir(path, DIR_MODE)
    return path


MARKER = ".memoryd-sensitive"
# In a scope folder: its snapshot must be rendered again (memoryd.inject reads it, the store
# writes it).
SNAPSHOT_STALE = ".snapshot-stale"


def marker_above(path: str) -> str | None:
    """The nearest directory at or above `path` holding the sensitive marker: everything
    under a marked directory is sensitive. A few stat calls, cheap enough for the hook."""
    current = os.path.abspath(path)
    while True:
        if os.path.exists(os.path.join(current, MARKER)):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


SETTINGS = "sensitive.json"  # scopes/<hash>/sensitive.json: memoryd.sensitive.state


def hash_root(root: str) -> str:
    """A scope's hash: first 12 hex of sha256 of its root (memoryd.scope uses this too)."""
    return _sha256()(root.encode("utf-8")).hexdigest()[:12]


def _sha256() -> Any:
    """The builtin SHA-256 (a tenth of a millisecond to import) rather than hashlib, which
    loads OpenSSL (about 2.5 ms): the hook hashes a few paths on every capture."""
    try:
        from _sha2 import sha256  # Python 3.12+
    except ImportError:
        try:
            from _sha256 import sha256  # Python 3.11
        except ImportError:
            from hashlib import sha256
    return sha256


def sensitive_root(home: str, path: str) -> str | None:
    """The root of the sensitive scope holding `path` as the data dir knows it (its
    scopes/<hash>/sensitive.json), whatever the project tree says: the marker is an
    untracked file that `git clean -fdx` deletes and a linked worktree does not have. The
    candidates are the git work tree (a linked worktree resolves to its main repository,
    as memoryd.scope does) and every directory at or above `path`, since everything under
    a sensitive directory is sensitive. One hash and one stat each, cheap for the hook."""
    real = os.path.realpath(path)
    candidates = []
    git = git_root_by_walk(real)
    if git:
        candidates.append(git)
    current = real
    while True:
        candidates.append(current)
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    scopes = os.path.join(home, "scopes")
    for root in candidates:
        if os.path.exists(os.path.join(scopes, hash_root(root), SETTINGS)):
            return root
    return None


def git_root_by_walk(path: str) -> str | None:
    """The git work tree holding `path` (absolute, symlinks resolved), found by looking
    for .git upwards without running git; a linked worktree's .git file leads to its main
    repository. memoryd.scope uses git itself and falls back to this; `inject` uses only
    this, since spawning git would cost the hook more than everything else it does."""
    current = path
    while True:
        marker = os.path.join(current, ".git")
        if os.path.isdir(marker):
            return current
        if os.path.isfile(marker):
            try:
                with open(marker, encoding="utf-8", errors="replace") as fh:
                    text = fh.read(4096).strip()
                if text.startswith("gitdir:"):
                    gitdir = os.path.realpath(os.path.join(current, text[7:].strip()))
                    common = os.path.join(gitdir, "commondir")
                    if os.path.isfile(common):
                        with open(common, encoding="utf-8", errors="replace") as fh:
                            main_git = os.path.realpath(os.path.join(gitdir, fh.read().strip()))
                        if os.path.basename(main_git) == ".git":
                            return os.path.dirname(main_git)
            except OSError:
                pass
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent
