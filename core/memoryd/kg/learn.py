"""What the knowledge graph learns from one memory, run after capture (sessions, from the
analysis) and on record, update and promote: its entities (LLM or rules), written into
its frontmatter (observations, relations, entity_mentions) and so into the index, the
entities' names and spellings, and, for a preference, decision or fact, the supersedes
check against the older memories of its scope."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

from memoryd import clock
from memoryd.config import Config
from memoryd.db.engine import read_session, write_session
from memoryd.frontmatter import Document
from memoryd.kg import extract, lexicon, supersedes
from memoryd.kg.extract import Extraction, Found
from memoryd.llm.factory import Choice
from memoryd.models import MemoryType
from memoryd.store import Store
from memoryd.store import kg as sql


@dataclass
class Learned:
    slug: str
    by: str
    entities: list[dict[str, Any]] = field(default_factory=list)
    judged_by: str = ""
    judgements: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def seal(self) -> None:
        """A sensitive scope's names and reasons are its words: what the caller prints or
        logs says how many and what happened, not what (the encrypted file holds that)."""
        self.entities = [{"type": e["type"], "relation": e["relation"]} for e in self.entities]
        for j in self.judgements:
            j["reason"] = ""
            j["entity"] = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "slug": self.slug,
            "by": self.by,
            "entities": self.entities,
            "judged_by": self.judged_by,
            "judgements": self.judgements,
            "notes": self.notes,
        }


@dataclass
class Learner:
    store: Store
    config: Config
    actor: str = "cli"
    env: Mapping[str, str] | None = None
    transport: httpx.BaseTransport | None = None
    _choice: Choice | None = field(default=None, init=False)

    @property
    def choice(self) -> Choice:
        if self._choice is None:
            from memoryd.llm.factory import choose

            self._choice = choose(self.config.llm, env=self.env, transport=self.transport)
        return self._choice

    def _provider(self, scope_hash: str) -> Any:
        from memoryd.llm.factory import endpoint
        from memoryd.sensitive import llm_access

        if llm_access.refusal(self.store, scope_hash, endpoint(self.config.llm)):
            return None
        return self.choice.provider

    def learn(
        self, slug: str, *, project: str | None = None, judge: bool = True, hints: Sequence[str] = ()
    ) -> Learned:
        doc, _ = self.store.read(slug)
        ex, changed = self.annotate(doc, project=project)  # perhaps an LLM call: no lock held
        stale = False
        if changed:
            with self.store.writing():  # onto the memory as it is now, if its text is the same
                current, _ = self.store.read(slug)
                stale = (current.meta.title, current.body) != (doc.meta.title, doc.body)
                if not stale and set_entities(current, ex):
                    self.store.save(
                        current,
                        event="entities",
                        actor=self.actor,
                        details={"by": ex.by, "entities": len(ex.found)},
                    )
        out = Learned(
            slug,
            ex.by,
            [
                {"id": f.id, "name": f.name, "type": f.type, "mentions": f.mentions, "relation": f.predicate}
                for f in ex.found
            ],
            notes=[ex.note] if ex.note else [],
        )
        if stale:
            out.notes.append(
                "the memory changed while its entities were read; its next change reads them again"
            )
        if judge and doc.meta.type.value in supersedes.JUDGED_TYPES and not doc.meta.superseded_by:
            check = self.judge(doc, ex, hints=hints)
            out.judged_by, out.judgements = check.judged_by, [j.as_dict() for j in check.judgements]
            if check.note:
                out.notes.append(check.note)
        if self.store.keys.sensitive(doc.meta.scope_hash):
            out.seal()
        return out

    # -- entities -----------------------------------------------------------------------
    def annotate(self, doc: Document, *, project: str | None = None) -> tuple[Extraction, bool]:
        """Read the memory's entities and set them in its frontmatter (not saved: the caller
        saves, so the capture analysis writes a session once). True when something changed."""
        ex = self.extract(doc, project=project or self._project_of(doc))
        self._name(doc, ex)
        return ex, set_entities(doc, ex)

    def _project_of(self, doc: Document) -> str | None:
        """The project name found when the memory was recorded (only `record` knows the
        directory): kept when the memory is read again after an edit."""
        for eid in doc.meta.observations:
            if eid.startswith("entity:project:"):
                with read_session(self.store.engine) as s:
                    row = sql.entity(s, eid)
                return str(row["name"]) if row else lexicon.split_id(eid)[1]
        return None

    def extract(self, doc: Document, *, project: str | None = None) -> Extraction:
        m = doc.meta
        min_unknown = 2 if m.type is MemoryType.session else 1
        rules = extract.by_rules(
            m.title, doc.body, memory_type=m.type.value, project=project, min_unknown=min_unknown
        )
        kc = self.config.knowledge
        wanted = kc.llm_entities and (m.type.long_term or kc.llm_session_entities)
        provider = self._provider(m.scope_hash) if wanted else None
        if provider is None:
            return rules
        from memoryd.governance import spend
        from memoryd.llm import prompts, tokens
        from memoryd.llm.schemas import Entities

        prompt = prompts.render(
            "extract_entities",
            memory_type=m.type.value,
            title=m.title,
            body=tokens.trim(doc.body, self.config.llm.max_input_tokens),
        )
        reply = spend.ask(self.store, self.config.llm, provider, prompt, Entities, "extract_entities")
        if isinstance(reply, str):
            rules.note = f"entities by the rules: {reply}"
            return rules
        items = [(e.name, e.type, e.mentions, e.relation, e.replaced) for e in reply.data.entities]
        ex = extract.from_llm(items, by=f"{provider.name}:{provider.model}")
        # What it is about and what it keeps are the rules' reading either way.
        ex.subjects, ex.kept = rules.subjects, rules.kept & set(ex.ids())
        if project:  # the scope's own name is known without asking
            for f in rules.found:
                if f.type == "project" and f.id not in ex.ids():
                    ex.found.append(f)
        return ex

    def _name(self, doc: Document, ex: Extraction) -> None:
        """Use the id a name already has (another spelling, another type; the curated
        names keep their own), and record the spellings seen; a sensitive scope's names
        stay out of the index."""
        curated = lexicon.by_id()
        with read_session(self.store.engine) as s:
            known = sql.resolve(s, [f.norm for f in ex.found if f.id not in curated])
        merged: dict[str, Found] = {}
        for f in ex.found:
            eid = f.id if f.id in curated else known.get(f.norm, f.id)
            if eid != f.id:
                if f.id in ex.replaced:
                    ex.replaced.discard(f.id)
                    ex.replaced.add(eid)
                f.id = eid
            if eid in merged:
                merged[eid].mentions += f.mentions
                merged[eid].surfaces |= f.surfaces
            else:
                merged[eid] = f
        ex.found = list(merged.values())
        if self.store.keys.sensitive(doc.meta.scope_hash):
            return
        seen = clock.iso(doc.meta.created_at)
        with write_session(self.store.engine) as s:
            for f in ex.found:
                kind, name = lexicon.split_id(f.id)
                sql.upsert_entity(
                    s,
                    eid=f.id,
                    name=name if f.id in lexicon.by_id() else f.name,
                    kind=kind,
                    norm=f.norm,
                    aliases=f.surfaces,
                    context=f.category,
                    scope_hash=doc.meta.scope_hash if kind == "project" else None,
                    seen=seen,
                )

    # -- supersedes ---------------------------------------------------------------------
    def judge(self, doc: Document, ex: Extraction, *, hints: Sequence[str] = ()) -> supersedes.Check:
        pool = supersedes.candidates(self.store, doc, ex, hints)
        check = supersedes.Check()
        if not pool:
            return check
        provider = self._provider(doc.meta.scope_hash)
        judgements = None
        if provider is not None:
            judgements, note = self._ask(doc, pool[: self.config.knowledge.max_candidates], provider)
            check.judged_by = f"{provider.name}:{provider.model}"
            check.note = note
        if judgements is None:
            check.judged_by = "rules"
            aim = supersedes.purpose(f"{doc.meta.title}\n{doc.body}", [f.name for f in ex.found])
            judgements = [supersedes.by_rules(doc.meta.type.value, ex, c, aim) for c in pool]
        supersedes.apply(
            self.store, self.config, doc.meta.slug, judgements, judged_by=check.judged_by, actor=self.actor
        )
        check.judgements = judgements
        return check

    def _ask(
        self, doc: Document, pool: Sequence[supersedes.Candidate], provider: Any
    ) -> tuple[list[supersedes.Judgement] | None, str]:
        from memoryd.governance import spend
        from memoryd.llm.schemas import SupersedesJudgements

        prompt = supersedes.llm_prompt(self.store, self.config, doc, pool)
        reply = spend.ask(
            self.store, self.config.llm, provider, prompt, SupersedesJudgements, "judge_supersedes"
        )
        if isinstance(reply, str):
            return None, f"supersedes judged by the rules: {reply}"
        asked = {c.slug for c in pool}
        out = []
        for j in reply.data.judgements:
            if j.old_slug in asked:
                confidence = j.confidence if j.supersedes else 0.0
                out.append(supersedes.Judgement(j.old_slug, confidence, j.reasoning))
                asked.discard(j.old_slug)
        return out, ""


def set_entities(doc: Document, ex: Extraction) -> bool:
    """Set the extraction's entities in the frontmatter; True when something changed."""
    m = doc.meta
    observations = [f.id for f in ex.found]
    # Relations the extraction never writes (conflicts_with, cites, ... added by hand)
    # stay; the ones it writes are its own to replace.
    kept = [r for r in m.relations if r.partition(":")[0] not in extract.RULE_PREDICATES]
    relations = list(dict.fromkeys([*(f"{f.predicate}:{f.id}" for f in ex.found), *kept]))
    counts = {f.id: f.mentions for f in ex.found}
    extras = m.model_extra if m.model_extra is not None else {}
    if (
        m.observations == observations
        and m.relations == relations
        and extras.get("entity_mentions") == counts
    ):
        return False
    m.observations, m.relations = observations, relations
    extras["entity_mentions"] = counts
    return True
