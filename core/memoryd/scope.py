"""Scopes: which project a directory belongs to.

scope_hash = first 12 hex of sha256(root), root being the git toplevel inside a work tree
(a linked worktree resolves to its main repository, so memories are not lost to worktrees)
or the directory itself, symlinks resolved.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from memoryd import envpaths
from memoryd.envpaths import MARKER, data_home, git_root_by_walk, marker_above, sensitive_root
from memoryd.errors import UsageError

__all__ = ["MARKER", "Scope", "marker_above", "resolve"]


@dataclass(frozen=True)
class Scope:
    hash: str
    root: Path
    kind: str  # "git" or "dir"
    marked: bool = False  # a `.memoryd-sensitive` marker at or above the root


def hash_root(root: Path) -> str:
    return envpaths.hash_root(str(root))


def _git_root(path: Path) -> Path | None:
    try:
        out = subprocess.run(
            [
                "git",
                "-C",
                str(path),
                "rev-parse",
                "--path-format=absolute",
                "--show-toplevel",
                "--git-common-dir",
            ],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return _walk_root(path)
    if out.returncode != 0:
        return None if "not a git repository" in out.stderr else _walk_root(path)
    lines = out.stdout.splitlines()
    if len(lines) < 2:
        return None
    toplevel, common = Path(lines[0]).resolve(), Path(lines[1]).resolve()
    if common.name == ".git":
        return common.parent
    return toplevel


def _walk_root(path: Path) -> Path | None:
    """Without git on PATH: find .git upwards; a worktree's .git file points home."""
    found = git_root_by_walk(str(path))
    return Path(found) if found else None


def resolve(path: str | Path, *, must_exist: bool = True) -> Scope:
    """The scope of a directory (a file path means its folder)."""
    p = Path(path).expanduser()
    try:
        exists = p.exists()
    except OSError:  # a name too long to stat, say: not a folder that is there
        exists = False
    if not exists:
        if must_exist:
            raise UsageError(f"no such directory: {str(path)[:200]!r}")
        root = Path(p).absolute()
        # A folder gone since (a capture's cwd): still in the sensitive folder it was in.
        known = sensitive_root(data_home(), str(root)) or marker_above(str(root))
        if known is not None:
            return Scope(hash_root(known), Path(known), "dir", True)
        return Scope(hash_root(root), root, "dir")
    p = p.resolve()
    if p.is_file():
        p = p.parent
    root = _git_root(p)
    found = marker_above(str(p))
    marked = Path(found) if found else None
    if marked is None:  # the marker deleted (`git clean -fdx`): the data dir still knows
        # Everything under a sensitive folder is sensitive, a git repository made inside it
        # included: its own scope is then marked but has no key, so writes are refused (as
        # with the marker there) rather than stored in the clear.
        known = sensitive_root(data_home(), str(p))
        if known is not None:
            marked = Path(known)
    if root is not None:
        return Scope(hash_root(root), root, "git", marked is not None)
    if marked is not None:  # a plain directory under a marked one shares its scope
        return Scope(hash_root(marked), marked, "dir", True)
    return Scope(hash_root(p), p, "dir")
