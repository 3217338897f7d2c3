"""Project names: the folder a scope hash stands for, so people read "api (work/acme)"
where they read 113042906cf7.

Write paths note a scope's root when they resolve it (memoryd.sensitive.names does, with
the sealing a sensitive scope needs); this module is the table's SQL and the naming
rules over a plain sqlite3 connection, standard library only, so the cold CLI
(memoryd.reader) names projects without SQLAlchemy. The display name is worked out when
read: a folder's name, and when two projects share it, the part of their parents' paths
that tells them apart.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

WITHHELD = "sensitive project"  # English label; the desktop words it with Qt translations


@dataclass(frozen=True)
class Project:
    """How to show a scope. `name` is empty when the hash was never seen here, or belongs
    to a sensitive scope whose name is sealed and not opened (`withheld`)."""

    scope_hash: str
    name: str
    root: str | None
    kind: str | None = None
    withheld: bool = False

    @property
    def label(self) -> str:
        """One line for text output: the name, or what stands in for it."""
        if self.name:
            return self.name
        if self.withheld:
            return self.withheld_label(self.scope_hash)
        return self.scope_hash

    @staticmethod
    def withheld_label(scope_hash: str) -> str:
        """What text output says for a sensitive project's name without a grant (a
        digest entry's `project`, say); the desktop words it in the user's language."""
        return f"{WITHHELD} {scope_hash}"

    def as_dict(self) -> dict[str, object]:
        return {
            "scope_hash": self.scope_hash,
            "name": self.name or None,
            "label": self.label,
            "root": self.root,
            "kind": self.kind,
            "withheld": self.withheld,
        }


@dataclass(frozen=True)
class Row:
    scope_hash: str
    name: str | None
    root: str | None
    kind: str
    sealed: str | None


def folder_name(root: str) -> str:
    """A project's own name: its folder's (a git scope's root is its main repository, so
    a linked worktree is named after the repository)."""
    name = os.path.basename(os.path.normpath(root))
    return name or root


def rows(con: sqlite3.Connection) -> list[Row]:
    try:
        got = con.execute("SELECT scope_hash, name, root, kind, sealed FROM project_names").fetchall()
    except sqlite3.OperationalError:  # an index from before migration 020
        return []
    return [Row(*r) for r in got]


def row(con: sqlite3.Connection, scope_hash: str) -> Row | None:
    got = con.execute(
        "SELECT scope_hash, name, root, kind, sealed FROM project_names WHERE scope_hash = ?", (scope_hash,)
    ).fetchone()
    return Row(*got) if got else None


def put_clear(con: sqlite3.Connection, scope_hash: str, root: str, kind: str, now: str) -> None:
    """The row in the clear (a plain scope, or one unmarked), replacing any sealed one."""
    con.execute(
        "INSERT INTO project_names (scope_hash, name, root, kind, sealed, seen_at) "
        "VALUES (?, ?, ?, ?, NULL, ?) ON CONFLICT (scope_hash) DO UPDATE SET name = excluded.name, "
        "root = excluded.root, kind = excluded.kind, sealed = NULL, seen_at = excluded.seen_at",
        (scope_hash, folder_name(root), root, kind, now),
    )


def put_sealed(con: sqlite3.Connection, scope_hash: str, kind: str, sealed: str, now: str) -> None:
    """A sensitive scope's row: name and root only inside `sealed`."""
    con.execute(
        "INSERT INTO project_names (scope_hash, name, root, kind, sealed, seen_at) "
        "VALUES (?, NULL, NULL, ?, ?, ?) ON CONFLICT (scope_hash) DO UPDATE SET name = NULL, "
        "root = NULL, kind = excluded.kind, sealed = excluded.sealed, seen_at = excluded.seen_at",
        (scope_hash, kind, sealed, now),
    )


def put_withheld(con: sqlite3.Connection, scope_hash: str, kind: str, now: str) -> None:
    """A scope below a sensitive root: no name and no root kept, since its path holds
    the sensitive folder's name (shown as withheld)."""
    con.execute(
        "INSERT INTO project_names (scope_hash, name, root, kind, sealed, seen_at) "
        "VALUES (?, NULL, NULL, ?, NULL, ?) ON CONFLICT (scope_hash) DO UPDATE SET name = NULL, "
        "root = NULL, kind = excluded.kind, sealed = NULL, seen_at = excluded.seen_at",
        (scope_hash, kind, now),
    )


def withhold_below(con: sqlite3.Connection, root: str, keep: str) -> int:
    """Marking `root` sensitive: every other clear row at or below it loses name and root."""
    below = [r for r in rows(con) if r.scope_hash != keep and r.root and is_within(r.root, root)]
    for r in below:
        con.execute(
            "UPDATE project_names SET name = NULL, root = NULL, sealed = NULL WHERE scope_hash = ?",
            (r.scope_hash,),
        )
    return len(below)


def is_within(path: str, root: str) -> bool:
    """`path` is `root` or below it (both absolute, as scopes resolve them)."""
    p, r = os.path.normpath(path), os.path.normpath(root)
    return p == r or p.startswith(r.rstrip(os.sep) + os.sep)


def describe(
    found: Iterable[Row],
    hashes: Iterable[str],
    *,
    opened: Mapping[str, str] | None = None,
    sensitive: Iterable[str] = (),
) -> dict[str, Project]:
    """A Project for each of `hashes`. `opened`: sealed rows' roots this caller may see
    (under a grant); `sensitive`: hashes whose clear row, if any, must not be shown (a
    scope marked since its row was written and not sealed yet)."""
    opened = opened or {}
    hidden = set(sensitive)
    roots: dict[str, tuple[str, str]] = {}  # hash -> (root, kind) of every nameable row
    sealed: set[str] = set()
    for r in found:
        if r.sealed is not None or r.scope_hash in hidden:
            sealed.add(r.scope_hash)
            if r.scope_hash in opened:
                roots[r.scope_hash] = (opened[r.scope_hash], r.kind)
        elif r.root:
            roots[r.scope_hash] = (r.root, r.kind)
        else:  # below a sensitive root: withheld (memoryd.sensitive.names)
            sealed.add(r.scope_hash)
    names = _disambiguated({h: root for h, (root, _) in roots.items()})
    out = {}
    for h in hashes:
        if h in roots:
            out[h] = Project(h, names[h], roots[h][0], roots[h][1])
        else:
            out[h] = Project(h, "", None, withheld=h in sealed or h in hidden)
    return out


def _disambiguated(roots: Mapping[str, str]) -> dict[str, str]:
    """Each root's folder name; where several share one, followed by what their parent
    paths do not share: /home/u/work/acme/api and /home/u/personal/api become
    "api (work/acme)" and "api (personal)"."""
    by_name: dict[str, list[str]] = {}
    for h, root in roots.items():
        by_name.setdefault(folder_name(root), []).append(h)
    out = {}
    for name, group in by_name.items():
        if len(group) == 1:
            out[group[0]] = name
            continue
        parents = {h: _parts(os.path.dirname(os.path.normpath(roots[h]))) for h in group}
        common = _common_prefix(list(parents.values()))
        for h in group:
            rest = parents[h][common:] or parents[h][-1:]
            out[h] = f"{name} ({'/'.join(rest)})" if rest else f"{name} ({roots[h]})"
        if len(set(out[h] for h in group)) < len(group):  # the same root under two hashes
            for h in group:
                out[h] = f"{out[h]} {h[:6]}"
    return out


def _parts(path: str) -> list[str]:
    return [p for p in path.replace("\\", "/").split("/") if p]


def _common_prefix(paths: list[list[str]]) -> int:
    n = 0
    shortest = min(len(p) for p in paths)
    while n < shortest and all(p[n] == paths[0][n] for p in paths):
        n += 1
    return n
