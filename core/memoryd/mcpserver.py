"""`memoryd mcp`: memoryd as an MCP server over stdio, for any MCP client.

Seed 004's progressive disclosure: the start-up snapshot gives the gist, `mem_search`
(level 1) finds memories by keywords and meaning, `mem_get` reads one in full, `mem_traces` (level 2)
returns the raw conversation turns behind them. `mem_record` writes a long-term memory,
`mem_recent` lists what changed lately. Beside the tools: prompts a user picks from the
host's menu (`recall`, `decision`, `weekly-review`), whose messages embed the memories
found, and resources (`memoryd://snapshot`, `memoryd://digest`, the template
`memoryd://memory/{slug}`). All of them read through `Tools`, the same path: the
sensitive-scope gate and its audit apply to a prompt or a resource as to a tool. Every
tool works in one scope: the `scope`
argument (a project path or a scope hash) when given, else the client's project
(CLAUDE_PROJECT_DIR, which Claude Code sets), else the server's working directory. A
sensitive scope without a live grant is a tool error that says how to grant; every grant
check and write is audited as actor "mcp".

Errors follow MCP's tools "Error Handling": an unknown tool is a JSON-RPC error (-32602),
an argument that fails validation or a refusal of memoryd's is a tool error (isError) in
one sentence that names the tool's own arguments, never a CLI flag, a pydantic dump or a
traceback. Malformed JSON-RPC lines are answered by the transport (memoryd.mcpstdio).
A prompt's or a resource's refusal is a JSON-RPC error with memoryd's one-line message.

Transports: stdio (memoryd.mcpstdio) by default; Streamable HTTP on loopback behind a
bearer token with `--http` (memoryd.mcphttp). The SDK logs at WARNING unless `--verbose`.

Codex gives a server 10 s to start, so nothing heavier than the MCP SDK loads before it
answers: the store, SQLAlchemy, the search model and the vectors load on a thread of their
own once the transport serves (Memoryd.preload), or on the first call if it comes first.
stdout is the protocol channel; nothing here prints.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, Literal

from mcp import types
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.shared.exceptions import MCPError
from pydantic import Field, ValidationError

from memoryd import mcpviews, quoting, version
from memoryd.errors import AuthorizationRequired, MemorydError, NotFound
from memoryd.search import MAX_QUERY_CHARS

if TYPE_CHECKING:
    from memoryd.app import Memoryd

ACTOR = "mcp"
log = logging.getLogger(__name__)
_HASH = re.compile(r"^[0-9a-f]{12}$")

INSTRUCTIONS = """\
memoryd is the user's local long-term memory across coding and chat sessions: decisions,
preferences, facts, playbooks, warnings, and summaries of earlier sessions, per project.
Start with mem_search when the user refers to earlier work ("last time", "as we decided",
"do you remember", 之前, 上次) or before making a choice the project may already have made.
Read one result in full with mem_get; use mem_traces only when you need the exact words,
commands or tool output of an earlier session. Record durable knowledge with mem_record
when the user states a preference, a decision is made, or a pitfall is found."""


class Tools:
    """The tool bodies, separate from the MCP wiring so the facade opens once, lazily."""

    def __init__(self, app: Memoryd | None = None) -> None:
        self._app = app
        self._app_lock = threading.Lock()  # the preload's thread and the first call may race

    @property
    def app(self) -> Memoryd:
        if self._app is None:
            with self._app_lock:
                if self._app is None:
                    from memoryd.app import Memoryd

                    self._app = Memoryd(warm=True)  # a long-lived process: warm keyword search
        return self._app

    def preload(self) -> threading.Thread:
        """The facade made and search loaded (Memoryd.preload) on a thread, while the client
        starts up: the event loop answers `initialize` meanwhile. A facade that cannot be
        made (a broken config.toml) is left for the first tool call to report, in one line."""

        def run() -> None:
            try:
                self.app.preload()
            except Exception as exc:
                log.info("not preloading search (%s: %s)", type(exc).__name__, exc)

        thread = threading.Thread(target=run, name="memoryd-facade", daemon=True)
        thread.start()
        return thread

    # -- scope ------------------------------------------------------------------------
    def scope_hash(self, scope: str | None) -> str:
        if scope and _HASH.match(scope):
            return scope
        where = scope or os.environ.get("CLAUDE_PROJECT_DIR") or os.getcwd()
        return self.app.scope(where).hash

    def _gate(self, scope_hash: str, what: str, target: str | None = None) -> None:
        self.app.gate(scope_hash, what=what, target=target, actor=ACTOR)

    def _refuse_unless_granted(self, scope_hash: str, what: str) -> None:
        """Without a grant: a tool error saying how to grant (audited). With one, the
        facade's search/traces audit the read themselves, once."""
        from memoryd.sensitive import gate

        if not gate.allowed(self.app.store, scope_hash):
            self._gate(scope_hash, what)

    # -- tools ------------------------------------------------------------------------
    def search(
        self, query: str, scope: str | None, type_: str | None, limit: int, mode: str | None = None
    ) -> dict[str, Any]:
        h = self.scope_hash(scope)
        self._refuse_unless_granted(h, "search")
        self.app.catch_up()
        results = self.app.search(query, scopes=[h], memory_type=type_, limit=limit, actor=ACTOR, mode=mode)
        out: dict[str, Any] = {"scope": h, "note": quoting.TOOL_NOTE}
        # Memories of this scope that would not open (its key gone from this device, a file
        # that does not decrypt) were not searched: say so rather than answer as if complete.
        withheld = [{"count": n, "why": why} for _, _, n, why in self.app.unopened]
        if withheld:
            out["withheld"] = withheld
        return {
            **out,
            "results": [
                {
                    "slug": r.slug,
                    "type": r.type,
                    "title": r.title,
                    "snippet": r.snippet,
                    "when": r.created_at[:10],
                    "source": r.source,
                    "state": r.decay_state,
                    "provenance": self._provenance(r.slug),
                }
                for r in results
            ],
        }

    def _provenance(self, slug: str) -> dict[str, Any]:
        """memoryd.quoting's provenance of one memory (type, source, date, who made it)."""
        try:
            doc, _ = self.app.store.read(slug)
            suspect = self.app.store.row(slug).get("suspect") or ()
        except MemorydError:
            return {}
        return quoting.of_meta(doc.meta, suspect).as_dict()

    def get(self, slug: str) -> dict[str, Any]:
        view = self.app.get(slug, actor=ACTOR)
        m = view.doc.meta
        suspect = self.app.store.row(slug).get("suspect") or ()
        return {
            "note": quoting.TOOL_NOTE,
            "provenance": quoting.of_meta(m, suspect).as_dict(),
            "slug": m.slug,
            "type": m.type.value,
            "title": m.title,
            "scope": m.scope_hash,
            "source": m.source,
            "created_at": m.created_at.isoformat(),
            "updated_at": m.updated_at.isoformat() if m.updated_at else None,
            "state": m.decay_state.value,
            "tags": m.tags,
            "triggers": m.triggers,
            "supersedes": m.supersedes,
            "body": view.doc.body,
            "turns": len(view.turns),
        }

    def traces(self, query: str, scope: str | None, limit: int, mode: str | None = None) -> dict[str, Any]:
        h = self.scope_hash(scope)
        self._refuse_unless_granted(h, "traces")
        self.app.catch_up()
        hits = self.app.traces(query, scopes=[h], limit=limit, actor=ACTOR, mode=mode)
        seen: dict[str, dict[str, Any]] = {}
        for t in hits:
            if t.slug not in seen:
                seen[t.slug] = self._provenance(t.slug)
        return {
            "scope": h,
            "note": quoting.TOOL_NOTE,
            "turns": [
                {
                    "slug": t.slug,
                    "seq": t.seq,
                    "role": t.role,
                    "when": t.ts,
                    "text": t.text,
                    "provenance": seen[t.slug],
                }
                for t in hits
            ],
        }

    def record(
        self,
        type_: str,
        title: str,
        body: str,
        triggers: list[str] | None,
        tags: list[str] | None,
        scope: str | None,
        client: str | None,
    ) -> dict[str, Any]:
        for name, value in (("title", title), ("body", body)):
            if not value.strip():  # before the facade, whose wording is the CLI's (--title, stdin)
                raise ToolError(f"{name} must not be empty")
        where = scope or os.environ.get("CLAUDE_PROJECT_DIR") or os.getcwd()
        if _HASH.match(where):
            raise ToolError("mem_record needs the project's path as scope, not a scope hash")
        doc, changes = self.app.record(
            type_,
            title,
            body,
            triggers=triggers or (),
            tags=tags or (),
            scope_path=where,
            actor=ACTOR,
            source=source_for(client),
            by_agent=True,  # never "recorded by the user", whatever the client is called
        )
        out: dict[str, Any] = {
            "slug": doc.meta.slug,
            "type": doc.meta.type.value,
            "scope": doc.meta.scope_hash,
            "existing": bool(changes.existing),
        }
        if changes.existing:
            out["note"] = (
                f"Already recorded: memory {doc.meta.slug} in this scope has the same type, title and "
                "body, so nothing was written and it stands as it was."
            )
        return out

    def recent(self, scope: str | None, type_: str | None, limit: int) -> dict[str, Any]:
        h = self.scope_hash(scope)
        self._gate(h, "recent")
        self.app.catch_up()
        rows = self.app.list(scopes=[h], memory_type=type_, limit=limit)
        return {
            "scope": h,
            "note": quoting.TOOL_NOTE,
            "memories": [
                {
                    "slug": r["slug"],
                    "type": r["type"],
                    "title": r["title"],
                    "when": (r.get("updated_at") or r["created_at"])[:10],
                    "source": r["source"],
                    "state": r["decay_state"],
                    "provenance": self._provenance(r["slug"]),
                }
                for r in rows
            ],
        }

    def snapshot(self) -> str:
        from memoryd import inject, startup

        where = os.environ.get("CLAUDE_PROJECT_DIR") or os.getcwd()
        text, fitted = startup.snapshot_for(where, str(self.app.layout.home))
        return text if fitted else inject.fit(text, inject.DEFAULT_BUDGET)

    def digest(self) -> str:
        """`memoryd digest` for the client's project, behind the same gate as mem_recent."""
        from memoryd.governance import digest

        h = self.scope_hash(None)
        self._gate(h, "digest")
        self.app.catch_up()
        return digest.render_text(self.app.digest(scopes=[h]))

    # -- prompts ----------------------------------------------------------------------
    def recall(self, topic: str, scope: str | None, type_: str | None, *, ask: str, empty: str) -> str:
        if not topic.strip():
            raise MemorydError("topic must not be empty")
        found = self.search(topic, scope, type_, 8)
        full = [self.get(r["slug"]) for r in found["results"][: mcpviews.FULL]]
        question = (
            f"What did we decide about {topic}?" if type_ == "decision" else f"What do we know about {topic}?"
        )
        return mcpviews.recall(question, found, full, ask=ask, empty=empty)

    def weekly_review(self, scope: str | None) -> str:
        from datetime import timedelta

        from memoryd import clock

        since = (clock.now() - timedelta(days=7)).strftime("%Y-%m-%d")
        return mcpviews.review(since, self.recent(scope, None, 50))


def source_for(client: str | None) -> str:
    """The memory's source (seed 002's list) from the MCP client's name; `manual` when it
    names none we know (the record still reads "recorded by an agent": App.record by_agent)."""
    name = (client or "").lower()
    for key, source in (("claude", "claude-code"), ("codex", "codex"), ("openclaw", "openclaw")):
        if key in name:
            return source
    return "manual"


def _client_name(ctx: Context) -> str | None:
    try:
        return str(ctx.session.client_params.client_info.name)  # type: ignore[union-attr]
    except AttributeError:
        return None


def _asked_by(ctx: Context) -> None:
    """The client's name (claude-code, codex...) is who a grant prompt says asks."""
    from memoryd.sensitive import broker

    broker.agent_hint = _client_name(ctx)


def _call(fn: Any, *args: Any) -> Any:
    """memoryd's one-line errors become tool errors the model can read and act on."""
    try:
        return fn(*args)
    except MemorydError as exc:
        raise ToolError(str(exc)) from None


Limit = Annotated[int, Field(ge=1)]
_FLAG = re.compile(r"--([a-z][a-z_-]*)")
_KINDS = {"string": "a string", "integer": "a whole number", "number": "a number", "boolean": "true or false"}


def _expected(schema: dict[str, Any]) -> str:
    """What an argument's JSON schema asks for, in words ("a list of strings")."""
    options = [o for o in schema.get("anyOf", [schema]) if o.get("type") != "null"]
    words = []
    for option in options:
        kind = option.get("type", "")
        if option.get("enum"):
            words.append("one of " + ", ".join(str(v) for v in option["enum"]))
        elif kind == "array":
            item = _KINDS.get(option.get("items", {}).get("type", ""), "values")
            words.append(f"a list of {item.removeprefix('a ')}s" if item.startswith("a ") else "a list")
        else:
            words.append(_KINDS.get(kind, "a value"))
    return " or ".join(words) or "a value"


def _shown(value: Any) -> str:
    """A rejected value, short: the caller's own, so echoing it leaks nothing."""
    if isinstance(value, str):
        return json.dumps(value if len(value) <= 24 else value[:24] + "...", ensure_ascii=False)
    if value is None or isinstance(value, bool | int | float):
        return json.dumps(value)
    return "a list" if isinstance(value, list) else "an object" if isinstance(value, dict) else "that"


def argument_errors(tool: str, schema: dict[str, Any], exc: ValidationError) -> str:
    """pydantic's report on a tool's arguments as one sentence in the arguments' names."""
    props: dict[str, Any] = schema.get("properties", {})
    parts: list[str] = []
    for err in exc.errors():
        loc = err.get("loc", ())
        name = str(loc[0]) if loc else "arguments"
        if err["type"] == "missing":
            part = f"{name} is required ({_expected(props.get(name, {}))})"
        elif err["type"] in ("greater_than_equal", "greater_than") and len(loc) == 1:
            bound = (err.get("ctx") or {}).get("ge", (err.get("ctx") or {}).get("gt"))
            part = f"{name} must be at least {bound}, not {_shown(err.get('input'))}"
        elif len(loc) == 1:
            part = f"{name} must be {_expected(props.get(name, {}))}, not {_shown(err.get('input'))}"
        else:
            part = f"{name} must be {_expected(props.get(name, {}))}"
        if part not in parts:
            parts.append(part)
    return f"{tool}: " + "; ".join(parts) + "."


def one_sentence(tool: str, text: str, arguments: set[str]) -> str:
    """A refusal of memoryd's as the model should read it: the CLI's `--limit` is the tool's
    `limit`, on one line."""
    text = text.removeprefix(f"Error executing tool {tool}: ")
    text = _FLAG.sub(lambda m: m[1].replace("-", "_") if m[1].replace("-", "_") in arguments else m[0], text)
    text = " ".join(text.split())
    return text if text.endswith((".", "?", "!")) else text + "."


class MemorydServer(MCPServer):
    """The SDK's MCPServer with memoryd's version, error wording and stdio transport."""

    # Called once the transport serves (on stdio: once it holds fd 0 and fd 1, so nothing a
    # model plug-in prints while loading can reach the protocol stream): Tools.preload.
    serving: Callable[[], object] | None = None

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        known = {t.name: t for t in await self.list_tools()}
        if name not in known:
            raise MCPError(types.INVALID_PARAMS, f"Unknown tool {name!r}; the tools are {', '.join(known)}")
        schema = known[name].input_schema
        accepted = set(schema.get("properties", {}))
        unknown = sorted(set(arguments) - accepted)
        if unknown:
            raise ToolError(
                f"{name} has no argument {', '.join(map(repr, unknown))}; it takes "
                f"{', '.join(schema.get('properties', {}))}."
            )
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError as exc:
            # The SDK logs a crash only when it sees UnexpectedToolError, which is reworded here.
            log.error("Tool %r raised an unexpected exception", name, exc_info=exc.__cause__ or exc)
            raise ToolError(f"{name} failed unexpectedly; the details are in the server's log.") from None
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(argument_errors(name, schema, exc.__cause__)) from None
            raise ToolError(one_sentence(name, str(exc), accepted)) from None

    async def run_stdio_async(self) -> None:
        from memoryd import mcpstdio

        await mcpstdio.serve(self._lowlevel_server, serving=self.serving)


RESOURCE_NOT_FOUND = -32002  # MCP's code for a resource that does not exist


def _served(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """For prompts and resources: memoryd's one-line refusal as a JSON-RPC error (MCP has
    no isError result for them)."""
    try:
        return fn(*args, **kwargs)
    except NotFound as exc:
        raise MCPError(RESOURCE_NOT_FOUND, str(exc)) from None
    except AuthorizationRequired as exc:
        raise MCPError(types.INVALID_REQUEST, str(exc)) from None
    except MemorydError as exc:
        raise MCPError(types.INVALID_PARAMS, one_sentence("", str(exc), set())) from None


Scope = Annotated[
    str | None,
    Field(
        description="Which project: its path or its 12-character scope hash. Leave it out for the "
        "project the session runs in."
    ),
]
Query = Annotated[
    str,
    Field(
        description="Keywords or a question, English or Chinese (either finds memories written in the "
        "other); an identifier such as an error code, file name or ticket number is matched exactly.",
        max_length=MAX_QUERY_CHARS,
    ),
]
MemoryType = Annotated[
    str | None,
    Field(
        description="Only memories of this type: session, decision, preference, fact, playbook or warning."
    ),
]
Slug = Annotated[str, Field(description="A memory's slug, as mem_search or mem_recent returned it.")]
SearchMode = Annotated[
    Literal["hybrid", "keyword", "dense"] | None,
    Field(
        description="hybrid (words and meaning: a question in one language finds memories written in "
        "another), keyword (exact words only) or dense (meaning only). Leave it out: the user's "
        "configured mode, hybrid unless they changed it."
    ),
]
Topic = Annotated[str, Field(description="What to recall, in a few keywords.")]
PromptScope = Annotated[
    str | None, Field(description="A project path or scope hash; the session's project when left out.")
]

RECALL_ASK = (
    "Answer from these memories: say what we know, with the date of each point, and say plainly "
    "where they do not cover the question. Name the slug you rely on so the user can open it."
)
DECISION_ASK = (
    "Answer from these memories: state the decision, why it was made and when; if a later memory "
    "supersedes an earlier one, the later one stands. Say plainly if no decision is recorded."
)
EMPTY = (
    "memoryd holds no memory on this in scope `{scope}`. Say so rather than guess; mem_search with "
    "other words, or mem_traces for the raw conversation, may still find something."
)


def build(app: Memoryd | None = None, *, verbose: bool = False, preload: bool = False) -> MCPServer:
    tools = Tools(app)
    # The SDK configures the root logger at the level given here: its INFO lines (and
    # memoryd's own) stay off stderr unless the user asks with --verbose.
    srv = MemorydServer(
        "memoryd",
        instructions=INSTRUCTIONS,
        version=version.current(),
        log_level="INFO" if verbose else "WARNING",
    )
    if preload:
        srv.serving = tools.preload

    @srv.tool(
        name="mem_search",
        description=(
            "Level 1 recall: search the user's memories of one project by keywords and meaning (English "
            "or Chinese). Memories are long-term decisions, preferences, facts, playbooks, warnings, and "
            "summaries of earlier sessions. Call it first whenever the user refers to earlier work "
            '("last time", "as we decided", "do you remember") or before choosing something the '
            "project may already have settled. Returns the scope searched and up to `limit` results, "
            "best first, each with its slug, type, title, a short snippet, its date and provenance; "
            "an empty list means nothing matched in that project. Follow up with mem_get to read one "
            "in full."
        ),
    )
    def mem_search(
        ctx: Context,
        query: Query,
        scope: Scope = None,
        type: MemoryType = None,
        limit: Annotated[int, Field(ge=1, description="At most this many results.")] = 8,
        mode: SearchMode = None,
    ) -> dict[str, Any]:
        _asked_by(ctx)
        return _call(tools.search, query, scope, type, limit, mode)

    @srv.tool(
        name="mem_get",
        description=(
            "Read one memory in full, by the slug that mem_search or mem_recent returned. Returns its "
            "body (the what and the why), title, type, dates, tags, trigger words, the slugs it "
            "supersedes, its provenance (who made it, whether the user approved it) and how many raw "
            "conversation turns back it. Call it after a search result looks relevant, before relying "
            "on it. Counts as a recall, which keeps the memory from fading."
        ),
    )
    def mem_get(ctx: Context, slug: Slug) -> dict[str, Any]:
        _asked_by(ctx)
        return _call(tools.get, slug)

    @srv.tool(
        name="mem_traces",
        description=(
            "Level 2 recall: the raw conversation turns of earlier sessions that match the keywords: "
            "the exact user words, commands, tool output and error messages. Returns turns (slug of "
            "the session, position, role, time, text). Call it only when a mem_search summary is not "
            "enough, e.g. to find the exact command that fixed a build or what the user said word for "
            "word."
        ),
    )
    def mem_traces(
        ctx: Context,
        query: Query,
        scope: Scope = None,
        limit: Annotated[int, Field(ge=1, description="At most this many turns.")] = 10,
        mode: SearchMode = None,
    ) -> dict[str, Any]:
        _asked_by(ctx)
        return _call(tools.traces, query, scope, limit, mode)

    @srv.tool(
        name="mem_record",
        description=(
            "Save a durable long-term memory for this project. type is one of decision (a choice "
            "made and why), preference (how the user wants things done), fact (something true about "
            "the project or the user), playbook (steps that worked), warning (a pitfall to avoid). "
            "title is one line; body says the what and the why in a few sentences. Call it when the "
            "user states a preference, a decision is made, or a pitfall is found; do not record "
            "routine progress (sessions are captured automatically). Returns the new memory's slug, "
            "type and scope. Recording the same type, title and body again returns the memory "
            "already there (existing: true), not a copy."
        ),
    )
    def mem_record(
        type: Annotated[str, Field(description="decision, preference, fact, playbook or warning.")],
        title: Annotated[str, Field(description="One line naming the memory.")],
        body: Annotated[str, Field(description="The what and the why, in a few sentences.")],
        ctx: Context,
        triggers: Annotated[
            list[str] | None, Field(description="Words that should bring this memory up in a search.")
        ] = None,
        tags: Annotated[list[str] | None, Field(description="Labels to group it by.")] = None,
        scope: Annotated[
            str | None,
            Field(
                description="The project's path (not a scope hash). Leave it out for the session's project."
            ),
        ] = None,
    ) -> dict[str, Any]:
        _asked_by(ctx)
        return _call(tools.record, type, title, body, triggers, tags, scope, _client_name(ctx))

    @srv.tool(
        name="mem_recent",
        description=(
            "List one project's most recent memories, newest first, optionally of one type. Returns "
            "each memory's slug, type, title, date, source and provenance (no bodies: read one with "
            "mem_get). Call it at the start of a task to see what happened lately, or to find a "
            "slug you cannot search for."
        ),
    )
    def mem_recent(
        ctx: Context,
        scope: Scope = None,
        type: MemoryType = None,
        limit: Annotated[int, Field(ge=1, description="At most this many memories.")] = 10,
    ) -> dict[str, Any]:
        _asked_by(ctx)
        return _call(tools.recent, scope, type, limit)

    # -- prompts: picked by the user from the host's menu -----------------------------
    @srv.prompt(
        name="recall",
        title="Recall what we know about a topic",
        description="Searches memoryd for the topic and hands the model the memories found, quoted "
        "with their provenance, asking it to answer from them.",
    )
    def recall(ctx: Context, topic: Topic, scope: PromptScope = None) -> str:
        _asked_by(ctx)
        return _served(tools.recall, topic, scope, None, ask=RECALL_ASK, empty=EMPTY)

    @srv.prompt(
        name="decision",
        title="What did we decide about a topic",
        description="Searches memoryd's decisions for the topic and asks the model what was decided, "
        "why and when, from those memories only.",
    )
    def decision(ctx: Context, topic: Topic, scope: PromptScope = None) -> str:
        _asked_by(ctx)
        return _served(tools.recall, topic, scope, "decision", ask=DECISION_ASK, empty=EMPTY)

    @srv.prompt(
        name="weekly-review",
        title="Review the project's week",
        description="The memories recorded in the project over the last 7 days, for a short review of "
        "decisions, lessons and open work.",
    )
    def weekly_review(ctx: Context, scope: PromptScope = None) -> str:
        _asked_by(ctx)
        return _served(tools.weekly_review, scope)

    # -- resources: attached by the user or read by the host ----------------------------
    @srv.resource(
        "memoryd://snapshot",
        name="snapshot",
        title="Start-up snapshot",
        description="The project's start-up snapshot, what `memoryd inject` gives an agent at the "
        "start of a session: who the user is, constraints, key memories, recent sessions (about "
        "2000 tokens).",
        mime_type="text/markdown",
    )
    def snapshot() -> str:
        return _served(tools.snapshot)

    @srv.resource(
        "memoryd://digest",
        name="digest",
        title="Governance digest",
        description="The project's `memoryd digest`: memories waiting for review, duplicates, "
        "memories about to fade, rising topics, LLM spend.",
        mime_type="text/plain",
    )
    def digest() -> str:
        return _served(tools.digest)

    @srv.resource(
        "memoryd://memory/{slug}",
        name="memory",
        title="One memory",
        description="One memory in full by its slug (from mem_search or mem_recent), quoted with its "
        "provenance.",
        mime_type="text/markdown",
    )
    def memory(ctx: Context, slug: str) -> str:
        _asked_by(ctx)
        return _served(lambda: mcpviews.memory(tools.get(slug)))

    return srv


def main(*, http: str | None = None, verbose: bool = False) -> int:
    """Serve on stdio, or on Streamable HTTP at `http` (HOST:PORT, loopback only)."""
    from memoryd import paths
    from memoryd.sensitive import broker

    layout = paths.layout()
    if http is not None:
        from memoryd import mcphttp

        mcphttp.parse_address(http)  # refuse a bad address before anything else
        mcphttp.read_token(layout.home)
        broker.install(layout, "mcp")
        srv = build(verbose=verbose, preload=True)
        if srv.serving is not None:  # stdout is not the protocol here: load from the start
            srv.serving()
        return mcphttp.serve(srv, http, layout.home, verbose=verbose)
    broker.install(layout, "mcp")  # a missing grant is asked of the tray, if it runs
    build(verbose=verbose, preload=True).run()
    return 0
