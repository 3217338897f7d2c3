"""The facade: the one object the CLI, the MCP server and the tray talk to.

Adapters format what these methods return; no business rule lives in an adapter.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import sys
import threading
import time
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from memoryd import clock, faults, paths, search, slugs
from memoryd import config as config_mod
from memoryd.app_upkeep import Upkeep
from memoryd.audit import Event, Verdict
from memoryd.capture import spool
from memoryd.capture.worker import DrainReport, drain
from memoryd.config import Config
from memoryd.errors import UsageError
from memoryd.frontmatter import Document
from memoryd.models import LONG_TERM_TYPES, DecayState, Frontmatter, MemoryType, default_ttl
from memoryd.projects import Project
from memoryd.reader import SENSITIVE_TITLE
from memoryd.scope import Scope, resolve
from memoryd.store import DoctorReport, ReindexReport, Store, Turn, TurnHit
from memoryd.vectors import INLINE_EMBED

log = logging.getLogger(__name__)

PRELOAD_KEYWORDS_S = 600.0  # at most this long for the postings (100k memories: about 20 s)

if TYPE_CHECKING:  # governance pulls in the LLM layer: imported when first used
    from memoryd.consolidate import Report as ConsolidationReport
    from memoryd.consolidate import Step as ConsolidationStep
    from memoryd.embed import Embedder
    from memoryd.governance.analyze import Analysis, Analyzer
    from memoryd.governance.decay import SweepReport
    from memoryd.governance.digest import Digest
    from memoryd.governance.merge import MergeResult
    from memoryd.governance.spend import SpendReport
    from memoryd.importers.common import ImportReport
    from memoryd.kg.learn import Learned, Learner
    from memoryd.kg.supersedes import Moved
    from memoryd.markdown_export import Written
    from memoryd.profile.changes import MonthChanges
    from memoryd.profile.identity import Rewrite
    from memoryd.profile.report import Report
    from memoryd.profile.withheld import Withheld
    from memoryd.sensitive.grants import Grant
    from memoryd.sensitive.marking import MarkReport


# What one record or update may carry (docs/data-format.md). A memory is a note: far below
# these by hand, while an agent's 9 MB body once took two minutes to record (at the body
# limit a record takes about a second: indexing, redaction and the graph's extraction).
MAX_TITLE_CHARS = 200
MAX_BODY_BYTES = 64 * 1024
MAX_WORDS = 32  # triggers, and tags: each a word or a short phrase a search would use
MAX_WORD_CHARS = 1000  # 32 of them stay under the body limit; an agent may pass a whole line


def check_sizes(
    title: str | None,
    body: str | None,
    triggers: Sequence[str] | None = None,
    tags: Sequence[str] | None = None,
) -> None:
    """One UsageError naming the argument and its limit, in words that read the same as a
    CLI error and as an MCP tool error (`title`, `body`, `triggers`, `tags` are both
    adapters' names). Text that is not UTF-8 (argv's undecodable bytes arrive as lone
    surrogates) is refused here too, before it reaches a file."""
    from memoryd.safeopen import size_text

    for name, text in (("title", title), ("body", body)):
        if text is not None and not _is_utf8(text):
            raise UsageError(f"{name} is not UTF-8 text")
    if title is not None and len(title) > MAX_TITLE_CHARS:
        raise UsageError(f"title is {len(title)} characters; the limit is {MAX_TITLE_CHARS}")
    size = len(body.encode("utf-8", "surrogatepass")) if body is not None else 0
    if size > MAX_BODY_BYTES:
        shown = size_text(size)
        if shown == size_text(MAX_BODY_BYTES):  # 65,537 bytes is not "64 KB; the limit is 64 KB"
            shown = f"{size:,} bytes, over"
        raise UsageError(
            f"body is {shown}; the limit is {size_text(MAX_BODY_BYTES)} "
            "(keep the note short and point to a file for the rest)"
        )
    for name, given in (("triggers", triggers), ("tags", tags)):
        words = list(given or ())
        if len(words) > MAX_WORDS:
            raise UsageError(f"{name} has {len(words)} entries; the limit is {MAX_WORDS}")
        for word in words:
            if not _is_utf8(word):
                raise UsageError(f"{name} holds text that is not UTF-8")
            if len(word) > MAX_WORD_CHARS:
                raise UsageError(
                    f"{name} holds an entry of {len(word)} characters; the limit is {MAX_WORD_CHARS}"
                )


def _is_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


_F = TypeVar("_F", bound=Callable[..., Any])


def _settles(method: _F) -> _F:
    """After a method that may change memories, re-render the snapshots of the scopes it
    touched, so the next agent start-up reads a fresh file (memoryd.snapshot)."""

    @functools.wraps(method)
    def wrapper(self: Memoryd, *args: Any, **kwargs: Any) -> Any:
        try:
            result = method(self, *args, **kwargs)
        except BaseException:
            # What was written before the failure still gets its snapshot; a failure to
            # render must not hide the error the caller needs to see.
            with contextlib.suppress(Exception):
                self.settle()
            raise
        self.settle()
        return result

    return wrapper  # type: ignore[return-value]


@dataclass(frozen=True)
class Changes:
    """What a mutation changed, so a GUI redraws only that."""

    created: tuple[str, ...] = ()
    updated: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    scopes: tuple[str, ...] = ()
    # A record whose text a memory already held: that memory, given back unchanged.
    existing: tuple[str, ...] = ()


@dataclass
class MemoryView:
    doc: Document
    path: Path
    turns: list[Turn] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        from memoryd.frontmatter import _plain

        meta = {k: _plain(v) for k, v in self.doc.meta.model_dump().items()}
        return {**meta, "body": self.doc.body, "path": str(self.path), "turns": len(self.turns)}


class Memoryd(Upkeep):
    """The memory operations; scheduled jobs and settings come from `Upkeep`."""

    def __init__(
        self,
        layout: paths.Layout | None = None,
        config: Config | None = None,
        *,
        llm_env: Mapping[str, str] | None = None,
        llm_transport: Any = None,
        warm: bool = False,
    ) -> None:
        self.layout = layout or paths.layout()
        # A long-lived process (the MCP server, the tray): keyword search keeps its postings
        # in memory (Store.warm_keywords). A short command would pay the build for one query.
        self.warm = warm
        self.config = config or config_mod.load()
        self._config_seen = self._config_stamp()  # reload_config_if_changed compares with it
        # Where the LLM's key is read (default: the environment) and an httpx transport
        # for its traffic (tests replay recorded answers through the real SDK).
        self.llm_env = llm_env
        self.llm_transport = llm_transport
        self._store: Store | None = None
        self._store_lock = threading.Lock()
        # What the knowledge graph learned from the last record / update / promote.
        self.learned: Learned | None = None
        # The review action the last promote / reject / merge / not_duplicates recorded
        # (what the tray's Undo takes back: memoryd.governance.undo).
        self.last_action: int | None = None
        # Sensitive scopes the last search could not look into: (scope_hash, root, count).
        self.withheld: list[tuple[str, str, int]] = []
        # Granted sensitive scopes whose memories the last search could not decrypt:
        # (scope_hash, root, count, why), why being the key's error or "damaged files".
        self.unopened: list[tuple[str, str, int, str]] = []
        # Where the one line saying the embedding model is unavailable goes.
        self.warn: Callable[[str], None] = _warn
        self._embedder: Any = None
        self._embedder_loaded = False
        self._embedder_lock = threading.Lock()  # preload's thread and a search may both ask
        self._preloading: threading.Thread | None = None
        self._vectors_caught_up = False

    def settle(self) -> None:
        if self._store is not None and self._store.changed_scopes:
            from memoryd import snapshot

            changed = set(self._store.changed_scopes)
            snapshot.refresh_changed(self._store)
            if self.config.exports:  # MEMORY.md of the configured targets these scopes feed
                from memoryd import markdown_export

                markdown_export.refresh(self._store, self.config, scopes=changed)

    @property
    def store(self) -> Store:
        if self._store is None:
            with self._store_lock:  # the tray's worker threads and preload may race to open it
                if self._store is None:
                    store = Store.open(self.layout)
                    if self.warm:
                        store.warm_keywords()
                    self._store = store
        return self._store

    # -- scopes -----------------------------------------------------------------------
    def scope(self, path: str | Path | None = None) -> Scope:
        """The scope of a folder, under the hash it is linked to (memoryd.scope_links); a git
        scope's origin remote is noted the first time, which links clones of one repository
        on other devices at the next sync."""
        from memoryd import links

        return links.seen(self.layout, resolve(path or Path.cwd()), lambda: self.store)

    def marked_scope(self, path: str | Path) -> Scope:
        """A sensitive scope by its hash or its recorded root, even if the folder moved or
        is gone (the tray lists scopes by what core recorded); else resolved as usual."""
        from memoryd.envpaths import hash_root
        from memoryd.sensitive import state

        text = str(path)
        hashes = state.sensitive_hashes(self.layout)
        if text in hashes:
            return Scope(hash=text, root=Path(self.store.keys.label(text)), kind="dir")
        given = Path(text).expanduser().absolute()
        if (h := hash_root(str(given))) in hashes:  # its recorded folder (sealed), even if gone
            return Scope(hash=h, root=given, kind="dir")
        return self.scope(path)

    def note_project(self, scope: Scope) -> None:
        """A write path (or `memoryd scope`) met this scope: remember its folder, so lists
        name the project (memoryd.sensitive.names seals a sensitive one's)."""
        from memoryd.sensitive import names

        names.note(self.store, scope)

    def project_names(self, hashes: Iterable[str]) -> dict[str, Project]:
        """How to show each scope hash: its project's name and root (memoryd.projects); a
        sensitive project's name only under a live grant; a hash never seen as itself."""
        from memoryd.sensitive import names

        return names.names(self.store, hashes)

    @staticmethod
    def search_terms(query: str) -> list[str]:
        """The words a search looks for in `query`, as the keyword index sees them
        (lower-cased, stopwords dropped, Han runs as bigrams): what the tray highlights."""
        from memoryd.textproc import terms

        return list(dict.fromkeys(terms(query)))

    def scope_filter(self, path: str | Path | None, all_scopes: bool) -> list[str] | None:
        if all_scopes:
            return None
        return [self.scope(path).hash]

    # -- capture ----------------------------------------------------------------------
    @_settles
    def drain_spool(self, *, wait: bool = False, analyze: bool = False, actor: str = "cli") -> DrainReport:
        """Turn spooled captures into sessions; with `analyze`, score them too, as the
        detached worker does (the tray's "Process captures now")."""
        report = drain(self.store, self.config, wait=wait)
        if analyze and report.captured:
            from memoryd.governance.analyze import after_capture

            after_capture(self.store, self.config, actor=actor)
        return report

    def catch_up(self) -> None:
        """Reads first process what hooks spooled, if no worker is on it already."""
        if spool.pending(self.layout.spool):
            self.drain_spool(wait=False)

    # -- memories ---------------------------------------------------------------------
    @_settles
    def record(
        self,
        memory_type: str,
        title: str,
        body: str,
        *,
        triggers: Sequence[str] = (),
        tags: Sequence[str] = (),
        category: str | None = None,
        scope_path: str | Path | None = None,
        actor: str = "cli",
        source: str = "manual",
        by_agent: bool = False,
    ) -> tuple[Document, Changes]:
        """`by_agent`: an agent wrote it (MCP mem_record), whatever its source says; its
        provenance must never read as the user's (memoryd.quoting.BY_KEY)."""
        mtype = _long_term_type(memory_type)
        title = unicodedata.normalize("NFC", title.strip())
        check_sizes(title, body, triggers, tags)
        if not title:
            raise UsageError("--title must not be empty")
        if not body.strip():
            raise UsageError("the body is empty: pass --body or text on stdin")
        scope = self.scope(scope_path)
        sensitive = self._sensitive_scope(scope)
        now = clock.now()
        meta = Frontmatter(
            title=title,
            slug=slugs.for_sensitive(now) if sensitive else slugs.for_title(title, now),
            type=mtype,
            scope_hash=scope.hash,
            source=source,
            created_at=now,
            updated_at=now,
            tags=list(dict.fromkeys(tags)),
            triggers=list(dict.fromkeys(triggers)),
            category=category,
            ttl_days=default_ttl(mtype),
            last_recalled_at=now,
        )
        if by_agent:
            from memoryd.quoting import BY_AGENT, BY_KEY

            setattr(meta, BY_KEY, BY_AGENT)
        # NFC: the same words pasted from another system (macOS writes NFD) are the same
        # text; blank lines around the body are no part of it.
        body = unicodedata.normalize("NFC", body).strip("\r\n").rstrip() + "\n"
        doc = Document(meta=meta, body=body)
        faults.pause("record:start")
        with self.store.writing():  # check and save as one: two records at once make one memory
            existing = self._recorded_as(doc, sensitive, actor)
            faults.pause("record:checked")
            if existing is None:
                for _ in range(16):  # two bytes of chance: a name taken by a like title that day
                    if not self._slug_taken(doc):
                        break
                    meta.slug = slugs.for_sensitive(now) if sensitive else slugs.for_title(title, now)
                self.store.save(doc, event="record", actor=actor, details={"type": mtype.value})
                self.note_project(scope)  # under the lock a mark seals the scope's name under
        if existing is not None:
            self.learned = None
            return self.store.read(existing)[0], Changes(existing=(existing,))
        doc, touched = self._learn(meta.slug, actor=actor, project=scope.root.name)
        self._embed_inline([meta.slug, *touched])
        return doc, Changes(created=(meta.slug,), updated=touched, scopes=(scope.hash,))

    def _embed_inline(self, slugs: Sequence[str]) -> None:
        """Vectors for what was just written, when the model is warm in this process (the
        MCP server, the tray: a few ms a memory). A cold CLI does not load a model for one
        memory (about 3 s): the next worker run or `reindex` embeds it, and keyword search
        finds it meanwhile. A failure here never fails the write."""
        from memoryd import embed

        embedder = embed.loaded(self.config)
        if embedder is None or not slugs:
            return
        try:
            self.store.embed_vectors(embedder, slugs=slugs)
        except Exception:
            log.warning("embedding %s failed; the next worker run or reindex retries", slugs, exc_info=True)

    def _recorded_as(self, doc: Document, sensitive: bool, actor: str) -> str | None:
        """The memory already holding this text, if the caller may know of it. Nothing is
        written for a repeat, so no `record` event either. In a sensitive scope writing
        needs no grant but reading does: without a live grant the answer "already recorded"
        would confirm a guess of a memory's text, so the record is written as before; with
        one, the read is audited as `sensitive_read`."""
        from memoryd.sensitive import gate

        if sensitive and not gate.allowed(self.store, doc.meta.scope_hash):
            return None
        slug = self.store.recorded_as(doc)
        if slug is not None and sensitive:
            self.store.audit.append(
                "sensitive_read",
                actor=actor,
                scope_hash=doc.meta.scope_hash,
                target_id=slug,
                details={"what": "record", "found": "already recorded"},
            )
        return slug

    @_settles
    def update(
        self,
        slug: str,
        *,
        title: str | None = None,
        body: str | None = None,
        triggers: Sequence[str] | None = None,
        tags: Sequence[str] | None = None,
        actor: str = "cli",
    ) -> tuple[Document, Changes]:
        slugs.validate(slug)
        check_sizes(title.strip() if title is not None else None, body, triggers, tags)
        self.gate(self.store.row(slug)["scope_hash"], what="update", target=slug, actor=actor)
        with self.store.writing():  # read, changed and written back whole
            doc, _ = self.store.read(slug)
            changed = []
            if title is not None and title.strip() and title.strip() != doc.meta.title:
                doc.meta.title = title.strip()
                changed.append("title")
            if body is not None and body.strip():
                new_body = body if body.endswith("\n") else body + "\n"
                if new_body != doc.body:
                    doc.body = new_body
                    changed.append("body")
            if triggers is not None and list(triggers) != doc.meta.triggers:
                doc.meta.triggers = list(dict.fromkeys(triggers))
                changed.append("triggers")
            if tags is not None and list(tags) != doc.meta.tags:
                doc.meta.tags = list(dict.fromkeys(tags))
                changed.append("tags")
            if not changed:
                return doc, Changes()
            doc.meta.updated_at = clock.now()
            self.store.save(doc, event="update", actor=actor, details={"fields": changed})
        touched: tuple[str, ...] = ()
        if doc.meta.type.long_term and ({"title", "body"} & set(changed)):
            doc, touched = self._learn(slug, actor=actor)
        self._embed_inline([slug, *touched])
        return doc, Changes(updated=(slug, *touched), scopes=(doc.meta.scope_hash,))

    def learner(self, *, actor: str = "cli") -> Learner:
        from memoryd.kg.learn import Learner

        return Learner(self.store, self.config, actor=actor, env=self.llm_env, transport=self.llm_transport)

    def _learn(
        self, slug: str, *, actor: str, project: str | None = None, hints: Sequence[str] = ()
    ) -> tuple[Document, tuple[str, ...]]:
        """The knowledge-graph step after a write. The memory is already saved: a failure
        here is a note on `self.learned`, never a lost write."""
        from memoryd.errors import MemorydError
        from memoryd.kg.learn import Learned

        try:
            self.learned = self.learner(actor=actor).learn(slug, project=project, hints=hints)
        except MemorydError as exc:
            self.learned = Learned(slug, "", notes=[f"knowledge graph not updated: {exc}"])
        except Exception as exc:  # e.g. the index busy past its timeout: retry with `graph extract`
            self.learned = Learned(
                slug,
                "",
                notes=[f"knowledge graph not updated ({type(exc).__name__}: {exc}); the memory is saved"],
            )
        touched = tuple(j["older"] for j in self.learned.judgements if j["outcome"] == "superseded")
        return self.store.read(slug)[0], touched

    def _sensitive_scope(self, scope: Scope) -> bool:
        if self.store.keys.sensitive(scope.hash):
            return True
        if scope.marked:
            raise UsageError(
                f"{scope.root} is marked sensitive but has no key on this machine: "
                f"run `memoryd mark-sensitive {scope.root}` (or `memoryd key import FILE`)"
            )
        return False

    def gate(self, scope_hash: str, *, what: str, target: str | None = None, actor: str = "cli") -> None:
        from memoryd.sensitive import gate

        gate.check_or_raise(self.store, scope_hash, actor=actor, what=what, target=target)

    def get(self, slug: str, *, count_recall: bool = True, actor: str = "cli") -> MemoryView:
        slugs.validate(slug)
        row = self.store.row(slug)
        self.gate(row["scope_hash"], what="get", target=slug, actor=actor)
        doc, path = self.store.read(slug)
        if count_recall:
            self.store.record_recall([slug], [])
            doc, path = self.store.read(slug)
        return MemoryView(doc, path, self.store.files.read_turns(path))

    def list(
        self,
        *,
        scopes: Sequence[str] | None,
        memory_type: str | None = None,
        include_forgotten: bool = False,
        limit: int | None = None,
    ) -> list[dict[str, Any]]:
        types = [_any_type(memory_type).value] if memory_type else None
        rows = self.store.list(
            scopes=scopes, types=types, states=search.states_for(include_forgotten), limit=limit
        )
        for r in rows:
            if r.get("scope_sensitive") and not r["title"]:
                r["title"] = SENSITIVE_TITLE
        return rows

    @_settles
    def forget(self, slug: str, *, actor: str = "cli") -> Changes:
        slugs.validate(slug)
        self.gate(self.store.row(slug)["scope_hash"], what="forget", target=slug, actor=actor)
        doc = self.store.forget(slug, actor=actor)
        self._release_orphans(actor=actor)
        return Changes(updated=(slug,), scopes=(doc.meta.scope_hash,))

    # -- suspect memories (memoryd.suspect_doc) ----------------------------------------
    def suspects(self, *, scopes: Sequence[str] | None = None) -> list[dict[str, Any]]:
        """Memories flagged as aimed at an AI, newest first, each with its `suspect`
        reasons; a person clears or forgets them (the digest, the tray, `memoryd suspect`)."""
        rows = self.store.suspects(scopes)
        for r in rows:
            if r.get("scope_sensitive") and not r["title"]:
                r["title"] = SENSITIVE_TITLE
        return rows

    @_settles
    def clear_suspect(self, slug: str, *, actor: str = "cli") -> Changes:
        """A person read the memory and vouches for it: it may enter the start-up snapshot
        and the exports again; the same text does not flag it again, new attack text does."""
        slugs.validate(slug)
        row = self.store.row(slug)
        self.gate(row["scope_hash"], what="clear-suspect", target=slug, actor=actor)
        self.store.clear_suspect(slug, actor=actor)
        return Changes(updated=(slug,), scopes=(row["scope_hash"],))

    def _release_orphans(self, merged: dict[str, str] | None = None, *, actor: str) -> list[Moved]:
        from memoryd.kg import supersedes

        return supersedes.release_orphans(self.store, merged, actor=actor)

    # -- search -----------------------------------------------------------------------
    def embedder(self) -> Embedder | None:
        """The configured embedding model, loaded on first use; None (and one warning line
        for the whole life of this facade) when it is unavailable: search falls back to
        keywords rather than fail."""
        with self._embedder_lock:
            if not self._embedder_loaded:
                from memoryd import embed

                self._embedder = embed.load(self.config, self.warn)
                self._embedder_loaded = True
        return cast("Embedder | None", self._embedder)

    def preload(self) -> threading.Thread:
        """Open the store and load the model, the memories' vectors and the warm keyword
        postings on a thread of their own, for a long-lived process about to search: the
        MCP server once its transport holds stdin and stdout, the tray's browser at the first
        keystroke. The first search then answers in milliseconds, not the seconds a large
        store takes to load; one that comes first waits for the same locks rather than load
        twice (or, for keywords, asks SQL meanwhile). Nothing runs on the caller's thread, so
        a store another process holds locked never delays it. Once per facade; the model is
        not loaded in keyword mode. A failure is one INFO line: the search that meets it
        reports it the usual way (one warning, keyword search)."""

        def step(what: str, fn: Callable[[], Any]) -> Any:
            try:
                return fn()
            except Exception as exc:
                log.info("not preloading %s (%s: %s)", what, type(exc).__name__, exc)
                log.debug("preloading %s failed", what, exc_info=True)
                return None

        def run() -> None:
            from memoryd import embed

            t0 = time.perf_counter()
            store = step("search", lambda: self.store)
            if store is None:
                return
            step("re-indexing for Japanese and Korean search", store.resegment)  # once, after an upgrade
            ready: list[str] = []
            model = step("the model", self.embedder) if self.config.search.mode != "keyword" else None
            if model is not None:

                def vectors() -> int:
                    model.embed_query("memoryd")  # the first query builds the model's lookups
                    return store.vectors.preload(embed.tag(model))

                refs = step("the memory vectors", vectors)
                if refs is not None:
                    ready.append(f"{embed.tag(model)}, {refs} memory vectors")
            if store.keywords is not None and step(
                "the keyword postings", lambda: store.keywords.ready(PRELOAD_KEYWORDS_S)
            ):
                ready.append("keyword postings")
            what = ", ".join(ready) or "nothing to load"
            log.info("search ready: %s, loaded in %.1f s", what, time.perf_counter() - t0)

        with self._embedder_lock:
            if self._preloading is None:
                self._preloading = threading.Thread(target=run, name="memoryd-preload", daemon=True)
                self._preloading.start()
            return self._preloading

    @property
    def preloading(self) -> threading.Thread | None:
        """The preload's thread once `preload` was called (the tray starts it on demand)."""
        return self._preloading

    def _model_failed(self, line: str) -> None:
        """The model loaded but failed on a query: one warning, then keyword search for the
        rest of this facade's life (it is not tried again on every search)."""
        if self._embedder is not None:
            self._embedder = None
            self.warn(line)

    def _search_mode(self, mode: str | None) -> tuple[str, Embedder | None]:
        mode = search.check_mode(mode or self.config.search.mode)
        if mode == "keyword":
            return mode, None
        embedder = self.embedder()
        if embedder is not None and not self._vectors_caught_up:
            self._vectors_caught_up = True
            self._embed_pending(embedder)
        return mode, embedder

    def _embed_pending(self, embedder: Embedder) -> None:
        """The first search that loads the model embeds what has no vector yet, when that
        is quick: a memory a cold `record` (or a drain in this process) wrote a moment ago
        is then found by its meaning, not only by its words. More than INLINE_EMBED texts
        (a new model, an upgrade) are left to the worker and `reindex`; keyword search
        covers them meanwhile. A failure never fails the search."""
        from memoryd import embed
        from memoryd.capture.worker import embed_new

        try:
            if 0 < self.store.vectors.missing(embed.tag(embedder)) <= INLINE_EMBED:
                embed_new(self.store, self.config)
        except Exception:
            log.warning("embedding before the search failed; the worker or reindex retries", exc_info=True)

    def search(
        self,
        query: str,
        *,
        scopes: Sequence[str] | None,
        memory_type: str | None = None,
        limit: int | None = None,
        include_forgotten: bool = False,
        count_recall: bool = True,
        actor: str = "cli",
        mode: str | None = None,
    ) -> list[search.Result]:
        """`mode` is keyword, hybrid or dense; [search] mode when not given."""
        types = [_any_type(memory_type).value] if memory_type else None
        limit = self.config.search.default_limit if limit is None else limit
        if limit < 1:
            raise UsageError("--limit must be at least 1")
        query = query[: search.MAX_QUERY_CHARS]
        mode, embedder = self._search_mode(mode)
        evidence: list[search.Evidence] = []  # hybrid/dense lists, fused once over every scope
        results = search.search(
            self.store,
            query,
            scopes=scopes,
            types=types,
            limit=limit,
            include_forgotten=include_forgotten,
            mode=mode,
            embedder=embedder,
            warn=self._model_failed,
            evidence=evidence,
        )
        self.withheld, self.unopened = [], []
        for h in self._sensitive_in(scopes):
            from memoryd.errors import AuthorizationRequired, KeyUnavailable
            from memoryd.sensitive import broker, gate

            unopened: list[str] = []
            try:  # one scope's lost key must not fail every search: it is reported instead
                allowed, audited = gate.allowed(self.store, h), False
                if not allowed and broker.current is not None and scopes is not None and len(scopes) == 1:
                    # a search of this one scope: ask the tray for a grant (an all-scope search
                    # does not prompt for every sensitive scope it passes)
                    with contextlib.suppress(AuthorizationRequired):
                        self.gate(h, what="search", actor=actor)
                        allowed = audited = True
                if allowed:
                    if not audited:
                        self.gate(h, what="search", actor=actor)
                    results += search.search_sensitive(
                        self.store,
                        query,
                        h,
                        types=types,
                        limit=limit,
                        include_forgotten=include_forgotten,
                        unopened=unopened,
                        mode=mode,
                        embedder=embedder,
                        warn=self._model_failed,
                        evidence=evidence,
                    )
            except KeyUnavailable as exc:
                n = len(self.store.list(scopes=[h], types=types, states=search.states_for(include_forgotten)))
                self.unopened.append((h, self._root(h), n, str(exc)))
                continue
            if allowed:
                if unopened:
                    why = "their files do not decrypt (damaged or replaced; `memoryd doctor`)"
                    self.unopened.append((h, self._root(h), len(unopened), why))
            else:
                n = len(self.store.list(scopes=[h], types=types, states=search.states_for(include_forgotten)))
                if n:
                    self.withheld.append((h, self._root(h), n))
                    self.store.audit.append(
                        "access_denied", actor=actor, scope_hash=h, details={"what": "search", "withheld": n}
                    )
        if evidence:
            results += search.fused(self.store, query, evidence, limit=limit, hybrid=mode == "hybrid")
        results = search.successors_first(sorted(results, key=lambda r: r.score, reverse=True)[:limit])
        if count_recall and results:
            self.store.record_recall(
                [r.slug for r in results], search.matched_triggers(self.store, results, query)
            )
        return results

    def matches_elsewhere(
        self,
        query: str,
        *,
        scopes: Sequence[str],
        memory_type: str | None = None,
        include_forgotten: bool = False,
        limit: int = 100,
    ) -> int:
        """How many memories outside `scopes` the query finds (at most `limit`), for the
        hint after an empty search: no recall counted, no sensitive scope opened or audited."""
        types = [_any_type(memory_type).value] if memory_type else None
        hidden = set(scopes) | set(self._sensitive_in(None))
        hits = search.search(
            self.store,
            query,
            scopes=None,
            types=types,
            limit=limit,
            include_forgotten=include_forgotten,
            with_snippets=False,
        )
        return sum(r.scope_hash not in hidden for r in hits)

    def _root(self, scope_hash: str) -> str:
        """A sensitive scope's folder where this process can open it, else its hash."""
        return self.store.keys.root(scope_hash) or scope_hash

    def _sensitive_in(self, scopes: Sequence[str] | None) -> list[str]:
        """Read from the disk on every search, never cached: a scope marked sensitive by
        another process (the CLI beside a live MCP server or tray) is gated from the next
        search on."""
        from memoryd.sensitive import state

        if scopes is None:
            hashes = sorted(state.sensitive_hashes(self.layout))
        else:
            hashes = sorted(h for h in set(scopes) if state.is_sensitive(self.layout, h))
        if any(not self.store.keys.sensitive(h) for h in hashes):
            # marked since this facade's keys looked (they keep what they read): the gate
            # must see it too, or it lets the search through ungranted and unaudited
            self.store.keys.refresh()
        return hashes

    def traces(
        self,
        query: str,
        *,
        scopes: Sequence[str] | None,
        limit: int = 10,
        include_forgotten: bool = False,
        actor: str = "cli",
        mode: str | None = None,
    ) -> list[TurnHit]:
        """`mode` is keyword, hybrid or dense; [search] mode when not given."""
        if limit < 1:
            raise UsageError("--limit must be at least 1")
        from memoryd.sensitive import gate

        self.withheld = []
        query = query[: search.MAX_QUERY_CHARS]
        mode, embedder = self._search_mode(mode)
        hits = search.traces(
            self.store,
            query,
            scopes=scopes,
            limit=limit,
            include_forgotten=include_forgotten,
            mode=mode,
            embedder=embedder,
            warn=self._model_failed,
        )
        sealed: list[TurnHit] = []
        for h in self._sensitive_in(scopes):
            if gate.allowed(self.store, h):
                self.gate(h, what="traces", actor=actor)
                sealed += search.traces_sensitive(
                    self.store,
                    query,
                    h,
                    limit=limit,
                    include_forgotten=include_forgotten,
                    mode=mode,
                    embedder=embedder,
                    warn=self._model_failed,
                )
            elif n := len(self.store.list(scopes=[h], states=search.states_for(include_forgotten))):
                self.withheld.append((h, self._root(h), n))
        if not sealed:
            return hits
        return sorted([*hits, *sealed], key=lambda h: h.score)[:limit]  # both ranked by turnrank

    # -- maintenance ------------------------------------------------------------------
    @_settles
    def reindex(
        self,
        *,
        progress: Callable[[int, int], None] | None = None,
        actor: str = "cli",
        embed_progress: Callable[[int, int], None] | None = None,
    ) -> ReindexReport:
        """`progress(done, total)` per file; raising Cancelled from it leaves the index as it
        was. Then the vectors (`embed_progress`, default `progress`, per batch of texts):
        what was embedded before a Cancelled or a kill stays, and a rerun does the rest."""
        from memoryd.db.engine import write_session
        from memoryd.store import governance as gsql

        report = self.store.reindex(actor=actor, progress=progress)
        with write_session(self.store.engine) as s:
            report.requeued = gsql.requeue_lost_proposals(s, self.config.governance.promote_threshold)
        from memoryd import snapshot

        snapshot.refresh_all(self.store)
        self._reindex_vectors(report, embed_progress or progress)
        return report

    def _reindex_vectors(self, report: ReindexReport, progress: Callable[[int, int], None] | None) -> None:
        """Reindex's second phase: embed what has no vector of the configured model, in
        committed batches (a kill loses one batch; a rerun does only what is left), then
        drop vectors no memory or model uses any more."""
        from memoryd import embed
        from memoryd.errors import MemorydError

        embedder = embed.load(self.config, report.notes.append)
        if embedder is None:
            return
        report.model = embed.tag(embedder)
        try:
            self.store.vectors.invalid(report.model, drop=True)  # unusable rows: embedded anew
            report.embedded = self.store.embed_vectors(embedder, progress=progress)
        except MemorydError:  # Cancelled among them: as it came
            raise
        except Exception as exc:  # the model broke after it loaded: the index itself is done
            log.warning("embedding during reindex failed", exc_info=True)
            report.notes.append(
                f"embedding model {report.model} failed ({exc.__class__.__name__}: {exc}): "
                "vectors not updated; search uses keywords for what has none"
            )
            return
        self.store.vectors.gc(keep_model=report.model)
        report.vectors_missing = self.store.vectors.missing(
            report.model, skip_scopes=sorted(self.store._locked_scopes())
        )

    def doctor(self) -> DoctorReport:
        from memoryd import doctor

        report = doctor.run(self.store)
        doctor.vectors(self.store, self.config, report)
        doctor.llm_consents(self.store, self.config, report)
        return report

    def stats(self) -> dict[str, Any]:
        from memoryd import consolidate
        from memoryd.db.engine import probe, schema_version

        counts = self.store.counts()
        last = self.store.last_runs()
        caps = probe()
        return {
            "home": str(self.layout.home),
            "by_type": {r["type"]: r["n"] for r in counts["by_type"]},
            "by_state": {r["decay_state"]: r["n"] for r in counts["by_state"]},
            "by_scope": {r["scope_hash"]: r["n"] for r in counts["by_scope"]},
            "turns": counts["turns"][0]["n"] if counts["turns"] else 0,
            "forgotten_archived": self.store.files.archived_count(),
            "spool_pending": len(spool.pending(self.layout.spool)),
            "promotions_pending": self._pending_count(),
            "capture_paused": self.capture_paused(),
            "last_runs": last,
            "consolidation": consolidate.brief(self),
            "schema_version": schema_version(self.store.engine),
            "sqlite": {"version": caps.sqlite_version, "fts5": caps.fts5, "trigram": caps.trigram},
            "llm": {"provider": self.config.llm.provider, **self.spend().as_dict()},
        }

    def _pending_count(self) -> int:
        from memoryd.db.engine import read_session
        from memoryd.store import governance as gsql

        with read_session(self.store.engine) as s:
            return gsql.count_promotions(s, "pending")

    # -- governance -------------------------------------------------------------------
    def analyzer(self, *, actor: str = "cli") -> Analyzer:
        from memoryd.governance.analyze import Analyzer

        return Analyzer(
            self.store,
            self.config,
            actor=actor,
            env=self.llm_env,
            transport=self.llm_transport,
            load_embedder=self.embedder,
        )

    @_settles
    def analyze_session(self, slug: str, *, force: bool = False, actor: str = "cli") -> Analysis:
        return self.analyzer(actor=actor).session(slug, force=force)

    @_settles
    def analyze_pending(self, *, limit: int | None = None, actor: str = "cli") -> list[Analysis]:
        if limit is not None and limit < 1:
            raise UsageError("--limit must be at least 1")
        return self.analyzer(actor=actor).pending(limit=limit)

    def promotions(self, *, status: str | None = None) -> list[dict[str, Any]]:
        from memoryd.governance import promotions

        return promotions.listing(self.store, status=status)

    @_settles
    def promote(
        self,
        pid: int,
        *,
        memory_type: str | None = None,
        title: str | None = None,
        body: str | None = None,
        triggers: list[str] | None = None,
        actor: str = "cli",
    ) -> tuple[Document, Changes]:
        from memoryd.governance import promotions, undo

        hints = promotions.get(self.store, pid).get("proposed_supersedes") or []
        doc = promotions.promote(
            self.store, pid, memory_type=memory_type, title=title, body=body, triggers=triggers, actor=actor
        )
        doc, touched = self._learn(doc.meta.slug, actor=actor, hints=hints)
        self.last_action = undo.note(
            self.store,
            "approve",
            actor=actor,
            scope_hash=doc.meta.scope_hash,
            target=str(pid),
            detail={"slug": doc.meta.slug, "version": undo.version_of(self.store, doc.meta.slug)},
        )
        return doc, Changes(created=(doc.meta.slug,), updated=touched, scopes=(doc.meta.scope_hash,))

    def reject(self, pid: int, *, reason: str | None = None, actor: str = "cli") -> dict[str, Any]:
        from memoryd.governance import promotions, undo

        row = promotions.reject(self.store, pid, reason=reason, actor=actor)
        self.last_action = undo.note(
            self.store,
            "reject",
            actor=actor,
            scope_hash=row["scope_hash"],
            target=str(pid),
            detail={"decided_at": row["decided_at"]},
        )
        return row

    @_settles
    def merge(
        self, keep: str, drop: Sequence[str], *, force: bool = False, actor: str = "cli"
    ) -> tuple[MergeResult, Changes]:
        from memoryd.governance import undo
        from memoryd.governance.merge import merge

        res = merge(self.store, keep, drop, force=force, actor=actor)
        moved = self._release_orphans(dict.fromkeys(res.dropped, keep), actor=actor)
        self.last_action = undo.note(
            self.store,
            "merge",
            actor=actor,
            scope_hash=res.kept.meta.scope_hash,
            target=keep,
            detail={
                "trash": res.trash,
                "kept_path": res.kept_path,
                "version": undo.version_of(self.store, keep),
                "dropped": [{"slug": d, "body_path": p, "scope_hash": h} for d, p, h in res.dropped_at],
                # what the undo puts back beyond the files (memoryd.governance.undo)
                "promotions": list(res.promotions),
                "links": [m.as_dict() for m in moved if m.gone in res.dropped],
            },
        )
        return res, Changes(updated=(keep,), removed=res.dropped, scopes=(res.kept.meta.scope_hash,))

    def _slug_taken(self, doc: Document) -> bool:
        """A memory with this name exists (its row, or its file): saving would replace it.
        CI (2026-11-28) recorded 40 titles alike but for a last number on one day, and two
        drew the same 4-hex tag: the second overwrote the first."""
        from memoryd.db.engine import read_session
        from memoryd.store import index

        with read_session(self.store.engine) as s:
            if index.get(s, doc.meta.slug) is not None:
                return True
        return self.store.files.path_for(doc).exists()

    def not_duplicates(self, slugs: Sequence[str], *, actor: str = "cli") -> int:
        """A duplicate group a person says differs: the digest stops proposing it.
        Returns the review action's id (`undo` takes it back)."""
        from memoryd.governance import duplicates, undo

        key, scope = duplicates.mark(self.store, slugs, actor=actor)
        self.last_action = undo.note(
            self.store,
            "not_duplicates",
            actor=actor,
            scope_hash=scope,
            target=key,
            detail={"slugs": key.split(" ")},
        )
        return self.last_action

    def review_actions(self, *, limit: int = 20, undone: bool = False) -> list[Any]:
        """The latest review decisions (reject, approve, merge, not duplicates), newest first."""
        from memoryd.governance import undo

        return undo.listing(self.store, limit=limit, undone=undone)

    @_settles
    def undo(
        self, action: int | None = None, *, force: bool = False, actor: str = "cli"
    ) -> tuple[Any, Changes]:
        """Take back a review decision: the given one, or the latest a person made."""
        from memoryd.governance import undo

        done = undo.undo(self.store, action, force=force, actor=actor)
        if done.removed:
            self._release_orphans(actor=actor)
        updated = (done.action.target, *done.relinked) if done.action.kind == "merge" else ()
        return done, Changes(created=done.restored, updated=updated, removed=done.removed, scopes=done.scopes)

    @_settles
    def decay_sweep(self, *, dry_run: bool = False, actor: str = "cli") -> SweepReport:
        from memoryd.governance import decay

        report = decay.sweep(self.store, self.config.decay, dry_run=dry_run, actor=actor)
        if not dry_run:
            self._release_orphans(actor=actor)
        from memoryd.store import trash

        report.trash_emptied = trash.purge(self.layout, dry_run=dry_run, audit=self.store.audit, actor=actor)
        return report

    def digest(self, *, since: str | None = None, scopes: list[str] | None = None) -> Digest:
        from memoryd.governance import digest

        since_dt = clock.parse_ts(since, what="--since") if since else None
        if since_dt and since_dt > clock.now():
            raise UsageError("--since is in the future")
        return digest.build(self.store, self.config, since=since_dt, scopes=scopes)

    def deliver_digest(
        self, d: Digest, *, notification: bool = True, actor: str = "cli"
    ) -> list[tuple[str, bool, str]]:
        """Send the digest by notification and email; (channel, ok, message) for each.
        A sensitive project's words stay sealed in what is sent, grant or not. One channel
        failing does not stop the other. The tray shows its own notification
        (one a click can answer) and passes `notification=False`."""
        from memoryd import mailer, notify
        from memoryd.errors import DeliveryError
        from memoryd.governance import digest
        from memoryd.sensitive import state as sensitive_state

        if sensitive_state.sensitive_hashes(self.layout):
            # Built again as if no grant were live: the caller's copy may hold what a grant
            # opened, which is for the person at this machine, not for a mail server.
            with self.store.keys.outbound():
                d = self.digest(since=d.since, scopes=d.scopes)
        text = digest.render_text(d)
        results: list[tuple[str, bool, str]] = []
        if notification:
            try:
                results.append(("notification", True, notify.notify(digest.headline(d), text)))
            except DeliveryError as exc:
                results.append(("notification", False, str(exc)))
        if self.config.email.configured:
            try:
                results.append(("email", True, mailer.send(self.config.email, digest.subject(d), text)))
            except DeliveryError as exc:
                results.append(("email", False, str(exc)))
        else:
            results.append(("email", False, "not configured: set [email] host and to in config.toml"))
        self.store.audit.append(
            "digest_notify",
            actor=actor,
            details={
                "pending": len(d.pending_promotions),
                "duplicates": len(d.duplicates),
                "reminders": len(d.ttl_reminders),
                "delivered": {name: ok for name, ok, _ in results},
            },
        )
        return results

    def spend(self) -> SpendReport:
        from memoryd.governance import spend

        return spend.report(self.store, self.config.llm)

    # -- knowledge graph ----------------------------------------------------------------
    def pending_supersedes(self, *, status: str | None = "pending") -> list[dict[str, Any]]:
        from memoryd.kg import supersedes

        return [supersedes.readable(self.store, r) for r in supersedes.listing(self.store, status=status)]

    @_settles
    def confirm_supersede(self, pid: int, *, decided_by: str = "user", actor: str = "cli") -> dict[str, Any]:
        from memoryd.kg import supersedes

        row = supersedes.get_pending(self.store, pid)
        self.gate(row["scope_hash"], what="supersede", target=str(pid), actor=actor)
        return supersedes.confirm(self.store, pid, decided_by=decided_by, actor=actor)

    def dismiss_supersede(self, pid: int, *, actor: str = "cli") -> dict[str, Any]:
        from memoryd.kg import supersedes

        row = supersedes.get_pending(self.store, pid)
        self.gate(row["scope_hash"], what="supersede", target=str(pid), actor=actor)
        return supersedes.dismiss(self.store, pid, actor=actor)

    @_settles
    def link_supersede(self, newer: str, older: str, *, actor: str = "cli") -> Changes:
        """The user says `newer` replaces `older` (no judgement asked)."""
        from memoryd.kg import supersedes

        for slug in (newer, older):
            slugs.validate(slug)
        for slug in (newer, older):
            self.gate(self.store.row(slug)["scope_hash"], what="supersede", target=slug, actor=actor)
        supersedes.supersede(
            self.store,
            newer,
            older,
            confidence=1.0,
            decided_by="user",
            reason="linked by the user",
            entity=None,
            actor=actor,
        )
        return Changes(updated=(newer, older), scopes=(self.store.row(newer)["scope_hash"],))

    @_settles
    def undo_supersede(self, newer: str, older: str, *, actor: str = "cli") -> Changes:
        from memoryd.kg import supersedes

        for slug in (newer, older):
            slugs.validate(slug)
            self.gate(self.store.row(slug)["scope_hash"], what="supersede", target=slug, actor=actor)
        supersedes.undo(self.store, newer, older, actor=actor)
        return Changes(updated=(newer, older), scopes=(self.store.row(newer)["scope_hash"],))

    def history(self, slug: str, *, actor: str = "cli") -> dict[str, Any]:
        from memoryd.kg import supersedes

        slugs.validate(slug)
        self.gate(self.store.row(slug)["scope_hash"], what="history", target=slug, actor=actor)
        return supersedes.history(self.store, slug)

    def entity(self, name: str) -> dict[str, Any]:
        from memoryd.kg import graph

        return graph.entity(self.store, name)

    def entities(self, *, kind: str | None = None, top: int | None = None) -> list[dict[str, Any]]:
        from memoryd.kg import graph

        return graph.entities(self.store, kind=kind, top=top)

    def graph_export(self, fmt: str, *, scopes: Sequence[str] | None = None) -> str:
        from memoryd.kg import graph

        return graph.export(self.store, fmt, scopes=scopes)

    @_settles
    def graph_extract(
        self, *, all_memories: bool = False, use_llm: bool = False, progress: Any = None, actor: str = "cli"
    ) -> dict[str, int]:
        """Entities for memories written before the knowledge graph (or by an importer):
        by the rules unless `use_llm`; no supersedes are judged (their order is history)."""
        from memoryd.kg import graph

        learner = self.learner(actor=actor)
        if not use_llm:
            learner.config = _rules_only(self.config)
        return graph.backfill(self.store, learner, all_memories=all_memories, progress=progress)

    # -- the identity profile -----------------------------------------------------------
    def rewrite_identity(self, *, trigger: str = "manual", actor: str = "cli") -> Rewrite:
        from memoryd.profile import identity

        rw = identity.rewrite(
            self.store,
            self.config,
            trigger=trigger,
            actor=actor,
            env=self.llm_env,
            transport=self.llm_transport,
        )
        if rw.changed and self.config.exports:  # every target's USER.md
            from memoryd import markdown_export

            markdown_export.refresh(self.store, self.config)
        return rw

    def profile_versions(self) -> list[dict[str, Any]]:
        from memoryd.profile import identity

        return identity.versions(self.store)

    def profile_version(self, num: int | None = None, *, actor: str = "cli") -> dict[str, Any]:
        """A version; one withheld for a sensitive project opens through the gate."""
        from memoryd.profile import identity

        return identity.version(self.store, num, actor=actor)

    def profile_withheld(self) -> Withheld:
        """How many versions and monthly reports the listings leave out for sensitive
        projects without a live grant, and which projects (their hashes)."""
        from memoryd.profile import report

        return report.withheld_counts(self.store)

    def monthly_report(self, month: str | None = None, *, actor: str = "cli") -> Report:
        from memoryd.profile import report

        return report.generate(self.store, self.config, month, actor=actor)

    def monthly_changes(self, month: str | None = None) -> MonthChanges:
        """What the month changed, as values (the tray words them), without writing a report."""
        from memoryd.profile import report

        return report.month_changes(self.store, month)

    def profile_diff(self, a: int, b: int, *, actor: str = "cli") -> str:
        from memoryd.profile import identity

        return identity.diff_versions(self.store, a, b, actor=actor)

    # -- consolidation and file exports ------------------------------------------------
    def consolidate(
        self,
        *,
        force: bool = False,
        phase: str | None = None,
        trigger: str = "cli",
        progress: Callable[[str], None] | None = None,
        steps: Callable[[ConsolidationStep], None] | None = None,
    ) -> ConsolidationReport:
        """`progress` hears English lines (the CLI's); `steps` the same as values, for
        the tray to word."""
        from memoryd import consolidate

        return consolidate.run(
            self, force=force, phase=phase, trigger=trigger, progress=progress, steps=steps
        )

    def consolidation_state(self) -> dict[str, Any]:
        from memoryd import consolidate

        return consolidate.state(self)

    def consolidation_fallback(self) -> bool:
        """At a CLI or tray start: a consolidation overdue (no success for 48 h) is set off
        in the background, once. True when one was started."""
        from memoryd import fallback

        hours = self.config.consolidation.fallback_hours
        return fallback.fallback(self.layout, hours, fallback.spawn_consolidation)

    def export_md(self, path: str | Path, out: Path, *, overwrite: bool = False) -> Written:
        from memoryd import markdown_export

        return markdown_export.export(self.store, self.scope(path), out, overwrite=overwrite)

    # -- imports ----------------------------------------------------------------------
    @_settles
    def import_from(
        self,
        kind: str,
        path: str | Path | None = None,
        *,
        since: str | None = None,
        scope_path: str | Path | None = None,
        progress: Any = None,
        actor: str = "cli",
    ) -> ImportReport:
        """Import another system's store (docs/importers.md). Safe to repeat: what was
        imported before is updated when it changed and left alone when it did not."""
        from datetime import date

        from memoryd.importers import agent_memory, codex, memory_system, openclaw

        scope = self.scope(scope_path) if scope_path else None
        if kind == "codex":
            day = None
            if since:
                try:
                    day = date.fromisoformat(since)
                except ValueError:
                    raise UsageError(f"--since must be a date like 2026-11-01, not {since!r}") from None
            home = Path(path).expanduser() if path else None
            return codex.run(
                self.store, self.config, home=home, since=day, scope=scope, progress=progress, actor=actor
            )
        if since:
            raise UsageError("--since is for codex only")
        if path is None:
            raise UsageError(f"import {kind} needs the PATH of the store to read")
        where = Path(path)
        if kind == "openclaw":
            return openclaw.run(self.store, self.config, where, scope=scope, progress=progress, actor=actor)
        target = scope or self.scope(None)
        if kind == "memory-system":
            return memory_system.run(self.store, where, scope=target, progress=progress, actor=actor)
        if kind == "agent-memory":
            return agent_memory.run(self.store, where, scope=target, progress=progress, actor=actor)
        raise UsageError(f"unknown import kind {kind!r}")

    # -- sensitive scopes -------------------------------------------------------------
    @_settles
    def mark_sensitive(
        self,
        path: str | Path,
        *,
        passphrase: str | None = None,
        progress: Callable[[int, int], None] | None = None,
        actor: str = "cli",
    ) -> MarkReport:
        from memoryd.sensitive import marking

        scope = self.scope(path)
        self.drain_spool(wait=True)  # what hooks spooled for it becomes encrypted too
        self.store.changed(scope.hash)
        with self._workers_held():
            report = marking.mark(self.store, scope, passphrase=passphrase, actor=actor, progress=progress)
        # Captures spooled while it ran (plaintext if spooled before the scope's state file
        # existed) are sealed now, with the key this process holds.
        self.drain_spool(wait=True)
        from memoryd.sync import scrub

        table = self.config.raw.get("sync", {})
        folder = table.get("folder") if isinstance(table, dict) else None
        with self._workers_held():
            scrub.sealed_scope(self.store, scope.hash, [Path(str(folder)).expanduser()] if folder else None)
        from memoryd.profile import identity

        if identity.withdraw_scope(self.store, self.config, scope.hash, actor=actor):
            from memoryd import snapshot

            marking.compact(self.store)  # the withdrawn rows' bytes leave the free pages too
            snapshot.refresh_all(self.store)  # every project's "About the user" changed
            if self.config.exports:  # and every exported USER.md
                from memoryd import markdown_export

                markdown_export.refresh(self.store, self.config)
        return report

    @_settles
    def unmark_sensitive(self, path: str | Path, *, actor: str = "cli") -> int:
        from memoryd.sensitive import marking

        scope = self.marked_scope(path)
        self.store.changed(scope.hash)
        with self._workers_held():
            return marking.unmark(self.store, scope, actor=actor)

    @_settles
    def rotate_key(self, path: str | Path, *, new_passphrase: str | None = None, actor: str = "cli") -> int:
        from memoryd.sensitive import marking

        scope = self.marked_scope(path)
        self.store.changed(scope.hash)
        with self._workers_held():
            return marking.rotate(self.store, scope, new_passphrase=new_passphrase, actor=actor)

    @contextlib.contextmanager
    def _workers_held(self) -> Any:
        """No capture worker writes while a scope's files are rewritten (marked, unmarked,
        re-keyed): a worker mid-way would write plaintext into a scope being sealed, or a
        session twice under two names. Hooks keep spooling; workers they start find the lock
        taken and leave the spool for the drain that follows."""
        from filelock import FileLock, Timeout

        from memoryd.paths import FILE_MODE

        held = []
        try:
            # The analyser too: it rewrites session files after the worker let go.
            locks = ((self.layout.worker_lock, "capture worker"), (self.layout.analysis_lock, "analyser"))
            for path, who in locks:
                lock = FileLock(str(path), mode=FILE_MODE)
                try:
                    lock.acquire(timeout=120)
                except Timeout:
                    raise UsageError(f"the {who} has been busy for two minutes; try again") from None
                held.append(lock)
            yield
        finally:
            for lock in reversed(held):
                lock.release()

    def sensitive_settings(self, path: str | Path) -> Any:
        return self.store.keys.settings(self.marked_scope(path).hash)

    def sensitive_where(self, path: str | Path) -> str | None:
        """The folder to name a sensitive scope by: the recorded one where this process can
        open it (memoryd.sensitive.state seals it), else the folder given; None when given
        its hash and the folder stays sealed."""
        scope = self.marked_scope(path)
        return self.store.keys.root(scope.hash) or (None if str(path) == scope.hash else str(scope.root))

    def grant(
        self,
        path: str | Path,
        *,
        duration: str,
        task: str | None = None,
        passphrase: str | None = None,
        pin: str | None = None,
        in_tray: bool = False,
        actor: str = "cli",
    ) -> tuple[Grant, list[str]]:
        """Record a grant, which only the person can give: a passphrase scope needs its
        passphrase (its key is then held in the OS keyring for the grant's life); a
        random-key scope needs the grant PIN, or `in_tray` when the tray's own dialog asked
        the person (only the tray passes it). Returns the grant and warnings."""
        from memoryd.errors import KeyUnavailable
        from memoryd.sensitive import gate, grants, names, state

        scope = self.marked_scope(path)
        settings = self.store.keys.settings(scope.hash)
        if settings is None:
            raise UsageError(f"{scope.root} is not a sensitive scope: nothing to grant")
        # records that fail their check are audited and dropped before a genuine one joins them
        gate.live_grants(self.store, scope.hash, actor=actor, what="grant")
        warnings: list[str] = []

        key = self._person_confirms(
            scope.hash, settings, passphrase=passphrase, pin=pin, in_tray=in_tray, actor=actor, what="grant"
        )
        if key is not None:
            self.store.keys.remember(scope.hash, key)
            self.store.keys.claim(scope.hash)  # the passphrase is the person's: theirs to move here
            try:
                state.keyring_set(state.grant_entry(scope.hash), key)
            except KeyUnavailable:
                warnings.append("no OS keyring to hold the key for the grant: only this process can read")
        self.store.keys.claim_unowned(scope.hash)  # confirmed by the person: theirs here
        g = grants.add(self.store.keys, scope.hash, duration, task)
        names.seal_settings(self.store)  # an older settings file's folder, now the key is here
        self._index_arrived(scope.hash)
        if spool.pending(self.layout.spool):  # captures that waited for this key
            self.drain_spool(wait=False)
        self.store.audit.append(
            "grant",
            actor=actor,
            scope_hash=scope.hash,
            details={
                "duration": duration,
                "task": g.task,
                "expires_at": g.expires_at,
                "by": "tray" if in_tray else ("passphrase" if settings.key_source == "passphrase" else "pin"),
            },
        )
        return g, warnings

    def _person_confirms(
        self,
        scope_hash: str,
        settings: Any,
        *,
        passphrase: str | None,
        pin: str | None,
        in_tray: bool,
        actor: str,
        what: str,
        need_key: bool = True,
    ) -> bytes | None:
        """The person, not whoever runs the command, says yes: the scope's passphrase (its
        derived key is returned), else the grant PIN, else `in_tray` (only the tray passes
        it, after its own dialog; a passphrase scope's key is asked there too when
        `need_key`). Each refusal is audited and raised."""
        from memoryd import crypto
        from memoryd.errors import AuthorizationRequired, KeyUnavailable
        from memoryd.sensitive import pin as grant_pin
        from memoryd.sensitive.keys import NotOwned

        def refuse(why: str, error: Exception) -> None:
            self.store.audit.append(
                "access_denied", actor=actor, scope_hash=scope_hash, details={"what": what, "why": why}
            )
            raise error

        if settings.key_source != "passphrase":
            try:
                self.store.keys.check_owned(scope_hash)  # a keyring that cannot answer: its own error
            except NotOwned as exc:
                refuse("scope of another data dir", exc)
        if settings.key_source == "passphrase" and (need_key or not in_tray):
            if not passphrase:
                raise UsageError(
                    "this scope is protected by a passphrase and none was given (the CLI asks on a terminal)"
                )
            assert settings.kdf is not None
            key = crypto.derive(passphrase, settings.kdf)
            if crypto.key_check(key) != settings.key_check:
                refuse("wrong passphrase", KeyUnavailable("wrong passphrase for this scope"))
            return key
        if not in_tray and settings.key_source != "passphrase":
            if not grant_pin.is_set(self.layout.home):
                refuse(
                    "no grant PIN is set",
                    AuthorizationRequired(
                        "no grant PIN is set for this data folder: the user sets one with "
                        "`memoryd grant-pin set` "
                        "(or grants in the tray app)"
                    ),
                )
            got = grant_pin.check(self.layout.home, pin or "")
            if got == "locked":
                until = grant_pin.locked_until(self.layout.home)
                refuse(
                    "grant PIN locked after repeated wrong tries",
                    AuthorizationRequired(
                        f"too many wrong grant PINs: none is checked until {until} (grant in the tray app)"
                    ),
                )
            if got == "busy":
                refuse(
                    "grant PIN turn held by another process",
                    AuthorizationRequired(
                        "another process has held the grant PIN check for "
                        f"{grant_pin.TURN_WAIT:.0f} s: not granted (try again, or grant in the tray app)"
                    ),
                )
            if got != "right":
                refuse("wrong grant PIN", AuthorizationRequired("wrong grant PIN: not granted"))
        return None

    def allow_llm(
        self,
        path: str | Path,
        *,
        passphrase: str | None = None,
        pin: str | None = None,
        in_tray: bool = False,
        expected: str | None = None,
        actor: str = "cli",
    ) -> dict[str, Any]:
        """Let the configured LLM provider score this sensitive project's sessions (its
        text leaves the machine): the person confirms as for a grant, and the consent names
        the endpoint configured now (memoryd.llm.factory.endpoint). `expected`: the one the
        person was shown; if the config changed since (the tray reloads it while a question
        is open: a review, 2026-11-28), nothing is allowed."""
        from memoryd.llm.factory import endpoint, endpoint_problem
        from memoryd.sensitive import llm_access

        scope = self.marked_scope(path)
        settings = self.store.keys.settings(scope.hash)
        if settings is None:
            raise UsageError(f"{scope.root} is not a sensitive scope: its sessions go to the LLM already")
        where = endpoint(self.config.llm)
        if where is None:
            raise UsageError(
                f"[llm] provider = {self.config.llm.provider!r} sends nothing anywhere: nothing to allow"
            )
        if problem := endpoint_problem(self.config.llm):
            raise UsageError(f"{problem}; nothing allowed")
        if expected is not None and expected != where:
            raise UsageError(
                f"the LLM settings changed while the person was asked (now {where}): "
                "nothing allowed; ask again"
            )
        self._person_confirms(
            scope.hash,
            settings,
            passphrase=passphrase,
            pin=pin,
            in_tray=in_tray,
            actor=actor,
            what="allow-llm",
            need_key=False,  # the tray's own dialog is the person's yes; no key is opened
        )
        consent = llm_access.allow(self.store, scope.hash, where)
        by = "tray" if in_tray else ("passphrase" if settings.key_source == "passphrase" else "pin")
        self.store.audit.append(
            "llm_allowed", actor=actor, scope_hash=scope.hash, details={"endpoint": where, "by": by}
        )
        return {"scope_hash": scope.hash, "endpoint": consent.endpoint, "allowed_at": consent.at}

    def withdraw_llm(self, path: str | Path, *, actor: str = "cli") -> bool:
        """Anyone may take the consent back: it only keeps text here."""
        from memoryd.sensitive import llm_access

        scope = self.marked_scope(path)
        gone = llm_access.withdraw(self.store, scope.hash)
        if gone:
            self.store.audit.append("llm_withdrawn", actor=actor, scope_hash=scope.hash, details={})
        return gone

    def llm_consent(self, path: str | Path) -> dict[str, Any] | None:
        from memoryd.sensitive import llm_access

        scope = self.marked_scope(path)
        consent = llm_access.get(self.store, scope.hash)
        if consent is None:
            return None
        return {"scope_hash": scope.hash, "endpoint": consent.endpoint, "allowed_at": consent.at}

    def revoke(self, path: str | Path, *, task: str | None = None, actor: str = "cli") -> int:
        from memoryd.errors import KeyUnavailable
        from memoryd.sensitive import gate, grants, state

        scope = self.marked_scope(path)
        gate.live_grants(self.store, scope.hash, actor=actor, what="revoke")
        gone = grants.revoke(self.store.keys, scope.hash, task)
        if not grants.live(self.store.keys, scope.hash):
            with contextlib.suppress(KeyUnavailable):
                state.keyring_delete(state.grant_entry(scope.hash))
        self.store.audit.append(
            "revoke", actor=actor, scope_hash=scope.hash, details={"task": task, "revoked": len(gone)}
        )
        return len(gone)

    def grants(self) -> list[dict[str, Any]]:
        from memoryd.sensitive import grants

        out = []
        for g in grants.all_live(self.store.keys):
            settings = self.store.keys.settings(g.scope_hash)
            out.append({**g.as_dict(), "root": self.store.keys.root(g.scope_hash) if settings else None})
        return out

    # -- the grant PIN ----------------------------------------------------------------
    def grant_pin_status(self) -> dict[str, Any]:
        """Whether a grant PIN is set, and how many random-key scopes it guards (or would)."""
        from memoryd.sensitive import pin, state

        keys = self.store.keys
        randoms = sum(
            (s := keys.settings(h)) is not None and s.key_source == "random"
            for h in state.sensitive_hashes(self.layout)
        )
        from memoryd.paths import keyring_id

        had = state.keyring_get_quiet(state.guarded_entry(keyring_id(self.layout.home))) is not None
        return {"set": pin.is_set(self.layout.home), "random_scopes": randoms, "had_random_scopes": had}

    def check_grant_pin(self, given: str, *, what: str, actor: str = "cli") -> None:
        """Refuse (audited, the PIN never logged) unless `given` is the grant PIN."""
        from memoryd.errors import AuthorizationRequired
        from memoryd.sensitive import pin

        got = pin.check(self.layout.home, given)
        if got != "right":
            until = pin.locked_until(self.layout.home) if got == "locked" else None
            why = "grant PIN locked after repeated wrong tries" if until else "wrong grant PIN"
            if got == "busy":
                why = "grant PIN turn held by another process"
            self.store.audit.append("access_denied", actor=actor, details={"what": what, "why": why})
            if got == "busy":
                raise AuthorizationRequired(
                    f"another process has held the grant PIN check for {pin.TURN_WAIT:.0f} s: try again"
                )
            if until:
                raise AuthorizationRequired(f"too many wrong grant PINs: none is checked until {until}")
            raise AuthorizationRequired("wrong grant PIN")

    def set_grant_pin(
        self, new: str, *, old: str | None = None, in_tray: bool = False, actor: str = "cli"
    ) -> None:
        """Set or change the grant PIN. Changing it needs the current one (or the tray's
        confirmation: how a forgotten PIN is reset). The first PIN is free only while no
        random-key scope exists; after that, a PIN set by whoever runs a command could
        grant scopes they cannot read, so it needs the tray's confirmation."""
        from memoryd.errors import AuthorizationRequired
        from memoryd.sensitive import pin

        pin.check_new(new)
        status = self.grant_pin_status()
        if status["set"] and not in_tray:
            self.check_grant_pin(old or "", what="grant-pin change", actor=actor)
        elif not status["set"] and (status["random_scopes"] or status["had_random_scopes"]) and not in_tray:
            why = "first grant PIN while random-key scopes exist needs the tray"
            self.store.audit.append(
                "access_denied", actor=actor, details={"what": "grant-pin set", "why": why}
            )
            raise AuthorizationRequired(
                "random-key sensitive scopes exist (or did) in this data dir without a grant PIN: "
                "setting the first one needs the person's confirmation in the tray app (start "
                "memoryd-tray and run this again)"
            )
        pin.store(self.layout.home, new)
        self.store.audit.append(
            "grant_pin_set",
            actor=actor,
            details={"changed": bool(status["set"]), "by": "tray" if in_tray else actor},
        )

    def key_export(self, path: str | Path, out: Path, *, passphrase: str, actor: str = "cli") -> None:
        from memoryd.sensitive import marking

        marking.export_key(self.store, self.marked_scope(path), out, passphrase=passphrase, actor=actor)

    def key_import(self, file: Path, *, passphrase: str, actor: str = "cli") -> str:
        from memoryd.sensitive import marking

        h = marking.import_key(self.store, file, passphrase=passphrase, actor=actor)
        self._index_arrived(h)
        return h

    def _index_arrived(self, scope_hash: str) -> None:
        """Sealed memories that came by import or sync before this machine had their key
        are on disk without rows; once the key is here they are indexed."""
        from memoryd.db.engine import read_session
        from memoryd.errors import KeyUnavailable
        from memoryd.store import index

        files = self.store.files
        with read_session(self.store.engine) as s:
            rows = index.all_body_paths(s)
        if all(files.relative(p) in rows for p in files.all_files(scope_hash)):
            return
        with contextlib.suppress(KeyUnavailable):
            self.store.reindex_scope(scope_hash)
            self.store.changed(scope_hash)

    # -- across devices -----------------------------------------------------------------
    def sync_folder(self, folder: str | Path | None = None) -> Path:
        if folder is None:
            table = self.config.raw.get("sync", {})
            folder = table.get("folder") if isinstance(table, dict) else None
        if not folder:
            raise UsageError('no sync folder: give --folder PATH or set [sync] folder = "PATH"')
        return Path(str(folder)).expanduser()

    @_settles
    def sync(self, folder: str | Path | None = None, *, actor: str = "cli") -> Any:
        from memoryd.sync import run

        return run.sync(self.store, self.sync_folder(folder), actor=actor)

    def export_memories(self, out: Path, *, scopes: list[str] | None = None, force: bool = False) -> int:
        from memoryd.sync import run

        return run.export(self.store, out, scopes=scopes, force=force)

    @_settles
    def import_memories(self, file: Path, *, actor: str = "cli") -> Any:
        from memoryd.sync import run

        return run.import_file(self.store, file, actor=actor)

    def sync_conflicts(self, scopes: list[str] | None = None) -> list[dict[str, Any]]:
        from memoryd.sync import run

        return run.conflicts(self.layout.home, scopes)

    def sync_show(self, slug: str) -> list[dict[str, Any]]:
        """Every version of a conflicted memory, the kept one first: its file `content`
        and, when readable, its `fields` (title, type, triggers, tags, body)."""
        from memoryd.sync import run

        return run.show(self.layout.home, slug)

    @_settles
    def sync_resolve(self, slug: str, *, take: str | None = None, actor: str = "cli") -> str:
        from memoryd.sync import run

        return run.resolve(self.store, slug, take, actor=actor)

    @_settles
    def scope_link(self, a: str, b: str, *, actor: str = "cli") -> dict[str, Any]:
        from memoryd import links

        return links.link(self.store, a, b, actor=actor)

    # -- audit ------------------------------------------------------------------------
    def audit_events(
        self, *, scope_hash: str | None = None, since: str | None = None, event_type: str | None = None
    ) -> list[Event]:
        since_dt = clock.parse_ts(since, what="--since") if since else None
        out = []
        for ev in self.store.audit.events():
            if scope_hash and ev.scope_hash != scope_hash:
                continue
            if event_type and ev.event_type != event_type:
                continue
            if since_dt and clock.parse_ts(ev.ts) < since_dt:
                continue
            out.append(ev)
        return out

    def audit_verify(self) -> Verdict:
        return self.store.audit.verify()


def _warn(text: str) -> None:
    """One line on stderr (never stdout: --json output and the MCP stdio channel live there)."""
    line = "".join(c if c.isprintable() else repr(c)[1:-1] for c in " ".join(text.split()))
    sys.stderr.write(f"memoryd: warning: {line}\n")


def _rules_only(config: Config) -> Config:
    from dataclasses import replace

    return replace(config, knowledge=replace(config.knowledge, llm_entities=False))


def _any_type(name: str) -> MemoryType:
    try:
        return MemoryType(name)
    except ValueError:
        raise UsageError(
            f"unknown type {name!r}; expected one of {', '.join(t.value for t in MemoryType)}"
        ) from None


def _long_term_type(name: str) -> MemoryType:
    if name not in {t.value for t in MemoryType}:
        allowed = ", ".join(t.value for t in LONG_TERM_TYPES)
        raise UsageError(f"unknown type {name!r}; expected one of {allowed}")
    mtype = MemoryType(name)
    if mtype not in LONG_TERM_TYPES:
        raise UsageError(
            "sessions come from capture; record one of " + ", ".join(t.value for t in LONG_TERM_TYPES)
        )
    return mtype


__all__ = ["Changes", "DecayState", "MemoryView", "Memoryd", "Project"]
