"""`memoryd import codex`: Codex CLI rollout files -> session memories (source codex-rollout).

Codex writes every session to `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`
(archived ones under `archived_sessions/`), sharded by date, not project: the session's
own `session_meta.cwd` says which project it belongs to. The format is declared unstable,
so parsing is the capture parser's defensive one. A session the notify hook already
captured live (source codex, same thread id) is left to that memory.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from datetime import date
from pathlib import Path

from memoryd import clock
from memoryd.capture import episode, transcripts
from memoryd.config import Config
from memoryd.errors import UsageError
from memoryd.importers.common import ImportReport, Item, Progress, Writer, parse_when, scope_of
from memoryd.models import MemoryType
from memoryd.redact import Redactor
from memoryd.scope import Scope
from memoryd.store import Store

SOURCE = "codex-rollout"
_DATED = re.compile(r"rollout-(\d{4})-(\d{2})-(\d{2})T")
_ID = re.compile(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$")


def default_home() -> Path:
    env = os.environ.get("CODEX_HOME")
    return Path(env).expanduser() if env else Path.home() / ".codex"


def file_date(path: Path) -> date | None:
    m = _DATED.search(path.name)
    if not m:
        return None
    try:
        return date(int(m[1]), int(m[2]), int(m[3]))
    except ValueError:
        return None


def rollouts(home: Path, since: date | None = None) -> list[Path]:
    found: list[Path] = []
    for folder in (home / "sessions", home / "archived_sessions"):
        if folder.is_dir():
            found += folder.rglob("rollout-*.jsonl")
    if since is not None:
        found = [p for p in found if (file_date(p) or date.max) >= since]
    return sorted(found, key=lambda p: (file_date(p) or date.min, p.name))


def find_rollout(thread_id: str, home: Path | None = None) -> Path | None:
    """The rollout file of one thread, for the notify hook (which sends no path): newest
    day folders first, so the usual case reads two or three directory listings."""
    base = (home or default_home()) / "sessions"
    if not base.is_dir() or not re.fullmatch(r"[0-9A-Za-z-]{8,64}", thread_id):
        return None
    for year in sorted(base.iterdir(), reverse=True):
        for month in sorted(year.iterdir(), reverse=True) if year.is_dir() else []:
            for day in sorted(month.iterdir(), reverse=True) if month.is_dir() else []:
                for path in day.glob(f"rollout-*{thread_id}.jsonl"):
                    return path
    return None


def items(
    paths: list[Path], config: Config, report: ImportReport, override: Scope | None
) -> Iterator[tuple[Item | None, Path]]:
    """One (item, path) per file; item None when the file holds no session."""
    redactor = Redactor(config.capture.extra_secret_patterns)
    for path in paths:
        parsed = transcripts.parse(str(path), config.capture, redactor)
        sid = parsed.session_id or ((m := _ID.search(path.name)) and m[1]) or None
        if not sid or not (parsed.prompts or parsed.turns):
            report.skipped.append(f"{path.name}: no session in the file")
            yield None, path
            continue
        report.malformed += parsed.bad_lines  # damaged lines inside a session that was read
        ep = episode.build(parsed, {"session_id": sid, "cwd": parsed.cwd}, SOURCE, redactor)
        when = parse_when(parsed.first_ts, clock.now())
        item = Item(
            key=sid,
            type=MemoryType.session,
            title=ep.title,
            body=ep.body,
            created_at=when,
            scope=scope_of(parsed.cwd, override),
            tags=ep.tags,
            triggers=ep.triggers,
            turns=list(parsed.turns),
        )
        yield item, path


def run(
    store: Store,
    config: Config,
    *,
    home: Path | None = None,
    since: date | None = None,
    scope: Scope | None = None,
    progress: Progress | None = None,
    actor: str = "cli",
) -> ImportReport:
    base = home or default_home()
    if not base.is_dir():
        raise UsageError(f"no Codex data at {base} (set CODEX_HOME, or: memoryd import codex PATH)")
    paths = rollouts(base, since)
    writer = Writer(store, SOURCE, actor=actor)
    for n, (item, path) in enumerate(items(paths, config, writer.report, scope), 1):
        if item is None:
            pass
        elif store.slug_for_session("codex", item.key):
            writer.report.skipped.append(f"{path.name}: captured live by the notify hook")
        else:
            writer.put(item)
        if progress:
            progress(n, len(paths))
    return writer.finish()
