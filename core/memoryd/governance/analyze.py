"""DURA analysis of session memories (seed 000) and the promotion queue it feeds.

The LLM scores when one is configured, the budget allows and the scope is not
sensitive; otherwise the rules do, and the reasoning says so. A failed LLM call leaves
the session untouched ("deferred") for a later run; after MAX_ATTEMPTS failures the
rules score it, so no session waits forever.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import httpx
from filelock import FileLock, Timeout

from memoryd import clock, faults, slugs
from memoryd.config import Config
from memoryd.db.engine import read_session, write_session
from memoryd.envpaths import FILE_MODE
from memoryd.errors import CorruptFile, KeyUnavailable, NotFound, UsageError
from memoryd.frontmatter import Document
from memoryd.kg.extract import Extraction
from memoryd.kg.learn import set_entities
from memoryd.llm import prompts, rules, tokens
from memoryd.llm.base import LLMError, Prompt, Provider
from memoryd.llm.factory import Choice, choose, endpoint
from memoryd.llm.schemas import DuraOutput
from memoryd.models import MemoryType
from memoryd.sensitive import llm_access
from memoryd.store import Store, analysed_current, analysis_digest, analysis_fingerprint, dura_mean
from memoryd.store import governance as sql
from memoryd.store.terms import rarity_for
from memoryd.suspect_doc import HELD_ANALYSIS

from . import spend

if TYPE_CHECKING:
    from memoryd.embed import Embedder

MAX_ATTEMPTS = 3
PROMPT = "dura"
EXISTING_LIMIT = 15
CHANGED = "the session changed while it was being analysed; the next run analyses it as it is now"


@dataclass
class Analysis:
    slug: str
    status: str  # scored | deferred | skipped
    by: str = ""
    scores: dict[str, float] | None = None
    mean: float | None = None
    promotion_id: int | None = None
    promotion: str | None = None  # queued | updated | decided
    note: str = ""
    tokens: int = 0
    entities: int = 0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Scored:
    out: DuraOutput | None  # None: deferred
    by: str
    note: str
    tokens: int
    prompt: str


@dataclass
class Analyzer:
    store: Store
    config: Config
    actor: str = "cli"
    env: Mapping[str, str] | None = None
    transport: httpx.BaseTransport | None = None
    # The store's embedder (Memoryd.embedder), for the rules' learned type; else
    # memoryd.embed.load, the same copy once per process.
    load_embedder: Callable[[], Embedder | None] | None = None
    _choice: Choice | None = field(default=None, init=False)
    _embedder: tuple[Embedder | None] | None = field(default=None, init=False)

    @property
    def choice(self) -> Choice:
        if self._choice is None:
            self._choice = choose(self.config.llm, env=self.env, transport=self.transport)
        return self._choice

    def embedder(self) -> Embedder | None:
        """The configured embedding model, loaded on the first rules scoring (never in the
        capture hook: analysis runs in the worker or the CLI); None leaves the type to the
        cues, as does a model that fails to load."""
        if self._embedder is None:
            try:
                if self.load_embedder is not None:
                    self._embedder = (self.load_embedder(),)
                else:
                    from memoryd import embed

                    self._embedder = (embed.load(self.config),)
            except Exception:  # the cues type the session without it
                self._embedder = (None,)
        return self._embedder[0]

    # -- one session ------------------------------------------------------------------
    def session(self, slug: str, *, force: bool = False) -> Analysis:
        slugs.validate(slug)
        row = self.store.row(slug)
        if row["type"] != MemoryType.session.value:
            raise UsageError(f"{slug} is a {row['type']}: only sessions are analysed")
        doc, path = self.store.read(slug)
        fp = analysis_digest(doc.body)
        if not force and analysed_current(analysis_fingerprint(doc.meta.extras), doc.body):
            return Analysis(slug, "skipped", note="already analysed; --force analyses again")
        user_turns = [t.text for t in self.store.files.read_turns(path) if t.role == "user"]

        scored = self._score(doc, row, user_turns)
        if scored.out is None:
            return Analysis(slug, "deferred", by=scored.by, note=scored.note, tokens=scored.tokens)
        extraction, note = self._entities(doc)
        entities = len(extraction.found) if extraction is not None else 0
        faults.pause("analyze:scored")
        with self.store.writing():  # the scores are written onto the session as it is now
            current, _ = self.store.read(slug)
            if current.body != doc.body:  # a capture updated it while it was scored
                return Analysis(slug, "deferred", by=scored.by, note=CHANGED, tokens=scored.tokens)
            if extraction is not None:
                set_entities(current, extraction)
            result = self._write(current, fp, scored, suspect=bool(row.get("suspect")))
        result.entities = entities
        if note:
            result.note = "; ".join(filter(None, [result.note, note]))
        return result

    def _entities(self, doc: Document) -> tuple[Extraction | None, str]:
        """The session's entities for the graph and the trends, set in the frontmatter the
        analysis saves (no supersedes: a session is working memory). A failure here costs
        the entities, not the analysis."""
        from memoryd.kg.learn import Learner

        try:
            learner = Learner(
                self.store, self.config, actor=self.actor, env=self.env, transport=self.transport
            )
            learner._choice = self._choice
            ex, _ = learner.annotate(doc)
        except Exception as exc:  # any failure: the scores still count
            return None, f"entities not extracted: {exc}"
        return ex, ex.note

    def _score(self, doc: Document, row: dict[str, Any], user_turns: list[str]) -> Scored:
        llm = self.config.llm

        def by_rules(reason: str, used: int = 0) -> Scored:
            rarity = rarity_for(self.store, doc.meta.scope_hash)
            out = rules.score(
                doc.meta.title,
                doc.body,
                user_turns=user_turns,
                reason=reason,
                rarity=rarity,
                embedder=self.embedder(),
            )
            return Scored(out, rules.NAME, reason, used, "rules")

        refused = llm_access.refusal(
            self.store, doc.meta.scope_hash, endpoint(llm), sensitive=bool(row.get("scope_sensitive"))
        )
        if refused:
            return by_rules(refused)
        if row.get("suspect"):  # text aimed at an AI is not handed to one (memoryd.suspect_doc)
            return by_rules("suspect memory: nothing sent to the LLM until a person clears it")
        provider = self.choice.provider
        if provider is None:
            return by_rules(self.choice.reason)
        prompt = self._prompt(doc)
        spent = spend.tokens_today(self.store)
        expected = tokens.estimate(prompt.system + prompt.user) + prompt.max_output_tokens
        if spent + expected > llm.daily_token_budget:
            return by_rules(f"daily token budget spent ({spent:,} of {llm.daily_token_budget:,} tokens)")
        by = f"{provider.name}:{provider.model}"
        try:
            reply = provider.generate_json(prompt, DuraOutput)
        except LLMError as exc:
            self._spent(provider, exc.usage, ok=False)
            attempts = self._failed(doc.meta.slug, str(exc))
            if attempts >= MAX_ATTEMPTS:
                return by_rules(f"the LLM failed {attempts} times, last: {exc}", exc.usage.total)
            note = f"analysis deferred (attempt {attempts} of {MAX_ATTEMPTS}): {exc}"
            return Scored(None, by, note, exc.usage.total, "")
        self._spent(provider, reply.usage, ok=True)
        out = reply.data
        known = self._existing(doc)
        out.supersedes = [s for s in out.supersedes if s in known]
        return Scored(out, by, "", reply.usage.total, f"{prompt.name}.v{prompt.version}")

    def _prompt(self, doc: Document) -> Prompt:
        existing = self._existing(doc)
        return prompts.render(
            PROMPT,
            body=tokens.trim(doc.body, self.config.llm.max_input_tokens),
            existing="\n".join(f"{slug}: {title}" for slug, title in existing.items()) or "(none)",
        )

    def _existing(self, doc: Document) -> dict[str, str]:
        """Long-term memories of the scope that this session might replace: the ones its
        title and triggers find (titles only: bounded, and nothing else is sent)."""
        from memoryd import search

        query = " ".join([doc.meta.title, *doc.meta.triggers])
        hits = search.search(
            self.store,
            query,
            scopes=[doc.meta.scope_hash],
            types=[t.value for t in MemoryType if t.long_term],
            limit=EXISTING_LIMIT,
            include_forgotten=False,
        )
        return {h.slug: h.title for h in hits}

    def _spent(self, provider: Provider, usage: Any, *, ok: bool) -> None:
        spend.record(
            self.store,
            self.config.llm,
            provider=provider.name,
            model=provider.model,
            task=PROMPT,
            usage=usage,
            ok=ok,
        )

    def _failed(self, slug: str, error: str) -> int:
        with write_session(self.store.engine) as s:
            return sql.record_failure(s, slug, error[:500], clock.now_iso())

    def _write(self, doc: Document, fp: str, scored: Scored, *, suspect: bool = False) -> Analysis:
        """Store the scores; queue a promotion when they are high enough, never for a
        suspect session (its text would become long-term memory through the queue)."""
        meta, out, by = doc.meta, scored.out, scored.by
        assert out is not None
        scores = {"D": out.D, "U": out.U, "R": out.R, "A": out.A}
        mean = dura_mean(scores) or 0.0
        result = Analysis(
            meta.slug, "scored", by=by, scores=scores, mean=mean, note=scored.note, tokens=scored.tokens
        )
        if suspect and mean >= self.config.governance.promote_threshold:
            result.note = "; ".join(filter(None, [result.note, "suspect: not queued for promotion"]))
        elif mean >= self.config.governance.promote_threshold:
            proposal = {
                "source_session_slug": meta.slug,
                "proposed_type": out.type if out.type != "none" else MemoryType.fact.value,
                "proposed_title": (out.title or meta.title).strip()[:200],
                "proposed_body": (out.body or doc.body).strip(),
                "proposed_triggers": list(dict.fromkeys(out.triggers or meta.triggers)),
                "dura_score": scores,
                "reasoning": out.reasoning,
                "proposed_supersedes": out.supersedes,
                "scope_hash": meta.scope_hash,
                "created_at": clock.now_iso(),
            }
            if self.store.keys.sensitive(meta.scope_hash):
                from memoryd.sensitive import content

                key = self.store.keys.get(meta.scope_hash)
                proposal = content.seal_proposal(key, meta.scope_hash, proposal)
            with write_session(self.store.engine) as s:
                pid, action = sql.queue_promotion(s, proposal)
            result.promotion_id, result.promotion = pid, action
            if action != "decided":
                self.store.audit.append(
                    "promotion_queued" if action == "queued" else "promotion_updated",
                    actor=self.actor,
                    scope_hash=meta.scope_hash,
                    target_id=str(pid),
                    details={"session": meta.slug, "type": proposal["proposed_type"], "mean": mean},
                    # the same proposal again (a retry after a crash) is not logged twice;
                    # a re-analysis that changed it is
                    dedupe=f"promotion:{pid}:{fp}:{_digest(proposal)}",
                )
        faults.point("analyze:queued")  # the proposal is queued, the session not yet marked
        meta.dura_score = scores
        extras = meta.model_extra if meta.model_extra is not None else {}
        extras["analysis"] = {
            "by": by,
            "at": clock.now_iso(),
            "prompt": scored.prompt,
            "fingerprint": fp,
        }
        if suspect:  # rules only, not queued: clearing the flag makes it due again
            extras["analysis"][HELD] = True
        self.store.save(
            doc,
            event="analyze",
            actor=self.actor,
            details={"by": by, "dura": scores, "mean": mean, "promotion": result.promotion_id},
        )
        with write_session(self.store.engine) as s:
            sql.clear_failure(s, meta.slug)
        return result

    # -- many -------------------------------------------------------------------------
    def pending(self, *, limit: int | None = None, failed_before: str | None = None) -> list[Analysis]:
        """Every session not analysed yet or changed since, failures included."""
        with read_session(self.store.engine) as s:
            due = sql.due_for_analysis(s, limit, failed_before=failed_before)
        out = []
        for slug in due:
            try:
                # The index says it is due (new, changed, or its proposal was lost with
                # the index): analyse even if the file says it was analysed.
                out.append(self.session(slug, force=True))
            except (NotFound, CorruptFile, KeyUnavailable) as exc:  # gone, damaged, or locked
                out.append(Analysis(slug, "skipped", note=str(exc)))
        return out


def _digest(proposal: dict[str, Any]) -> str:
    words = {k: v for k, v in proposal.items() if k != "created_at"}
    return hashlib.sha1(json.dumps(words, sort_keys=True, default=str).encode()).hexdigest()[:12]


# In the frontmatter's `analysis`: made while the session was suspect (memoryd.suspect_doc.clear
# drops such an analysis, so the session is analysed and proposed afresh once cleared).
HELD = HELD_ANALYSIS
AFTER_CAPTURE_LIMIT = 20
RETRY_WAIT = timedelta(minutes=10)


def after_capture(store: Store, config: Config, *, actor: str = "worker") -> list[Analysis]:
    """Run by the capture worker once the spool is drained: capture is already done, so
    a slow or absent network only delays scores. One analyser at a time; a session that
    just failed waits RETRY_WAIT before the next automatic try."""
    if not config.governance.analyze_after_capture:
        return []
    lock = FileLock(str(store.layout.analysis_lock), mode=FILE_MODE)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        return []
    try:
        store.keys.refresh()  # a scope may have been marked sensitive since this process looked
        cutoff = clock.iso(clock.now() - RETRY_WAIT)
        return Analyzer(store, config, actor=actor).pending(limit=AFTER_CAPTURE_LIMIT, failed_before=cutoff)
    finally:
        lock.release()


def failures(store: Store) -> list[dict[str, Any]]:
    with read_session(store.engine) as s:
        return sql.failures(s)
