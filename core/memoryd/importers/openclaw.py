"""`memoryd import openclaw PATH`: an OpenClaw state dir or workspace -> memoryd (source
openclaw-fs).

- Session transcripts, `agents/<agent>/sessions/<id>.jsonl`: one session memory each, in
  the scope of the header's cwd.
- The workspace's `MEMORY.md` (curated long-term memory): one long-term memory per bullet,
  typed by what it says (memoryd.importers.kinds), its section kept as a tag.
- Daily logs, `memory/YYYY-MM-DD.md`: one session memory per day (they are working memory).

PATH may be the state dir (`~/.openclaw`, holding agents/ and workspace/) or a workspace.
Workspace memories go to the workspace's scope unless --scope says otherwise.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

from memoryd import clock, safeopen
from memoryd.capture import episode, transcripts
from memoryd.config import Config
from memoryd.errors import UsageError
from memoryd.importers import kinds
from memoryd.importers.common import (
    MAX_NOTE_BYTES,
    ImportReport,
    Item,
    Progress,
    Writer,
    first_line,
    parse_when,
    scope_of,
    text_key,
    unreadable,
)
from memoryd.models import MemoryType
from memoryd.redact import Redactor
from memoryd.scope import Scope
from memoryd.store import Store

SOURCE = "openclaw-fs"
_DAILY = re.compile(r"^(\d{4})-(\d{2})-(\d{2})\.md$")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(.*\S)\s*$")


def locate(path: Path) -> tuple[list[Path], Path | None]:
    """(session transcript files, workspace dir or None) under PATH."""
    if not path.exists():
        raise UsageError(f"no such directory: {path}")
    sessions = sorted(
        p for p in path.glob("agents/*/sessions/*.jsonl") if p.is_file() and not p.name.startswith(".")
    )
    workspace = None
    for candidate in (path / "workspace", path):
        if (candidate / "MEMORY.md").is_file() or (candidate / "memory").is_dir():
            workspace = candidate
            break
    if not sessions and workspace is None:
        raise UsageError(
            f"{path} holds no OpenClaw data (agents/*/sessions/*.jsonl, MEMORY.md or memory/); "
            "pass the state dir (~/.openclaw) or a workspace"
        )
    return sessions, workspace


def _transcripts(
    files: list[Path], config: Config, writer: Writer, override: Scope | None, progress: Progress | None
) -> None:
    redactor = Redactor(config.capture.extra_secret_patterns)
    for n, path in enumerate(files, 1):
        parsed = transcripts.parse(str(path), config.capture, redactor)
        sid = parsed.session_id or path.stem
        if not (parsed.prompts or parsed.turns):
            writer.report.skipped.append(f"{path.name}: no conversation in the file")
        else:
            writer.report.malformed += parsed.bad_lines
            ep = episode.build(parsed, {"session_id": sid, "cwd": parsed.cwd}, SOURCE, redactor)
            writer.put(
                Item(
                    key=sid,
                    type=MemoryType.session,
                    title=ep.title,
                    body=ep.body,
                    created_at=parse_when(parsed.first_ts, clock.now()),
                    scope=scope_of(parsed.cwd, override),
                    tags=["openclaw", *ep.tags],
                    triggers=ep.triggers,
                    turns=list(parsed.turns),
                )
            )
        if progress:
            progress(n, len(files))


def _memory_md(path: Path, writer: Writer, scope: Scope) -> None:
    """Bullets of MEMORY.md, each a long-term memory; its heading becomes a tag."""
    try:
        text = safeopen.read_text(path, MAX_NOTE_BYTES)
    except (OSError, UnicodeDecodeError) as exc:
        writer.report.skipped.append(f"{path}: unreadable ({unreadable(exc)})")
        return
    when = datetime.fromtimestamp(path.stat().st_mtime, UTC)
    section = ""
    for line in text.splitlines():
        if line.startswith("#"):
            section = line.lstrip("#").strip() if line.startswith("##") else section
            continue
        m = _BULLET.match(line)
        if not m:
            continue
        content = m[1].strip()
        mtype = kinds.guess(content)
        origin = f'From OpenClaw\'s MEMORY.md, section "{section}".' if section else ""
        tags = ["openclaw", "memory-md"] + ([kinds.tag(section)] if section else [])
        writer.put(
            Item(
                key="memory-md:" + text_key(content),
                type=mtype,
                title=first_line(content),
                body=f"{content}\n\n{origin}\n" if origin else f"{content}\n",
                created_at=when,
                scope=scope,
                tags=[t for t in tags if t],
                category=section or None,
            )
        )


def _daily(folder: Path, writer: Writer, scope: Scope) -> None:
    for path in sorted(folder.glob("*.md")):
        m = _DAILY.match(path.name)
        if not m:
            continue
        try:
            text = safeopen.read_text(path, MAX_NOTE_BYTES)
            when = datetime(int(m[1]), int(m[2]), int(m[3]), tzinfo=UTC)
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            writer.report.skipped.append(f"{path.name}: unreadable ({unreadable(exc)})")
            continue
        if not text.strip():
            writer.report.skipped.append(f"{path.name}: empty")
            continue
        day = path.stem
        writer.put(
            Item(
                key=f"daily:{day}",
                type=MemoryType.session,
                title=f"OpenClaw daily log {day}",
                body=f"## Daily log\n{text.strip()}\n",
                created_at=when,
                scope=scope,
                tags=["openclaw", "daily-log"],
            )
        )


def run(
    store: Store,
    config: Config,
    path: Path,
    *,
    scope: Scope | None = None,
    progress: Progress | None = None,
    actor: str = "cli",
) -> ImportReport:
    sessions, workspace = locate(path.expanduser())
    writer = Writer(store, SOURCE, actor=actor)
    _transcripts(sessions, config, writer, scope, progress)
    if workspace is not None:
        target = scope or scope_of(workspace, None)
        if (workspace / "MEMORY.md").is_file():
            _memory_md(workspace / "MEMORY.md", writer, target)
        if (workspace / "memory").is_dir():
            _daily(workspace / "memory", writer, target)
    return writer.finish()
