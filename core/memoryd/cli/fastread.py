"""`memoryd search`, `get`, `list` and `scope` without SQLAlchemy, SQLModel or pydantic.

Agents call these in a loop, each a cold process. `prepare` parses the command line with
only these commands' parsers and builds a ReadApp, an object with the few methods of
memoryd.app.Memoryd the command handlers call, served by memoryd.reader. It returns None,
and the CLI takes the full path, for anything the read path does not do exactly as the
full one: a command line that does not parse (the full parser says why, in its words),
`--help`, an index that is absent or not at the current migration version, captures
waiting in the spool (reads process them first), a sensitive scope in reach (the gate asks
for a grant and audits), a git scope seen for the first time (its origin remote is noted),
`scope link`, a memory file memoryd did not write as it stands (`get`), and a hybrid or
dense search that would first embed texts without a vector (Memoryd._embed_pending, a
write). No output and no write happens before that decision, so the full path starts from
the same state; the embedding model, loaded for that decision, stays loaded for it.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memoryd import paths
from memoryd.cli.parser import Parser
from memoryd.config import Config
from memoryd.kinds import DecayState, MemoryType
from memoryd.reader import SENSITIVE_TITLE, Reader, open_current, sensitive_hashes
from memoryd.scope import Scope

if TYPE_CHECKING:
    from memoryd.embed import Embedder
    from memoryd.projects import Project

COMMANDS = ("search", "get", "list", "scope")


class _Refused(Exception):
    """The short parser will not say it: the full parser will, in its own words."""


class _QuietParser(Parser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise _Refused(message)


def parse(argv: Sequence[str]) -> argparse.Namespace | None:
    if not argv or argv[0] not in COMMANDS or any(a in ("-h", "--help") for a in argv):
        return None
    from memoryd.cli.commands import memories, scope
    from memoryd.cli.commands import search as search_cmd

    parser = _QuietParser(prog="memoryd", add_help=False)
    sub = parser.add_subparsers(dest="command", parser_class=_QuietParser)
    common = _QuietParser(add_help=False)
    common.add_argument("--json", action="store_true")
    for module in (scope, memories, search_cmd):
        module.register(sub, common)
    try:
        return parser.parse_args(list(argv))
    except (_Refused, SystemExit):
        return None


@dataclass
class Meta:
    """The fields of a memory's frontmatter that `get` prints."""

    title: str
    slug: str
    type: MemoryType
    scope_hash: str
    decay_state: DecayState
    recall_count: int
    triggers: list[str]
    tags: list[str]


@dataclass
class PlainDoc:
    meta: Meta
    body: str


@dataclass
class PlainView:
    """memoryd.app.MemoryView of a file memoryd wrote, read without the model."""

    doc: PlainDoc
    path: Path
    data: dict[str, Any]
    turns: int

    def as_dict(self) -> dict[str, Any]:
        from memoryd import plainfront

        return {
            **plainfront.dumped(self.data),
            "body": self.doc.body,
            "path": str(self.path),
            "turns": self.turns,
        }


def _view(path: Path, data: dict[str, Any], body: str) -> PlainView:
    from memoryd.turns import turns_from_text

    turns_path = path.with_name(path.name[: -len(".md")] + ".turns.jsonl")
    try:
        turns = len(turns_from_text(turns_path.read_bytes().decode("utf-8", errors="replace")))
    except FileNotFoundError:
        turns = 0
    meta = Meta(
        data["title"],
        data["slug"],
        MemoryType(data["type"]),
        data["scope_hash"],
        DecayState(data["decay_state"]),
        data["recall_count"],
        list(data["triggers"]),
        list(data["tags"]),
    )
    return PlainView(PlainDoc(meta, body), path, data, turns)


@dataclass
class ReadApp:
    """What the search, get, list and scope handlers ask of memoryd.app.Memoryd, for the
    cases `prepare` let through (no sensitive scope in reach, nothing spooled)."""

    layout: paths.Layout
    reader: Reader  # for `scope`, which reads no index, a placeholder never called
    config: Config
    here: Scope | None = None  # the scope of --scope (or the working directory)
    withheld: list[tuple[str, str, int]] = field(default_factory=list)
    unopened: list[tuple[str, str, int, str]] = field(default_factory=list)
    # search: the mode and model `prepare` settled, and the model's warning, said when the
    # search runs (where Memoryd.search says it)
    mode: str = "keyword"
    embedder: Embedder | None = None
    warnings: list[str] = field(default_factory=list)

    def catch_up(self) -> None:
        """Nothing spooled: `prepare` checked."""

    def scope(self, path: str | Path | None = None) -> Scope:
        assert self.here is not None
        return self.here

    def scope_filter(self, path: str | Path | None, all_scopes: bool) -> list[str] | None:
        return None if all_scopes else [self.scope(path).hash]

    def note_project(self, scope: Scope) -> None:
        """Known as it stands: `prepare` checked (a new one takes the full path)."""

    def project_names(self, hashes: Sequence[str]) -> dict[str, Project]:
        """Memoryd.project_names where no sealed name could be opened (`prepare` sends a
        sensitive scope with grant records to the full path)."""
        from memoryd import projects

        return projects.describe(self.reader.projects(), hashes, sensitive=sensitive_hashes(self.layout))

    def search(
        self,
        query: str,
        *,
        scopes: Sequence[str] | None,
        memory_type: str | None = None,
        limit: int | None = None,
        include_forgotten: bool = False,
        mode: str | None = None,
    ) -> list[Any]:
        """Memoryd.search with no sensitive scope among `scopes`, in the mode `prepare`
        settled for this `mode`."""
        from memoryd import search

        for line in self.warnings:
            _warn(line)
        self.warnings = []
        types = [memory_type] if memory_type else None
        limit = self.config.search.default_limit if limit is None else limit
        results = search.search(
            self.reader,
            query,
            scopes=scopes,
            types=types,
            limit=limit,
            include_forgotten=include_forgotten,
            mode=self.mode,
            embedder=self.embedder,
        )
        results = search.successors_first(sorted(results, key=lambda r: r.score, reverse=True)[:limit])
        if results:
            self.reader.record_recall(
                [r.slug for r in results], search.matched_triggers(self.reader, results, query)
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
        """Memoryd.matches_elsewhere."""
        from memoryd import search

        types = [memory_type] if memory_type else None
        hidden = set(scopes) | sensitive_hashes(self.layout)
        hits = search.search(
            self.reader,
            query,
            scopes=None,
            types=types,
            limit=limit,
            include_forgotten=include_forgotten,
            with_snippets=False,
        )
        return sum(r.scope_hash not in hidden for r in hits)

    def list(
        self,
        *,
        scopes: Sequence[str] | None,
        memory_type: str | None = None,
        include_forgotten: bool = False,
        limit: int | None = None,
    ) -> list[dict[str, Any]]:
        """Memoryd.list."""
        from memoryd.search import states_for

        types = [memory_type] if memory_type else None
        rows = self.reader.list(scopes=scopes, types=types, states=states_for(include_forgotten), limit=limit)
        for r in rows:
            if r.get("scope_sensitive") and not r["title"]:
                r["title"] = SENSITIVE_TITLE
        return rows

    def get(self, slug: str) -> PlainView:
        """Memoryd.get of a memory `prepare` found readable here: a recall, then the file."""
        self.reader.record_recall([slug], [])
        found = self.reader.canonical_file(slug)
        if found is None:  # changed by hand since `prepare` looked: read it as Memoryd.get does
            from memoryd.app import MemoryView
            from memoryd.store import Store

            store = Store.open(self.layout)
            doc, path = store.read(slug)
            return MemoryView(doc, path, store.files.read_turns(path))  # type: ignore[return-value]
        return _view(*found)


def finish(app: ReadApp) -> None:
    """The command is done: close the index (its last connection checkpoints the WAL, now
    rather than somewhere in the interpreter's teardown), and have the garbage collector
    frozen at exit. Exiting, Python collects cycles among every object it holds, numpy's
    and the model's included; frozen ones are left to the OS: what reference counting
    frees is still freed, and everything that must be written was written and closed by
    then. Frozen in an exit handler, not here: a caller of main() in its own process (a
    test) goes on collecting. About 25-45 ms of CPU of a cold search."""
    global _freeze_at_exit
    try:
        if app.reader is not None:
            app.reader.close()
    finally:
        if not _freeze_at_exit:
            import atexit
            import gc

            atexit.register(gc.freeze)
            _freeze_at_exit = True


_freeze_at_exit = False


def _warn(text: str) -> None:
    """memoryd.app._warn: one line on stderr."""
    import sys

    line = "".join(c if c.isprintable() else repr(c)[1:-1] for c in " ".join(text.split()))
    sys.stderr.write(f"memoryd: warning: {line}\n")


def _embeds_first(app: ReadApp, mode: str | None) -> bool:
    """Settle the search's mode and model as Memoryd._search_mode does; True when the full
    path would embed missing texts before it searches (Memoryd._embed_pending)."""
    from memoryd import embed, search

    app.mode = search.check_mode(mode or app.config.search.mode)
    if app.mode == "keyword":
        return False  # numpy is not imported: keyword search does not need it
    from memoryd.embed import blas

    blas.import_single_threaded()
    app.embedder = embed.load(app.config, app.warnings.append)
    if app.embedder is None:
        return False
    from memoryd.vectors import INLINE_EMBED

    return 0 < app.reader.vectors.missing(embed.tag(app.embedder)) <= INLINE_EMBED


def _scope(layout: paths.Layout, path: str | None) -> Scope | None:
    """links.seen without its write: None when a git scope is new (its remote is noted)."""
    from memoryd import scope_links
    from memoryd.scope import resolve

    scope = resolve(path or Path.cwd())
    if scope.kind == "git" and scope.hash not in scope_links.load(layout.home).remotes:
        return None
    return scope_links.apply(layout.home, scope)


def prepare(args: argparse.Namespace) -> ReadApp | None:
    """A ReadApp when this command can be served by the read path exactly as the full
    one serves it; None otherwise (see the module docstring). Reads only."""
    try:
        return _prepare(args)
    except Exception:  # whatever it is, the full path meets it again and says it properly
        return None


def _prepare(args: argparse.Namespace) -> ReadApp | None:
    from memoryd import config
    from memoryd.capture import spool

    layout = paths.layout()
    settings = config.load()
    command = args.command
    if command == "scope":
        if args.path == "link" or args.hashes:
            return None
        here = _scope(layout, args.path)
        if here is None:
            return None
        reader = open_current(layout)
        if reader is None:
            return None
        known = next((r for r in reader.projects() if r.scope_hash == here.hash), None)
        if (
            known is None
            or known.sealed is not None
            or (known.root, known.kind) != (str(here.root), here.kind)
            or here.marked
            or here.hash in sensitive_hashes(layout)
        ):  # the full path notes the project, or may open its sealed name under a grant
            reader.close()
            return None
        return ReadApp(layout, reader, settings, here)
    if spool.pending(layout.spool):
        return None
    reader = open_current(layout)
    if reader is None:
        return None
    app = ReadApp(layout, reader, settings)
    sensitive = sensitive_hashes(layout)
    if command == "get":
        from memoryd import slugs

        slugs.validate(args.slug)
        row = reader.row(args.slug)
        if row is None or row["scope_sensitive"] or row["scope_hash"] in sensitive:
            return None
        return app if reader.canonical_file(args.slug) is not None else None
    if not args.all_scopes:
        app.here = _scope(layout, args.scope)
        if app.here is None:
            return None
    reach = sensitive if args.all_scopes else sensitive & {app.here.hash}  # type: ignore[union-attr]
    if command == "search":
        if args.limit is not None and args.limit < 1:
            return None
        if reach or _embeds_first(app, args.mode):
            return None
    if command == "list" and any((layout.grants / f"{h}.json").exists() for h in reach):
        return None  # a sensitive project's name opens under a grant: the full path's
    return app
