"""memoryd.sync.merge is a join: generated device states (random version DAGs per memory,
each device knowing a random subset of the versions, plus recall counters, decay
registers, scope settings and links) merge to the same state in any order, any grouping,
any number of times, and the merge keeps every version no other known version descends
from."""

from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import dataclass

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memoryd import crypto
from memoryd.sync import document, merge
from memoryd.sync.document import DECAY_ORDER, Decay, Entry, Head, State

DEVICES = ("dev-a", "dev-b", "dev-c")
SLUGS = ("2026-01-01-alpha-0a0a", "2026-01-01-beta-0b0b", "promoted-3-gamma", "sess-d")
SCOPES = ("aaaaaaaaaaaa", "bbbbbbbbbbbb", "cccccccccccc")
# Few distinct instants, so equal updated_at (the rev breaks the tie) happens often.
TIMES = tuple(f"2026-05-0{d}T10:00:00Z" for d in range(1, 5))
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def dumps(state: State) -> str:
    return document.dumps(state, device=None, exported_at="x")


@dataclass(frozen=True)
class Version:
    """One node of a memory's version DAG, as every device that has it knows it."""

    rev: str
    history: frozenset[str]
    updated_at: str
    deleted: bool
    encrypted: bool
    scope_hash: str
    type: str


@st.composite
def version_dag(draw: st.DrawFn, slug: str) -> list[Version]:
    """Versions in creation order; each new one descends from a random set of earlier
    ones (none: another device's first version of the slug), and its history is the union
    of its parents' revs and histories."""
    n = draw(st.integers(1, 6))
    versions: list[Version] = []
    for i in range(n):
        parents = draw(st.sets(st.integers(0, i - 1), max_size=3)) if i else set()
        history = frozenset(r for p in parents for r in (versions[p].rev, *versions[p].history))
        versions.append(
            Version(
                rev=hashlib.md5(f"{slug}/{i}".encode()).hexdigest(),
                history=history,
                updated_at=draw(st.sampled_from(TIMES)),
                deleted=draw(st.booleans()) if i else False,
                encrypted=draw(st.booleans()),
                scope_hash=draw(st.sampled_from(SCOPES)),
                type=draw(st.sampled_from(("fact", "decision", "session"))),
            )
        )
    return versions


def _turns(v: Version) -> str:
    text = f"turns of {v.rev}"
    return crypto.b64(text.encode()) if v.encrypted else text


def head(v: Version, device: str) -> Head:
    """A device's copy of a version. A sealed version's ciphertext differs per device (it
    was sealed twice); a plain version's content is the same everywhere (rev = content)."""
    if v.deleted:
        content = None
    elif v.encrypted:
        content = crypto.b64(f"sealed {v.rev} on {device}".encode())
    else:
        content = f"---\ntitle: {v.rev}\n---\nbody of {v.rev}\n"
    return Head(
        rev=v.rev,
        history=tuple(sorted(v.history)),
        updated_at=v.updated_at,
        scope_hash=v.scope_hash,
        type=v.type,
        deleted=v.deleted,
        encrypted=v.encrypted and not v.deleted,
        content=content,
        turns=None if v.deleted or v.type != "session" else _turns(v),
    )


times = st.sampled_from(TIMES)
decays = st.none() | st.builds(Decay, st.sampled_from(sorted(DECAY_ORDER)), times)
recalls = st.dictionaries(st.sampled_from(DEVICES), st.integers(0, 9), max_size=3)


def _settings(marked_at: str, key: int) -> dict[str, object]:
    """A scope's sensitivity settings as a device writes them (Settings.as_dict's order):
    the key check follows from the key, so one key check is one set of settings."""
    return {"root": "/work/payroll", "marked_at": marked_at, "key_source": "random", "key_check": f"k{key}"}


sensitive = st.none() | st.builds(_settings, times, st.integers(1, 2))
remotes = st.none() | st.sampled_from(("github.com/acme/app", "gitlab.com/acme/app"))
proofs = st.none() | st.sampled_from(("1f" * 32, "a0" * 32))
links = st.sets(st.sampled_from(list(itertools.combinations(SCOPES, 2))))


@st.composite
def worlds(draw: st.DrawFn) -> tuple[dict[str, list[Version]], list[State]]:
    """Every slug's version DAG, and three devices' states built from subsets of it."""
    dags = {slug: draw(version_dag(slug)) for slug in draw(st.sets(st.sampled_from(SLUGS), min_size=1))}
    states = []
    for dev in DEVICES:
        state = State()
        for slug, versions in dags.items():
            known = draw(st.sets(st.sampled_from(versions)))
            if not known:
                continue
            state.memories[slug] = Entry(
                heads=tuple(sorted((head(v, dev) for v in known), key=lambda h: h.rev)),
                recalls=draw(recalls),
                last_recalled_at=draw(st.none() | times),
                decay=draw(decays),
            )
        for h in draw(st.sets(st.sampled_from(SCOPES))):
            unmarked = draw(st.none() | times)
            state.scopes[h] = {
                "sensitive": draw(sensitive),
                "unmarked_at": unmarked,
                "unmark_proof": draw(proofs) if unmarked else None,
                "remote": draw(remotes),
            }
        state.links = draw(links)
        states.append(state)
    return dags, states


def _maximal(states: list[State], slug: str) -> set[str]:
    known = {h.rev: h for s in states for h in (s.memories[slug].heads if slug in s.memories else ())}
    below = {r for h in known.values() for r in h.history}
    return set(known) - below


@SETTINGS
@given(worlds())
def test_commutative(world):
    _, parts = world
    results = {dumps(merge.states(p)) for p in itertools.permutations(parts)}
    assert len(results) == 1


@SETTINGS
@given(worlds())
def test_associative(world):
    _, (a, b, c) = world
    flat = dumps(merge.states([a, b, c]))
    assert dumps(merge.states([merge.states([a, b]), c])) == flat
    assert dumps(merge.states([a, merge.states([b, c])])) == flat
    assert dumps(merge.states([merge.states([a, c]), b])) == flat
    assert dumps(merge.states([merge.states([c, b]), merge.states([a])])) == flat


@SETTINGS
@given(worlds())
def test_idempotent(world):
    _, (a, b, c) = world
    for x in (a, b, c):
        normal = dumps(merge.states([x]))
        assert dumps(merge.states([x, x])) == normal
        assert dumps(merge.states([merge.states([x])])) == normal
    ab = merge.states([a, b])
    assert dumps(merge.states([ab, b])) == dumps(ab)
    assert dumps(merge.states([ab, a, ab])) == dumps(ab)
    abc = merge.states([a, b, c])
    assert dumps(merge.states([abc, merge.states([b, c]), a])) == dumps(abc)


@SETTINGS
@given(worlds())
def test_no_newest_version_is_lost(world):
    """The heads are exactly the versions no other known version descends from; every
    version a device knew is a head or in a head's history."""
    dags, parts = world
    merged = merge.states(parts)
    for slug in dags:
        present = [s for s in parts if slug in s.memories]
        if not present:
            assert slug not in merged.memories
            continue
        entry = merged.memories[slug]
        assert {h.rev for h in entry.heads} == _maximal(parts, slug)
        covered = {r for h in entry.heads for r in (h.rev, *h.history)}
        for s in present:
            for h in s.memories[slug].heads:
                assert h.rev in covered and set(h.history) <= covered


@SETTINGS
@given(worlds())
def test_winner_and_counters_do_not_depend_on_order(world):
    _, parts = world
    orders = list(itertools.permutations(parts))
    merged = [merge.states(p) for p in orders]
    for slug in merged[0].memories:
        winners = {m.memories[slug].winner for m in merged}
        assert len(winners) == 1
        (w,) = winners
        heads = merged[0].memories[slug].heads
        assert (w.updated_at, w.rev) == max((h.updated_at, h.rev) for h in heads)
        # Recalls are a counter per device: each device's highest count, summed.
        want = sum(
            max((s.memories[slug].recalls.get(d, 0) for s in parts if slug in s.memories), default=0)
            for d in DEVICES
        )
        assert {m.memories[slug].recall_count for m in merged} == {want}
        seen = [s.memories[slug].last_recalled_at for s in parts if slug in s.memories]
        assert merged[0].memories[slug].last_recalled_at == max((t for t in seen if t), default=None)
        decays = [s.memories[slug].decay for s in parts if slug in s.memories and s.memories[slug].decay]
        got = merged[0].memories[slug].decay
        assert got == (max(decays, key=Decay.key) if decays else None)
    for m in merged:
        assert m.links == set().union(*(p.links for p in parts))
    # Scopes: the latest marking and the latest unmarking, whichever is later in force; a
    # remote once known stays known.
    for h in {h for p in parts for h in p.scopes}:
        infos = [p.scopes[h] for p in parts if h in p.scopes]
        got = merged[0].scopes[h]
        marks = [i["sensitive"] for i in infos if i["sensitive"]]
        want_mark = max(marks, key=lambda x: (x["marked_at"], x["key_check"])) if marks else None
        assert got["sensitive"] == want_mark
        unmarks = [(i["unmarked_at"], i["unmark_proof"] or "") for i in infos if i["unmarked_at"]]
        last = max(unmarks, default=None)
        assert got["unmarked_at"] == (last[0] if last else None)
        assert got["unmark_proof"] == ((last[1] or None) if last else None)  # the proof of that one
        assert got["remote"] == min((i["remote"] for i in infos if i["remote"]), default=None)
        assert len({str(merge.sensitive_now(m.scopes[h])) for m in merged}) == 1


@SETTINGS
@given(worlds())
def test_document_round_trip(world):
    """What a device writes to the folder is read back as the same state."""
    _, parts = world
    for state in (*parts, merge.states(parts)):
        text = dumps(state)
        again = document.parse(json.loads(text), where="t")
        assert dumps(again) == text
