"""Linking scopes in the store: `memoryd scope link`, the automatic link of two clones of
one git repository, and moving a linked scope's memories under the hash they now share
(memoryd.scope_links holds the map itself)."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from typing import Any

from sqlalchemy import text

from memoryd import inject, scope_links
from memoryd.db.engine import write_session
from memoryd.errors import CorruptFile, UsageError
from memoryd.paths import Layout
from memoryd.scope import Scope
from memoryd.sensitive import state as sensitive_state
from memoryd.store import Store, governance

HASH = re.compile(r"^[0-9a-f]{12}$")


def _canonical(layout: Layout, links: scope_links.Links) -> dict[str, str]:
    mapping = links.canonical_map(exclude=sensitive_state.sensitive_hashes(layout))
    scope_links.save(layout.home, links, mapping)
    return mapping


def seen(layout: Layout, scope: Scope, store: Callable[[], Store] | None = None) -> Scope:
    """A scope as memoryd stores it. The first time a git scope is seen its origin remote
    is noted; if another scope has the same one, the two are linked now."""
    if scope.kind == "git":
        links = scope_links.load(layout.home)
        if scope.hash not in links.remotes:
            url = scope_links.origin_of(scope.root) or ""
            before = links.canonical_map(exclude=sensitive_state.sensitive_hashes(layout))
            links.remotes[scope.hash] = url
            after = _canonical(layout, links)
            if after != before and store is not None:
                rehome(store(), after)
    mapped = scope_links.apply(layout.home, scope)
    if mapped.hash != scope.hash and store is not None:
        keys = store().keys
        if keys.sensitive(scope.hash) or keys.settings_lost(scope.hash):
            # never joined to another hash, whatever scope-links.json says: a review
            # (2026-11-28) linked a scope whose settings it had deleted to a hash of its
            # own, and the project's next sessions were written there in the clear
            return scope
    return mapped


def link(store: Store, a: str, b: str, *, actor: str = "cli") -> dict[str, Any]:
    for h in (a, b):
        if not HASH.match(h):
            raise UsageError(f"{h!r} is not a scope hash (12 hex digits; `memoryd scope PATH` prints one)")
    if a == b:
        raise UsageError("a scope cannot be linked to itself")
    sensitive = sensitive_state.sensitive_hashes(store.layout)
    for h in (a, b):
        if h in sensitive or store.keys.settings_lost(h):
            raise UsageError(
                f"scope {h} is sensitive: its files are sealed to its own hash and cannot be linked"
            )
    links = scope_links.load(store.layout.home)
    links.links.add((min(a, b), max(a, b)))
    mapping = _canonical(store.layout, links)
    moved = rehome(store, mapping)
    target = mapping.get(a, a)
    store.audit.append(
        "scope_link", actor=actor, scope_hash=target, details={"linked": sorted((a, b)), "moved": moved}
    )
    return {
        "scope_hash": target,
        "aliases": sorted(k for k, v in mapping.items() if v == target),
        "moved": moved,
    }


def rehome(store: Store, mapping: dict[str, str]) -> int:
    """Move every memory of an alias scope under its canonical hash (files, rows, queued
    promotions). Repeatable: a move cut short is finished by the next call."""
    files = store.files
    moved = 0
    for alias, target in sorted(mapping.items()):
        folder = store.layout.scope_dir(alias)
        if not folder.is_dir() or files.sensitive(alias) or files.sensitive(target):
            continue
        with write_session(store.engine) as s:
            for path in list(files.all_files(alias, archived=True)):
                try:
                    doc = files.read(path)
                except CorruptFile:
                    continue
                turns = files.read_turns(path)
                doc.meta.scope_hash = target
                new = files.write(doc)
                if turns:
                    files.write_turns(new, turns)
                files.remove(path)
                if new.parent.name == "forgotten":
                    governance.delete_memory(s, doc.meta.slug)
                else:
                    store._index(s, doc, new, turns)
                moved += 1
            s.exec(
                text("UPDATE promotions SET scope_hash = :t WHERE scope_hash = :a"),
                params={"t": target, "a": alias},
            )
            # The alias is no project of its own any more: its name would only make the
            # target's look ambiguous ("app (laptop)" beside an "app (desktop)" never shown).
            s.exec(text("DELETE FROM project_names WHERE scope_hash = :a"), params={"a": alias})
        for name in ("snapshot.md", inject.STALE):
            with contextlib.suppress(FileNotFoundError):
                (folder / name).unlink()
        store.changed(target)
    return moved
