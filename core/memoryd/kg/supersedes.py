"""Which decisions replace which (seed 001 section 5). A new preference, decision or fact
is compared with the older ones of its scope that name the same entities (or another
entity filling the same slot, such as a second frontend framework): judged by the LLM
prompt judge_supersedes, or by the rules when there is no LLM. At or above
`supersede_auto` the old memory is superseded at once; from `supersede_review` it waits
in the digest for `memoryd supersede confirm|dismiss ID`; below, nothing happens.

A superseded memory is kept: `superseded_by` on it, `supersedes` on its successor, a row
in supersedes_chain. Search and the start-up snapshot rank it below its successor."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from memoryd import clock
from memoryd.config import Config
from memoryd.db.engine import read_session, write_session
from memoryd.errors import CorruptFile, KeyUnavailable, NotFound, UsageError
from memoryd.frontmatter import Document
from memoryd.kg import extract, lexicon, subject
from memoryd.kg.extract import POSITIVE, Extraction, family
from memoryd.models import VISIBLE_STATES, MemoryType
from memoryd.store import Store
from memoryd.store import kg as sql
from memoryd.store.writelock import serialised

JUDGED_TYPES = (MemoryType.preference.value, MemoryType.decision.value, MemoryType.fact.value)
# Older memories fetched for the rules (the LLM sees config.knowledge.max_candidates).
RULES_POOL = 20
BODY_CHARS = 700
RULE_EXPLICIT = 0.9
RULE_LIKELY = 0.6


@dataclass
class Judgement:
    older: str
    confidence: float
    reason: str
    entity: str | None = None
    outcome: str = ""  # superseded | pending | ignored
    pending_id: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Check:
    judged_by: str = ""
    judgements: list[Judgement] = field(default_factory=list)
    note: str = ""


@dataclass(frozen=True)
class Candidate:
    slug: str
    type: str
    created_at: str
    relations: list[tuple[str, str]]
    shared: int
    title: str = ""
    # What the old memory is about (kg.subject): from its title, else its body.
    subjects: tuple[subject.Subject, ...] = ()


# -- candidates ---------------------------------------------------------------------------
def neighbourhood(ex: Extraction) -> list[str]:
    """The new memory's entities, and every curated entity filling the same slot as one."""
    ids = dict.fromkeys(ex.ids())
    for f in ex.found:
        if f.category:
            ids.update(dict.fromkeys(lexicon.siblings(f.category)))
    return list(ids)


def candidates(store: Store, doc: Document, ex: Extraction, hints: Sequence[str] = ()) -> list[Candidate]:
    m = doc.meta
    ids = neighbourhood(ex)
    before = clock.iso(m.created_at)
    skip = {m.slug, *m.supersedes}
    if store.keys.sensitive(m.scope_hash):
        return _on_subject(ex, _sealed_candidates(store, doc, ids, skip, hints), hints)
    with read_session(store.engine) as s:
        rows = sql.candidates(
            s,
            scope_hash=m.scope_hash,
            entity_ids=ids,
            types=JUDGED_TYPES,
            exclude=m.slug,
            before=before,
            limit=RULES_POOL,
        )
        extra = [h for h in hints if h not in {r["slug"] for r in rows}]
        for slug in extra:
            r = _hint_row(s, slug, m.scope_hash)
            if r is not None:
                rows.insert(0, r)
        rels = sql.relations_from(s, [r["slug"] for r in rows])
    out = []
    for r in rows:
        if r["slug"] in skip:
            continue
        relations = rels.get(r["slug"], [])
        about = _about(store, r["slug"], r["title"], relations)
        out.append(
            Candidate(r["slug"], r["type"], r["created_at"], relations, int(r["shared"]), r["title"], about)
        )
    return _on_subject(ex, out, hints)


def _names(relations: Sequence[tuple[str, str]]) -> list[str]:
    out = []
    for _, eid in relations:
        known = lexicon.by_id().get(eid)
        out.extend((known.name, *known.aliases) if known else [lexicon.split_id(eid)[1]])
    return out


def _about(
    store: Store, slug: str, title: str, relations: Sequence[tuple[str, str]], body: str | None = None
) -> tuple[subject.Subject, ...]:
    """An older memory's subjects: its title's, else its body's (read only then)."""
    names = _names(relations)
    found = subject.subjects(title, "", names)
    if found:
        return tuple(found)
    if body is None:
        try:
            body = store.read(slug)[0].body
        except (CorruptFile, KeyUnavailable, NotFound):
            return ()
    return tuple(subject.subjects(title, body, names))


def _on_subject(ex: Extraction, pool: list[Candidate], hints: Sequence[str]) -> list[Candidate]:
    """Neither the rules nor the LLM are asked about an older memory on another subject
    ("Redis for caching" against "Postgres for the job queue") unless the new memory
    names what it replaced or the caller hinted it."""
    return [
        c
        for c in pool
        if c.slug in hints
        or ex.replaced & {e for _, e in c.relations}
        or subject.same(ex.subjects, c.subjects) is not False
    ]


def _hint_row(s: Any, slug: str, scope_hash: str) -> dict[str, Any] | None:
    from memoryd.store import index

    row = index.get(s, slug)
    if (
        row is None
        or row["scope_hash"] != scope_hash
        or row["type"] not in JUDGED_TYPES
        or row["superseded_by"]
    ):
        return None
    return {
        "slug": slug,
        "type": row["type"],
        "created_at": row["created_at"],
        "shared": 0,
        "title": row["title"],
    }


def _sealed_candidates(
    store: Store, doc: Document, ids: list[str], skip: set[str], hints: Sequence[str]
) -> list[Candidate]:
    """A sensitive scope has no graph rows in the index: its memories are opened (the
    caller holds the key) and compared by their frontmatter."""
    from memoryd.store import links

    wanted = set(ids)
    out = []
    for row in store.list(
        scopes=[doc.meta.scope_hash], types=list(JUDGED_TYPES), states=list(VISIBLE_STATES)
    ):
        if row["slug"] in skip or row["superseded_by"] or row["created_at"] > clock.iso(doc.meta.created_at):
            continue
        try:
            other, _ = store.read(row["slug"])
        except (CorruptFile, KeyUnavailable, NotFound):
            continue
        mentions, relations = links(other)
        shared = len(wanted & mentions.keys())
        if shared or row["slug"] in hints:
            rels = [(p, o) for p, o, kind in relations if kind == "entity"]
            about = _about(store, row["slug"], other.meta.title, rels, other.body)
            out.append(
                Candidate(row["slug"], row["type"], row["created_at"], rels, shared, other.meta.title, about)
            )
    out.sort(key=lambda c: (c.created_at, c.slug), reverse=True)  # newest first, then:
    out.sort(key=lambda c: (c.slug not in hints, -c.shared))
    return out[:RULES_POOL]


# -- judging ------------------------------------------------------------------------------
# Words that say how, not what for: left out when comparing two memories' purposes.
_STANCE = (
    "prefer prefers preferred preference use uses used using like likes choose chose pick switch switched "
    "always never now new old instead default 用 使用 喜欢 偏好 改用 现在 以后"
)
_STANCE_WORDS = frozenset(_STANCE.split())


def purpose(text: str, ex_names: Sequence[str] = ()) -> set[str]:
    """What a memory is for, as search terms: its words without stance words and names."""
    from memoryd.textproc import terms

    names = {t for n in ex_names for t in terms(n)}
    return {t for t in terms(text) if t not in _STANCE_WORDS and t not in names}


def by_rules(
    new_type: str, ex: Extraction, cand: Candidate, new_purpose: set[str] = frozenset()
) -> Judgement:
    """Explicit replacement ("switched from React to Solid", "不再用 React,改用 Solid") of
    something the old memory chose: RULE_EXPLICIT. Something it only named: RULE_LIKELY.
    The same slot filled by another choice, in the same kind of memory and about the same
    subject: RULE_LIKELY, for the user to confirm.

    Never when the two are about different subjects (kg.subject: "Redis for caching" does
    not replace "Postgres for the job queue", though both choose a store), nor when the new
    memory says the old choice stays ("jobs stay in Postgres"). With no subject on one side,
    the slot rule falls back to a shared word of the old title (`new_purpose`)."""
    old_pos = {e for p, e in cand.relations if p in POSITIVE}
    old_all = {e for _, e in cand.relations}
    new_pos = {f.id for f in ex.found if f.predicate in POSITIVE}
    for eid in sorted(ex.kept & old_pos):
        return Judgement(cand.slug, 0.0, f"the new memory keeps {lexicon.split_id(eid)[1]}")
    if old_pos and old_pos <= new_pos:  # the old one chose what the new one chooses: they agree
        return Judgement(cand.slug, 0.0, "both choose the same")
    about = subject.same(ex.subjects, list(cand.subjects))
    if about is False:
        new_about, old_about = subject.describe(ex.subjects), subject.describe(cand.subjects)
        return Judgement(cand.slug, 0.0, f"different subjects: {new_about}, not {old_about}")
    for eid in sorted(ex.replaced & old_pos):
        name = lexicon.split_id(eid)[1]
        return Judgement(cand.slug, RULE_EXPLICIT, f"the new memory says {name} was replaced", eid)
    named = ex.replaced & old_all
    if named and cand.title:  # "We stopped using MongoDB" left it too: nothing to replace
        named -= extract.by_rules(cand.title, "", memory_type=cand.type).replaced
    for eid in sorted(named):
        name = lexicon.split_id(eid)[1]
        return Judgement(
            cand.slug, RULE_LIKELY, f"the new memory says {name} was replaced; the old one names it", eid
        )
    names = [lexicon.split_id(e)[1] for _, e in cand.relations] + [f.name for f in ex.found]
    if new_type == cand.type and (about or new_purpose & purpose(cand.title, names)):
        for new_id in sorted(new_pos):
            slot = family(lexicon.category_of(new_id))
            if not slot:
                continue
            for old_id in sorted(old_pos - new_pos):
                if family(lexicon.category_of(old_id)) == slot:
                    old_name, new_name = lexicon.split_id(old_id)[1], lexicon.split_id(new_id)[1]
                    category = lexicon.category_of(new_id)
                    return Judgement(
                        cand.slug,
                        RULE_LIKELY,
                        f"both choose a {category}: {old_name}, now {new_name}",
                        old_id,
                    )
    return Judgement(cand.slug, 0.0, "no replacement the rules can see")


def llm_prompt(store: Store, config: Config, doc: Document, pool: Sequence[Candidate]) -> Any:
    from memoryd.llm import prompts, tokens

    parts = []
    for c in pool:
        try:
            old, _ = store.read(c.slug)
        except (CorruptFile, KeyUnavailable, NotFound):
            continue
        body = " ".join(old.body.split())[:BODY_CHARS]
        parts.append(
            f"- slug: {c.slug}\n  type: {c.type}, {c.created_at[:10]}\n  title: {old.meta.title}\n  {body}"
        )
    return prompts.render(
        "judge_supersedes",
        new_type=doc.meta.type.value,
        new_date=clock.iso(doc.meta.created_at)[:10],
        new_title=doc.meta.title,
        new_body=tokens.trim(doc.body, config.llm.max_input_tokens),
        candidates="\n".join(parts) or "(none)",
    )


# -- acting -------------------------------------------------------------------------------
def apply(
    store: Store, config: Config, newer: str, judgements: list[Judgement], *, judged_by: str, actor: str
) -> None:
    kc = config.knowledge
    no = dismissed(store, newer)
    auto, review = [], []
    for j in judgements:
        if j.older in no:
            j.outcome = "dismissed before"
        elif j.confidence >= kc.supersede_auto:
            auto.append(j)
        elif j.confidence >= kc.supersede_review:
            review.append(j)
        else:
            j.outcome = "ignored"
    if auto:
        supersede_many(store, newer, auto, decided_by="auto", actor=actor)
    if review:
        propose(store, newer, review, judged_by=judged_by, actor=actor)


def propose(store: Store, newer: str, items: list[Judgement], *, judged_by: str, actor: str) -> None:
    """Queue supersedes for the user, in one transaction; a pair already judged (even
    dismissed) keeps its row and its decision."""
    scope_hash = store.row(newer)["scope_hash"]
    now = clock.now_iso()
    created = []
    with write_session(store.engine) as s:
        for j in items:
            sealed = _sealed(store, scope_hash, j)
            pid, new = sql.add_pending(
                s,
                {
                    "newer_memory_id": newer,
                    "older_memory_id": j.older,
                    "entity_id": sealed.entity,
                    "scope_hash": scope_hash,
                    "confidence": round(j.confidence, 4),
                    "reason": sealed.reason[:500],
                    "judged_by": judged_by,
                    "created_at": now,
                },
            )
            j.pending_id, j.outcome = pid, "pending"
            if new:
                created.append((pid, j, sealed))
    for pid, j, sealed in created:
        store.audit.append(
            "supersede_proposed",
            actor=actor,
            scope_hash=scope_hash,
            target_id=newer,
            details={
                "id": pid,
                "older": j.older,
                "confidence": round(j.confidence, 4),
                "reason": sealed.reason[:500],
            },
        )


def supersede(
    store: Store,
    newer: str,
    older: str,
    *,
    confidence: float,
    decided_by: str,
    reason: str,
    entity: str | None,
    actor: str,
) -> None:
    """Mark `older` as replaced by `newer`, or say in one line why it cannot be."""
    j = Judgement(older, confidence, reason, entity)
    supersede_many(store, newer, [j], decided_by=decided_by, actor=actor)
    if j.outcome != "superseded":
        raise UsageError(j.outcome)


@serialised
def supersede_many(store: Store, newer: str, items: list[Judgement], *, decided_by: str, actor: str) -> None:
    """Mark each older memory as replaced by `newer`: in the newer file (one write), the
    chain (one transaction), then each older file. A run cut short after the newer file
    and the chain is finished by the next reindex (the chain and the newer file say what
    an older file lacks), never the other way round. A pair that cannot be (another scope,
    a loop, already replaced by another memory) gets its reason as its outcome."""
    new_doc, _ = store.read(newer)
    later = _successors(store, newer)
    todo: list[tuple[Judgement, Document]] = []
    for j in items:
        try:
            old_doc, _ = store.read(j.older)
        except (CorruptFile, KeyUnavailable, NotFound) as exc:
            j.outcome = f"cannot read {j.older}: {exc}"
            continue
        if j.older == newer:
            j.outcome = "a memory cannot supersede itself"
        elif old_doc.meta.scope_hash != new_doc.meta.scope_hash:
            j.outcome = f"{j.older} and {newer} belong to different scopes"
        elif j.older in later:
            j.outcome = f"{j.older} already supersedes {newer}: that would make a loop"
        elif old_doc.meta.superseded_by not in (None, newer):
            j.outcome = (
                f"{j.older} is already superseded by {old_doc.meta.superseded_by} "
                f"(`memoryd history {j.older}`; `memoryd supersede undo` takes a link back)"
            )
        else:
            todo.append((_sealed(store, new_doc.meta.scope_hash, j), old_doc))
            j.outcome = "superseded"
    if not todo:
        return
    now = clock.now_iso()
    fresh = [j.older for j, _ in todo if j.older not in new_doc.meta.supersedes]
    if fresh:
        new_doc.meta.supersedes = [*new_doc.meta.supersedes, *fresh]
        store.save(
            new_doc,
            event="supersede",
            actor=actor,
            details={
                "older": fresh,
                "decided_by": decided_by,
                "confidence": [round(j.confidence, 4) for j, _ in todo if j.older in fresh],
                "reason": [j.reason[:500] for j, _ in todo if j.older in fresh],
            },
        )
    with write_session(store.engine) as s:
        for j, _ in todo:
            sql.add_chain(
                s,
                {
                    "newer_memory_id": newer,
                    "older_memory_id": j.older,
                    "entity_id": j.entity,
                    "confidence": round(j.confidence, 4),
                    "decided_at": now,
                    "decided_by": decided_by,
                    "reason": j.reason[:500],
                },
            )
            sql.settle_pair(s, newer, j.older, now)
    for j, old_doc in todo:
        if old_doc.meta.superseded_by != newer:
            old_doc.meta.superseded_by = newer
            details = {"newer": newer, "confidence": round(j.confidence, 4), "decided_by": decided_by}
            store.save(
                old_doc, event="superseded", actor=actor, details={**details, "reason": j.reason[:500]}
            )


@serialised
def undo(store: Store, newer: str, older: str, *, actor: str = "cli") -> None:
    """Take a supersede back: both files and the chain forget it, and the pair is kept as
    dismissed so no later check applies it again."""
    new_doc, _ = store.read(newer)
    old_doc, _ = store.read(older)
    with read_session(store.engine) as s:
        linked = any(
            (r["newer_memory_id"], r["older_memory_id"]) == (newer, older) for r in sql.chain_links(s, newer)
        )
    if not linked and older not in new_doc.meta.supersedes and old_doc.meta.superseded_by != newer:
        raise UsageError(f"{newer} does not supersede {older} (`memoryd history {newer}`)")
    if old_doc.meta.superseded_by == newer:
        old_doc.meta.superseded_by = None
        store.save(old_doc, event="supersede_undone", actor=actor, details={"newer": newer})
    if older in new_doc.meta.supersedes:
        new_doc.meta.supersedes = [x for x in new_doc.meta.supersedes if x != older]
        store.save(new_doc, event="supersede_undone", actor=actor, details={"older": older})
    now = clock.now_iso()
    with write_session(store.engine) as s:
        sql.remove_chain(s, newer, older)
        sql.dismiss_pair(s, newer, older, new_doc.meta.scope_hash, now)


@dataclass(frozen=True)
class Moved:
    """A link `release_orphans` changed: `older` was replaced by `gone`, which left the
    index; it is replaced by `to` now (the link decided at `at`), or current (`to` None)."""

    older: str
    gone: str
    to: str | None = None
    at: str | None = None

    def as_dict(self) -> dict[str, str | None]:
        return asdict(self)


@serialised
def release_orphans(store: Store, merged: dict[str, str] | None = None, *, actor: str = "cli") -> list[Moved]:
    """Memories whose successor left the index: merged into another memory, that one
    supersedes them now (unless it cannot: itself, another scope, a loop); forgotten or
    faded away, they are current again (no pointer to a memory that is not there). What
    changed is returned, for the undo of the merge (`move_back`)."""
    merged = merged or {}
    with read_session(store.engine) as s:
        orphans = sql.orphaned(s)
    out = []
    for older, gone in orphans:
        try:
            doc, _ = store.read(older)
        except (CorruptFile, KeyUnavailable, NotFound):
            continue
        doc.meta.superseded_by = None
        store.save(doc, event="supersede_undone", actor=actor, details={"newer": gone, "why": "newer left"})
        to, at = merged.get(gone), None
        if to:
            j = Judgement(older, 1.0, f"{gone} was merged into it")
            supersede_many(store, to, [j], decided_by="user", actor=actor)
            with read_session(store.engine) as s:
                link = sql.chain_row(s, to, older) if j.outcome == "superseded" else None
            to, at = (to, link["decided_at"]) if link else (None, None)
        out.append(Moved(older, gone, to, at))
    return out


def moved_since(store: Store, m: Moved) -> str | None:
    """Why a move can no longer be taken back (its memory's link changed since), or None."""
    try:
        now = store.row(m.older)["superseded_by"]
    except NotFound:
        return f"{m.older} is gone"
    if now != m.to:
        return f"{m.older} is {f'superseded by {now}' if now else 'current'} now"
    if m.to:
        with read_session(store.engine) as s:
            link = sql.chain_row(s, m.to, m.older)
        if link is None or link["decided_at"] != m.at:
            return f"the link {m.to} -> {m.older} was decided again"
    return None


@serialised
def move_back(store: Store, m: Moved, *, actor: str = "cli") -> None:
    """`older` is replaced by `gone` again, which is back (a merge undone); the link the
    move made goes unless `to`'s file names it (it did before the merge)."""
    doc, _ = store.read(m.older)
    if m.to and m.older not in store.read(m.to)[0].meta.supersedes:
        with write_session(store.engine) as s:
            sql.remove_chain(s, m.to, m.older)
    doc.meta.superseded_by = m.gone
    store.save(doc, event="superseded", actor=actor, details={"newer": m.gone, "why": "merge undone"})


def dismissed(store: Store, newer: str) -> set[str]:
    """Older memories the user said `newer` does not replace."""
    with read_session(store.engine) as s:
        return sql.dismissed_for(s, newer)


def _successors(store: Store, slug: str) -> set[str]:
    """Every memory that replaced `slug`, directly or down the chain."""
    with read_session(store.engine) as s:
        links = sql.chain_links(s, slug)
    nxt: dict[str, list[str]] = {}
    for link in links:
        nxt.setdefault(link["older_memory_id"], []).append(link["newer_memory_id"])
    out, todo = set(), [slug]
    while todo:
        for n in nxt.get(todo.pop(), []):
            if n not in out:
                out.add(n)
                todo.append(n)
    return out


def _sealed(store: Store, scope_hash: str, j: Judgement) -> Judgement:
    """A sensitive scope's reasons and entity names are its words: they stay out of
    index.db and the audit log (the files say what was replaced, encrypted)."""
    if not store.keys.sensitive(scope_hash):
        return j
    return Judgement(j.older, j.confidence, "", None, j.outcome, j.pending_id)


PENDING_STATUSES = ("pending", "confirmed", "dismissed")


def get_pending(store: Store, pid: int) -> dict[str, Any]:
    with read_session(store.engine) as s:
        row = sql.pending(s, pid)
    if row is None:
        raise NotFound(f"no pending supersede with id {pid}; `memoryd supersede list` shows them")
    return row


def listing(store: Store, *, status: str | None, scopes: list[str] | None = None) -> list[dict[str, Any]]:
    if status is not None and status not in PENDING_STATUSES:
        raise UsageError(f"--status must be one of {', '.join(PENDING_STATUSES)}")
    with read_session(store.engine) as s:
        return sql.pending_list(s, status=status, scopes=scopes)


def confirm(store: Store, pid: int, *, decided_by: str = "user", actor: str = "cli") -> dict[str, Any]:
    row = _open(store, pid)
    for slug in (row["newer_memory_id"], row["older_memory_id"]):
        try:
            store.row(slug)
        except NotFound:
            raise UsageError(
                f"memory {slug} is gone (forgotten or merged): dismiss this one with "
                f"`memoryd supersede dismiss {pid}`"
            ) from None
    supersede(
        store,
        row["newer_memory_id"],
        row["older_memory_id"],
        confidence=row["confidence"],
        decided_by=decided_by,
        reason=row["reason"] or "",
        entity=row["entity_id"],
        actor=actor,
    )
    now = clock.now_iso()
    with write_session(store.engine) as s:
        sql.decide_pending(s, pid, "confirmed", now)
    return {**row, "status": "confirmed", "decided_at": now}


def dismiss(store: Store, pid: int, *, actor: str = "cli") -> dict[str, Any]:
    row = _open(store, pid)
    now = clock.now_iso()
    with write_session(store.engine) as s:
        sql.decide_pending(s, pid, "dismissed", now)
    store.audit.append(
        "supersede_dismissed",
        actor=actor,
        scope_hash=row["scope_hash"],
        target_id=row["newer_memory_id"],
        details={"id": pid, "older": row["older_memory_id"]},
    )
    return {**row, "status": "dismissed", "decided_at": now}


def _open(store: Store, pid: int) -> dict[str, Any]:
    row = get_pending(store, pid)
    if row["status"] != "pending":
        raise UsageError(f"supersede {pid} is already {row['status']} ({row['decided_at']})")
    return row


SEALED_TITLE = "(sensitive: grant to read)"


def readable(store: Store, row: dict[str, Any]) -> dict[str, Any]:
    """A pending supersede as people see it: a sensitive scope's titles opened from its
    files under a grant (its index rows have none), else sealed, reason withheld."""
    from memoryd.sensitive import gate

    if not store.keys.sensitive(row["scope_hash"]):
        return row
    if not gate.allowed(store, row["scope_hash"]):
        return {**row, "newer_title": SEALED_TITLE, "older_title": SEALED_TITLE, "reason": None}
    out = dict(row)
    for which in ("newer", "older"):
        try:
            out[f"{which}_title"] = store.read(row[f"{which}_memory_id"])[0].meta.title
        except (CorruptFile, KeyUnavailable, NotFound):
            out[f"{which}_title"] = ""
    return out


def history(store: Store, slug: str) -> dict[str, Any]:
    """The chain a memory belongs to, oldest first, with how each link was decided, and
    the supersedes about it that wait for the user."""
    store.row(slug)  # NotFound when unknown
    with read_session(store.engine) as s:
        links = sql.chain_links(s, slug)
        waiting = [
            r
            for r in sql.pending_list(s, status="pending", scopes=None)
            if slug in (r["newer_memory_id"], r["older_memory_id"])
        ]
    slugs = {slug} | {x for link in links for x in (link["newer_memory_id"], link["older_memory_id"])}
    chain = []
    for x in slugs:
        try:
            row = store.row(x)
        except NotFound:
            chain.append(
                {"slug": x, "title": "", "type": "", "created_at": "", "state": "gone", "superseded_by": None}
            )
            continue
        chain.append(
            {
                "slug": x,
                "title": _title(store, row),
                "type": row["type"],
                "created_at": row["created_at"],
                "state": row["decay_state"],
                "superseded_by": row["superseded_by"],
            }
        )
    chain.sort(key=lambda r: (r["created_at"] or "", r["slug"]))
    return {"slug": slug, "chain": chain, "links": links, "pending": waiting}


def _title(store: Store, row: dict[str, Any]) -> str:
    if row["title"] or not row.get("scope_sensitive"):
        return str(row["title"])
    try:
        return store.read(row["slug"])[0].meta.title  # the caller checked the grant
    except (CorruptFile, KeyUnavailable, NotFound):
        return ""


# -- two texts ----------------------------------------------------------------------------
def judge_texts(
    new_title: str,
    new_body: str,
    old_title: str,
    old_body: str,
    *,
    new_type: str = "decision",
    old_type: str = "decision",
) -> Judgement:
    """The rules' judgement of whether a new memory supersedes an old one, from their texts
    alone (no store): what the benchmark and tests call."""
    new_ex = extract.by_rules(new_title, new_body, memory_type=new_type)
    old_ex = extract.by_rules(old_title, old_body, memory_type=old_type)
    shared = len(set(new_ex.ids()) & set(old_ex.ids()))
    relations = [(f.predicate, f.id) for f in old_ex.found]
    about = tuple(old_ex.subjects)
    cand = Candidate("old", old_type, "", relations, shared, old_title, about)
    aim = purpose(f"{new_title}\n{new_body}", [f.name for f in new_ex.found])
    return by_rules(new_type, new_ex, cand, aim)


def supersedes_by_rules(
    new_title: str,
    new_body: str,
    old_title: str,
    old_body: str,
    *,
    new_type: str = "decision",
    old_type: str = "decision",
) -> bool:
    """Whether the rules would at least propose the supersede (RULE_LIKELY or more)."""
    j = judge_texts(new_title, new_body, old_title, old_body, new_type=new_type, old_type=old_type)
    return j.confidence >= RULE_LIKELY
