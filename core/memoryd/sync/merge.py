"""The merge: a join, so any devices' states merged in any order, any number of times,
give the same result. Heads are the newest versions known (a head whose rev another head
descends from is dropped, its history folded into the descendant so that what it
dominated stays dominated); counters merge per device (recalls) or by time (decay)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from memoryd.sync.document import Decay, Entry, Head, State


def _same_rev(a: Head, b: Head) -> Head:
    """Two copies of one version: histories unite; anything else that differs (a sealed
    version sealed twice) is settled the same way everywhere."""
    history = tuple(sorted(set(a.history) | set(b.history)))
    keep = min((a, b), key=lambda h: (h.content or "", h.turns or "", h.updated_at, h.encrypted))
    return Head(**{**keep.__dict__, "history": history})


def heads(all_heads: Iterable[Head]) -> tuple[Head, ...]:
    by_rev: dict[str, Head] = {}
    for h in all_heads:
        by_rev[h.rev] = _same_rev(by_rev[h.rev], h) if h.rev in by_rev else h
    # Fold: until nothing changes, a dominated head's history joins its dominator's.
    live = dict(by_rev)
    changed = True
    while changed:
        changed = False
        for rev, h in sorted(live.items()):
            owners = [g for g in live.values() if g.rev != rev and rev in g.history]
            if not owners:
                continue
            for g in owners:
                extra = set(h.history) - set(g.history)
                if extra:
                    live[g.rev] = Head(**{**g.__dict__, "history": tuple(sorted(set(g.history) | extra))})
            del live[rev]
            changed = True
            break
    return tuple(sorted(live.values(), key=lambda h: h.rev))


def _later(a: str | None, b: str | None) -> str | None:
    if a is None:
        return b
    if b is None:
        return a
    return max(a, b)


def _decay(a: Decay | None, b: Decay | None) -> Decay | None:
    if a is None:
        return b
    if b is None:
        return a
    return max(a, b, key=Decay.key)


def entry(a: Entry, b: Entry) -> Entry:
    recalls = dict(a.recalls)
    for dev, n in b.recalls.items():
        recalls[dev] = max(recalls.get(dev, 0), n)
    return Entry(
        heads=heads([*a.heads, *b.heads]),
        recalls=recalls,
        last_recalled_at=_later(a.last_recalled_at, b.last_recalled_at),
        decay=_decay(a.decay, b.decay),
    )


def _scope(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Sensitivity: the latest marking (then the larger key check, then the one whose
    folder is sealed rather than in the clear) and the latest unmarking with its proof
    (memoryd.sensitive.state.unmark_proof; then the larger proof) are each kept; whichever
    is later is in force (`sensitive_now`), an unmarking only where its proof holds
    (memoryd.sync.local.apply_scopes). A remote once known stays known."""
    sens = [s for s in (a.get("sensitive"), b.get("sensitive")) if s]

    def order(s: dict[str, Any]) -> tuple[str, str, bool]:
        return str(s.get("marked_at")), str(s.get("key_check")), bool(s.get("sealed_root"))

    chosen = max(sens, key=order) if sens else None
    unmarked = [
        (str(x["unmarked_at"]), str(x.get("unmark_proof") or "")) for x in (a, b) if x.get("unmarked_at")
    ]
    last = max(unmarked) if unmarked else None
    remotes = [r for r in (a.get("remote"), b.get("remote")) if r]
    return {
        "sensitive": chosen,
        "unmarked_at": last[0] if last else None,
        "unmark_proof": (last[1] or None) if last else None,
        "remote": min(remotes) if remotes else None,
    }


def sensitive_now(info: dict[str, Any]) -> dict[str, Any] | None:
    """The scope's settings if it is sensitive now (marked after any unmarking)."""
    s = info.get("sensitive")
    if not s:
        return None
    unmarked = info.get("unmarked_at")
    return s if not unmarked or str(s.get("marked_at", "")) > str(unmarked) else None


def states(parts: Iterable[State]) -> State:
    out = State()
    for part in parts:
        for slug, e in part.memories.items():
            out.memories[slug] = entry(out.memories[slug], e) if slug in out.memories else _normal(e)
        for h, info in part.scopes.items():
            out.scopes[h] = _scope(out.scopes[h], info) if h in out.scopes else _scope(info, {})
        out.links |= part.links
    return out


def _normal(e: Entry) -> Entry:
    """One state on its own, in the form a merge gives (idempotence: merging it with
    itself changes nothing)."""
    return Entry(
        heads=heads(e.heads), recalls=dict(e.recalls), last_recalled_at=e.last_recalled_at, decay=e.decay
    )
