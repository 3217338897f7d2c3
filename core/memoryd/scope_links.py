"""Scope links (seed 001's caveat): one project checked out at /Users/a/foo on one machine
and /home/a/foo on another has two scope hashes. Linked hashes are one scope whose hash is
the smallest of them; `scope-links.json` in the data directory holds the links, the git
remote each scope was seen with (the same normalised origin URL links two scopes by
itself) and the resulting alias -> canonical map. Standard library only: the agent hook's
fast path reads the map."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from memoryd import atomic

if TYPE_CHECKING:
    from memoryd.scope import Scope

FILE = "scope-links.json"
_SCP = re.compile(r"^(?:[^@/]+@)?([^:/]+):(?!//)(.*)$")  # git@host:owner/repo


@dataclass
class Links:
    links: set[tuple[str, str]] = field(default_factory=set)
    remotes: dict[str, str] = field(default_factory=dict)

    def canonical_map(self, *, exclude: set[str] | frozenset[str] = frozenset()) -> dict[str, str]:
        """alias -> canonical over the links and the shared remotes; scopes in `exclude`
        (sensitive ones: their files are sealed to their own hash) never join."""
        parent: dict[str, str] = {}

        def find(x: str) -> str:
            parent.setdefault(x, x)
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        def union(a: str, b: str) -> None:
            if a in exclude or b in exclude:
                return
            ra, rb = find(a), find(b)
            if ra != rb:
                parent[max(ra, rb)] = min(ra, rb)

        for a, b in sorted(self.links):
            union(a, b)
        by_remote: dict[str, list[str]] = {}
        for h, url in self.remotes.items():
            if url:  # "" notes a repository without an origin: it links to nothing
                by_remote.setdefault(url, []).append(h)
        for hashes in by_remote.values():
            first, *rest = sorted(hashes)
            for h in rest:
                union(first, h)
        return {h: find(h) for h in sorted(parent) if find(h) != h}


def path(home: str | os.PathLike[str]) -> str:
    return os.path.join(os.fspath(home), FILE)


def load(home: str | os.PathLike[str]) -> Links:
    try:
        with open(path(home), encoding="utf-8") as f:
            raw = json.load(f)
        links = {(str(a), str(b)) for a, b in raw.get("links", [])}
        remotes = {str(k): str(v) for k, v in raw.get("remotes", {}).items()}
        return Links({tuple(sorted(p)) for p in links}, remotes)  # type: ignore[misc]
    except FileNotFoundError:
        return Links()
    except (OSError, ValueError, TypeError, AttributeError):
        return Links()  # a damaged file links nothing; `memoryd scope link` rewrites it


def save(home: str | os.PathLike[str], links: Links, canonical: dict[str, str]) -> None:
    data = {
        "version": 1,
        "links": [list(p) for p in sorted(links.links)],
        "remotes": dict(sorted(links.remotes.items())),
        "canonical": dict(sorted(canonical.items())),
    }
    atomic.write_text(path(home), json.dumps(data, indent=2) + "\n")


def mapping(home: str | os.PathLike[str]) -> dict[str, str]:
    """alias -> canonical as last saved."""
    try:
        with open(path(home), encoding="utf-8") as f:
            found = json.load(f).get("canonical", {})
        return {str(k): str(v) for k, v in found.items()} if isinstance(found, dict) else {}
    except (OSError, ValueError, AttributeError):
        return {}


def canonical(home: str | os.PathLike[str], scope_hash: str) -> str:
    """The hash memories of `scope_hash` live under (itself unless linked)."""
    return mapping(home).get(scope_hash, scope_hash)


def apply(home: str | os.PathLike[str], scope: Scope) -> Scope:
    h = canonical(home, scope.hash)
    return scope if h == scope.hash else replace(scope, hash=h)


def normalise_remote(url: str) -> str | None:
    """One spelling per repository: scheme, user, port, `.git` and a trailing slash
    dropped, host lower-cased. https://github.com/A/b.git, git@github.com:A/b and
    ssh://git@github.com:22/A/b all give github.com/A/b. Local paths are not remotes."""
    u = url.strip()
    if not u or re.match(r"^[A-Za-z]:[\\/]", u):  # empty, or a Windows drive path: local
        return None
    m = re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*://(?:[^@/]*@)?([^/:]+)(?::\d+)?/(.*)$", u)
    if m:
        host, rest = m.group(1), m.group(2)
    else:
        m = _SCP.match(u)
        if not m or "/" in m.group(1):
            return None
        host, rest = m.group(1), m.group(2)
    rest = rest.strip("/")
    if rest.endswith(".git"):
        rest = rest[:-4]
    if not rest:
        return None
    return f"{host.lower()}/{rest}"


def origin_of(root: Path) -> str | None:
    import subprocess

    try:
        out = subprocess.run(
            ["git", "-C", str(root), "config", "--get", "remote.origin.url"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return normalise_remote(out.stdout) if out.returncode == 0 else None
