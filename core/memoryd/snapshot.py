"""The Layer 1 snapshot (seed 003): a scope's start-up context, rendered when it changes.

What goes in, in this order: who the user is (the identity profile's summary), the
constraints the agent should keep (preferences, warnings, decisions), the scope's other
key long-term memories, the last few sessions in a line each, and how to search for more.
Long-term memories are ranked by `score`, which weighs type, DURA quality, recall and
recency. The text is cut to the token budget (memoryd.inject.fit) before it is written,
so reading it back costs the agent's hook one file read.

A sensitive scope's snapshot is sealed with the scope key (`snapshot.md.enc`): its
plaintext exists only in memory, and only `memoryd inject` under a live grant opens it.
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from memoryd import atomic, clock, crypto, inject, quoting
from memoryd.errors import CorruptFile, KeyUnavailable, MemorydError
from memoryd.models import VISIBLE_STATES, MemoryType
from memoryd.paths import Layout
from memoryd.store import Store

# How much each type matters at the start of a session: a warning ignored costs most.
TYPE_WEIGHT = {
    MemoryType.warning.value: 1.0,
    MemoryType.decision.value: 0.95,
    MemoryType.preference.value: 0.9,
    MemoryType.playbook.value: 0.8,
    MemoryType.fact.value: 0.75,
}
CONSTRAINT_TYPES = (MemoryType.warning.value, MemoryType.preference.value, MemoryType.decision.value)
MAX_CONSTRAINTS = 12
MAX_KEY = 10
MAX_SESSIONS = 5
RECENCY_HALF_LIFE_DAYS = 30.0
GIST_CHARS = 200


def score(row: dict[str, Any], now: datetime) -> float:
    """Type weight x (base + DURA quality + recall + recency), dimmed memories at 60%,
    superseded ones at 30%.

    quality is the DURA mean (0.6 when never scored), recall saturates at 20 recalls,
    recency halves every 30 days since the memory was last recalled or changed."""
    weight = TYPE_WEIGHT.get(row["type"], 0.5)
    quality = row.get("dura_mean")
    quality = 0.6 if quality is None else float(quality)
    recall = min(1.0, math.log1p(int(row.get("recall_count") or 0)) / math.log1p(20))
    stamps = [row.get("last_recalled_at"), row.get("updated_at"), row.get("created_at")]
    last = max((clock.parse_ts(s) for s in stamps if s), default=now)
    age = max(0.0, (now - last).total_seconds() / 86400)
    recency = 0.5 ** (age / RECENCY_HALF_LIFE_DAYS)
    value = weight * (0.45 + 0.2 * quality + 0.2 * recall + 0.15 * recency)
    if row.get("superseded_by"):  # kept for history, below what replaced it
        value *= 0.3
    return value * (0.6 if row.get("decay_state") == "dim" else 1.0)


@dataclass(frozen=True)
class Picked:
    rows: list[dict[str, Any]]
    constraints: list[dict[str, Any]]
    key: list[dict[str, Any]]
    sessions: list[dict[str, Any]]
    long_term: int
    session_count: int


def pick(rows: Iterable[dict[str, Any]], now: datetime) -> Picked:
    all_rows = list(rows)
    lt = [r for r in all_rows if r["type"] != MemoryType.session.value]
    sessions = [r for r in all_rows if r["type"] == MemoryType.session.value]
    ranked = sorted(lt, key=lambda r: (-score(r, now), r["slug"]))
    # A superseded preference or decision is no longer one to keep.
    constraints = [r for r in ranked if r["type"] in CONSTRAINT_TYPES and not r.get("superseded_by")]
    constraints = constraints[:MAX_CONSTRAINTS]
    chosen = {r["slug"] for r in constraints}
    key = [r for r in ranked if r["slug"] not in chosen][:MAX_KEY]
    sessions.sort(key=lambda r: (r["created_at"], r["slug"]), reverse=True)
    return Picked(all_rows, constraints, key, sessions[:MAX_SESSIONS], len(lt), len(sessions))


def _gist(body: str) -> str:
    """The first line of prose in a body: headings, blank lines and list markers skipped."""
    for line in body.splitlines():
        text = line.strip().lstrip("-*> ").strip()
        if text and not text.startswith("#"):
            flat = " ".join(text.split())
            return flat if len(flat) <= GIST_CHARS else flat[: GIST_CHARS - 1] + "…"
    return ""


def _n(count: int, noun: str) -> str:
    if count == 1:
        return f"1 {noun}"
    return f"{count} {noun[:-1]}ies" if noun.endswith("y") else f"{count} {noun}s"


def render(store: Store, scope_hash: str, *, budget: int = inject.DEFAULT_BUDGET) -> str | None:
    """The snapshot text of a scope, cut to `budget`; None when it holds no visible memory."""
    # A suspect memory (memoryd.suspect_doc) waits for a person before any agent sees it here.
    rows = [r for r in store.list(scopes=[scope_hash], states=list(VISIBLE_STATES)) if not r.get("suspect")]
    if not rows:
        return None
    now = clock.now()
    p = pick(rows, now)

    def line(row: dict[str, Any], *, gist: bool = True) -> str | None:
        """One entry as memoryd.quoting shows memories: provenance, then the quoted text."""
        try:
            doc, _ = store.read(row["slug"])
        except (CorruptFile, KeyUnavailable, MemorydError):
            return None
        title = " ".join(doc.meta.title.split())
        first = _gist(doc.body) if gist else ""
        text = title if not first or first.rstrip(".") == title.rstrip(".") else f"{title}: {first}"
        prov = quoting.of_meta(doc.meta)
        if row.get("superseded_by"):
            prov = replace(prov, type=f"{prov.type}, superseded")
        return quoting.line(prov, text)

    constraints = [ln for r in p.constraints if (ln := line(r))]
    key = [ln for r in p.key if (ln := line(r))]
    sessions = [ln for r in p.sessions if (ln := line(r, gist=False))]

    out = [
        "# Memory for this project",
        f"Updated {clock.iso(now)[:16].replace('T', ' ')} UTC from {_n(p.long_term, 'long-term memory')} "
        f"and {_n(p.session_count, 'session')}.",
        quoting.NOTE,
    ]
    for title, lines in (
        ("## About the user", inject.identity_lines(str(store.layout.home))),
        ("## Constraints", constraints),
        ("## Key memories", key),
        ("## Recent sessions", sessions),
        ("## More", [inject.MORE]),
    ):
        if lines:
            out += ["", title, *lines]
    return inject.fit("\n".join(out) + "\n", budget)


# -- on disk ---------------------------------------------------------------------------
def _dir(layout: Layout, scope_hash: str) -> Path:
    return layout.scope_dir(scope_hash)


def mark_stale(layout: Layout, scope_hash: str) -> None:
    """Called on every write to a scope: the next reader (or the writer's own refresh)
    renders again. A marker file, so a writer that stops before refreshing still leaves
    the next `inject` knowing the file is out of date."""
    folder = _dir(layout, scope_hash)
    if folder.is_dir():
        with contextlib.suppress(OSError):
            (folder / inject.STALE).touch(mode=0o600)


def refresh(store: Store, scope_hash: str) -> str | None:
    """Render and write one scope's snapshot; returns the text (None: nothing to show, and
    the empty snapshot is written so the hook does not render again at every start).

    One refresher per scope at a time (a file lock), so an older render never lands after a
    newer one. The stale marker is claimed (renamed) before rendering: a write that lands
    while we render leaves a new marker, and the next reader renders again. Claims that a
    killed refresher left behind are ours to finish, and go with our successful write."""
    from filelock import FileLock

    folder = _dir(store.layout, scope_hash)
    if not folder.is_dir():
        return None
    with FileLock(str(folder / ".snapshot.lock"), timeout=60):
        marker, claimed = folder / inject.STALE, folder / f"{inject.STALE}.{os.getpid()}"
        had_marker = False
        with contextlib.suppress(FileNotFoundError):
            os.replace(marker, claimed)
            had_marker = True
        leftovers = [p for p in folder.glob(f"{inject.STALE}.*") if p != claimed]
        # The state file, not the key cache: another process may have marked the scope
        # since this one read its settings, and then nothing may be written in plaintext.
        sensitive = (folder / inject.SENSITIVE_STATE).exists()
        if sensitive and not store.keys.sensitive(scope_hash):
            store.keys.forget(scope_hash)
        if not sensitive and (store.keys.sensitive(scope_hash) or store.keys.settings_lost(scope_hash)):
            # its settings file gone, while this process still holds the key (a review,
            # 2026-11-28, had the MCP server render the scope into a plain snapshot.md), or
            # while the keyring says it was marked here: nothing is rendered in the clear
            if had_marker:
                with contextlib.suppress(OSError):
                    os.replace(claimed, marker)
            return None
        try:
            text = render(store, scope_hash)
            body = text if text is not None else _empty(store.layout)
            plain, sealed = folder / inject.SNAPSHOT, folder / inject.SNAPSHOT_ENC
            if sensitive:
                data = crypto.seal(
                    store.keys.get(scope_hash),
                    body.encode("utf-8"),
                    scope_hash=scope_hash,
                    slug="snapshot",
                    kind="snapshot",
                )
                plain.unlink(missing_ok=True)
                atomic.write_bytes(sealed, data)
            else:
                atomic.write_text(plain, body)
                sealed.unlink(missing_ok=True)
        except BaseException:
            if had_marker:
                with contextlib.suppress(OSError):
                    os.replace(claimed, marker)
            raise
        for done in [claimed, *leftovers]:
            done.unlink(missing_ok=True)
    return text


def refresh_changed(store: Store) -> list[str]:
    """Render every scope this Store wrote to; a scope whose key is out of reach keeps
    its stale marker for a later reader with the key."""
    done = []
    for scope_hash in sorted(store.changed_scopes):
        try:
            refresh(store, scope_hash)
        except KeyUnavailable:
            continue
        done.append(scope_hash)
    store.changed_scopes.clear()
    return done


def _scope_dirs(layout: Layout) -> list[Path]:
    root = layout.scopes
    return [f for f in sorted(root.iterdir()) if f.is_dir() and len(f.name) == 12] if root.exists() else []


def mark_all_stale(layout: Layout) -> None:
    """Every scope needs a new render (the identity profile, in each, changed)."""
    for folder in _scope_dirs(layout):
        mark_stale(layout, folder.name)


def stale_scopes(layout: Layout) -> list[str]:
    """Scopes whose stale marker is set, or was claimed by a refresher that died: written
    to since their snapshot was rendered, by this process or one that was killed."""
    return [f.name for f in _scope_dirs(layout) if next(f.glob(f"{inject.STALE}*"), None)]


def refresh_all(store: Store) -> int:
    """Every scope on disk (after a reindex, or when the identity profile changes)."""
    count = 0
    for folder in _scope_dirs(store.layout):
        with contextlib.suppress(KeyUnavailable):
            refresh(store, folder.name)
            count += 1
    return count


def _empty(layout: Layout) -> str:
    return inject.fit(inject.empty_snapshot(str(layout.home)), inject.DEFAULT_BUDGET)


def render_now(scope_hash: str) -> str:
    """The inject slow path: the file was missing or stale."""
    from memoryd import paths

    layout = paths.layout()
    text = refresh(Store.open(layout), scope_hash)
    return text if text is not None else _empty(layout)


def read_sensitive(scope_hash: str, *, actor: str = "inject") -> str:
    """A sensitive scope's snapshot, for a caller that found a live grant: the gate
    checks again and audits the read; the sealed file is opened in memory."""
    from memoryd import paths
    from memoryd.sensitive import gate

    layout = paths.layout()
    store = Store.open(layout)
    gate.check_or_raise(store, scope_hash, actor=actor, what="snapshot")
    folder = _dir(layout, scope_hash)
    sealed = folder / inject.SNAPSHOT_ENC
    if (folder / inject.STALE).exists() or not sealed.exists():
        text = refresh(store, scope_hash)
        return text if text is not None else _empty(layout)
    data = crypto.open_sealed(
        store.keys.get(scope_hash),
        sealed.read_bytes(),
        scope_hash=scope_hash,
        slug="snapshot",
        kind="snapshot",
        where=str(sealed),
    )
    return data.decode("utf-8")
