"""The capture worker: drains the spool into session memories, one worker at a time.

Run detached by the hook (`python -m memoryd.capture.worker`), or inline by `memoryd
worker`. A spool file is deleted only after its memory is committed and audited, so a
kill at any point loses nothing, and a rerun updates the same memory (upsert on session
id) and does not audit it twice (dedupe on payload id).
"""

from __future__ import annotations

import logging
import os
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout

from memoryd import clock, faults, jsontext, links, slugs
from memoryd.capture import episode, spool, transcripts
from memoryd.config import Config
from memoryd.errors import KeyUnavailable, MemorydError
from memoryd.frontmatter import Document
from memoryd.models import DecayState, Frontmatter, MemoryType, default_ttl
from memoryd.paths import FILE_MODE, Layout
from memoryd.redact import Redactor
from memoryd.scope import resolve
from memoryd.sensitive import names
from memoryd.store import Store
from memoryd.store.terms import rarity_for

log = logging.getLogger("memoryd.worker")


@dataclass
class DrainReport:
    captured: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    # Sensitive scopes whose key cannot be had now: they stay spooled (ids and paths
    # only, see the hook) until a grant or the keyring makes the key available.
    deferred: list[str] = field(default_factory=list)
    why_deferred: dict[str, str] = field(default_factory=dict)  # spool name -> the key's error
    busy: bool = False
    # Memories from before the poison detector read in this drain, and those it flagged.
    checked: int = 0
    flagged: list[str] = field(default_factory=list)


def process(store: Store, config: Config, record: dict[str, Any]) -> str:
    """One spooled payload -> one session memory (created or updated). Returns its slug."""
    payload = record.get("payload")
    source = record.get("source")
    if not isinstance(payload, dict) or not isinstance(source, str):
        raise MemorydError("spool record lacks payload or source")
    sid = payload.get("session_id")
    if not isinstance(sid, str) or not sid:
        raise MemorydError("payload has no session_id")
    faults.fail("capture:process")
    redactor = Redactor(config.capture.extra_secret_patterns)
    parsed = transcripts.parse(_transcript_path(source, payload, sid), config.capture, redactor)
    if not episode.has_content(parsed, payload):  # rejected with this reason, never retried
        why = "; ".join(parsed.warnings[:2]) or "the transcript is empty"
        raise MemorydError(f"nothing to capture: {why}, and the payload carries no message")
    cwd = payload.get("cwd") or parsed.cwd or "."
    scope = links.seen(store.layout, resolve(cwd, must_exist=False), lambda: store)
    if scope.marked or store.keys.sensitive(scope.hash):
        store.keys.get(scope.hash)  # KeyUnavailable: the payload waits in the spool
    elif store.keys.settings_lost(scope.hash):
        store.keys.refuse_clear(scope.hash)  # waits in the spool too, until the file is back
    elif payload.get("_sensitive"):
        # The hook found the session's folder sensitive, and the scope resolved now is not
        # (the folder gone since, say): in doubt, nothing is written in the clear.
        raise KeyUnavailable(
            f"the capture hook saw {cwd} as sensitive, but its scope {scope.hash} is not: "
            "it waits in the spool"
        )
    ep = episode.build(parsed, payload, source, redactor, rarity=rarity_for(store, scope.hash))
    now = clock.now()

    # From reading the session's memory to saving it: an analysis or a search writing the
    # same file meanwhile would otherwise be overwritten, or overwrite this.
    with store.writing():
        existing = store.slug_for_session(source, sid)
        if existing is None and source == "codex":  # imported earlier, now resumed: one memory
            existing = store.slug_for_session("codex-rollout", sid)
        turns: list[Any] | None = list(parsed.turns)
        if existing:
            doc, _ = store.read(existing)
            meta = doc.meta
            if not turns:  # transcript gone or lagging: keep what the earlier capture copied
                turns = None
                if not parsed.prompts:
                    ep = episode.Episode(
                        meta.title, _keep_goal(doc.body, ep.body), ep.triggers or meta.triggers, ep.tags
                    )
            meta.title, meta.triggers, meta.tags = ep.title, ep.triggers, ep.tags
            meta.updated_at = now
            if meta.decay_state is not DecayState.forgotten:
                meta.decay_state = DecayState.alive
            action = "updated"
        else:
            meta = Frontmatter(
                title=ep.title,
                slug=_session_slug(store, scope.hash, source, sid, now),
                type=MemoryType.session,
                scope_hash=scope.hash,
                source=source,
                created_at=now,
                updated_at=now,
                tags=ep.tags,
                triggers=ep.triggers,
                ttl_days=default_ttl(MemoryType.session),
                last_recalled_at=now,
                session_id=sid,
            )
            action = "created"
        doc = Document(meta=meta, body=ep.body)
        for w in parsed.warnings:
            log.warning("session %s: %s", sid[:12], w)
        redactions = dict(redactor.counts)
        for k, v in (payload.get("_redacted_in_hook") or {}).items():
            redactions[k] = redactions.get(k, 0) + int(v)
        store.save(
            doc,
            event="capture",
            actor=f"capture:{source}",
            turns=turns,
            dedupe=record.get("payload_id"),
            details={
                "action": action,
                "turns": len(turns) if turns is not None else None,
                "redactions": redactions,
                "warnings": len(parsed.warnings),
                "hook_event": payload.get("hook_event_name"),
            },
        )
        # The project's folder, for lists to show by name; under the write lock, which a
        # mark holds while it seals the scope's row: never a clear name after a mark.
        names.note(store, scope)
    return meta.slug


def _transcript_path(source: str, payload: dict[str, Any], sid: str) -> str | None:
    """The payload's transcript; Codex's notify sends none, but its rollout file is named
    after the thread id, so the whole session is read, not only the last turn."""
    path = payload.get("transcript_path")
    if path or source != "codex":
        return path
    from memoryd.importers.codex import find_rollout

    found = find_rollout(sid)
    return str(found) if found else None


def _session_slug(store: Store, scope_hash: str, source: str, sid: str, when: datetime) -> str:
    """In a sensitive scope even the session id's first letters stay out of the name."""
    slug = slugs.for_session(source, sid, when)
    if store.keys.sensitive(scope_hash):
        from memoryd.sensitive.marking import opaque

        return opaque(store.keys.get(scope_hash), slug)
    return slug


def _session_start(first_ts: str | None, received_at: Any, fallback: datetime) -> datetime:
    for value in (first_ts, received_at):
        if isinstance(value, str):
            try:
                return clock.parse_ts(value)
            except MemorydError:
                continue
    return fallback


def _keep_goal(old_body: str, new_body: str) -> str:
    """With no transcript this time, keep the earlier body but take the new outcome."""
    marker = "## Outcome\n"
    if marker in old_body and marker in new_body:
        return old_body.split(marker)[0] + marker + new_body.split(marker, 1)[1]
    return old_body


def attach_log(layout: Layout) -> None:
    """Whoever drains (detached worker, CLI, tray) logs to the same logs/worker.log."""
    target = str(layout.logs / "worker.log")
    if any(getattr(h, "baseFilename", None) == target for h in log.handlers):
        return
    layout.prepare()
    handler = logging.FileHandler(target, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.propagate = False


# Memories from before the poison detector read per drain (Store.check_unchecked): a few
# hundred take well under a second; consolidation reads all that are left.
CHECK_BATCH = 300


def drain(
    store: Store, config: Config, *, wait: bool = False, check_limit: int | None = CHECK_BATCH
) -> DrainReport:
    """Process every spooled payload. Only one drainer runs; after releasing the lock it
    looks again, so a payload spooled while it held the lock is not left behind. Under the
    same lock, memories indexed before the poison detector are read once (`check_limit`
    of them per drain, None: all), before the analysis that follows a drain could queue
    one for promotion."""
    report = DrainReport()
    attach_log(store.layout)
    lock = FileLock(str(store.layout.worker_lock), mode=FILE_MODE)
    while True:
        try:
            lock.acquire(timeout=-1 if wait else 0)
        except Timeout:
            report.busy = True
            return report
        try:
            # Which scopes are sensitive is read again under the lock: one may have been
            # marked (or unmarked) since this process last looked.
            store.keys.refresh()
            _sweep_temp(store)
            for path in spool.pending(store.layout.spool):
                if path.name not in report.deferred:
                    _one(store, config, path, report)
            if not report.checked:
                _check_older(store, report, check_limit)
            _resegment(store)
            _seal_settings(store)
        finally:
            lock.release()
        if not [p for p in spool.pending(store.layout.spool) if p.name not in report.deferred]:
            return report


def _check_older(store: Store, report: DrainReport, limit: int | None) -> None:
    """The one-time read of memories from before the poison detector: whatever goes wrong
    there is logged and left for the next drain, and never stops a capture."""
    try:
        report.checked, report.flagged = store.check_unchecked(actor="upgrade", limit=limit)
    except Exception:
        log.exception("reading older memories for attacks failed; the next drain tries again")
        return
    for slug in report.flagged:
        log.warning("flagged %s as suspect: written before the poison detector", slug)


def _resegment(store: Store) -> None:
    """The one-time re-index of memories whose Japanese or Korean words were indexed before
    they were bigrammed (migration 021): here, in the background after a capture, rather
    than in whatever process opens the store first (a SessionStart hook must stay fast)."""
    try:
        if done := store.resegment():
            log.info("re-indexed %d memories for Japanese and Korean search", done)
    except Exception:
        log.exception(
            "re-indexing memories for Japanese and Korean search failed; the next drain tries again"
        )


def _seal_settings(store: Store) -> None:
    """The one-time sealing of sensitive projects' folders in settings files written before
    they were sealed (memoryd.sensitive.names.seal_settings), and the removal of passphrase
    keys whose grants ended (memoryd.sensitive.gate.drop_ended_keys), in the background."""
    from memoryd.sensitive import gate, names

    try:
        if claimed := names.claim_unowned(store):
            log.info("recorded this data dir as the owner of %d sensitive scopes", claimed)
        if done := names.seal_settings(store):
            log.info("sealed the folder of %d sensitive projects in their settings", done)
        if gone := gate.drop_ended_keys(store):
            log.info("removed %d passphrase keys whose grants ended from the OS keyring", gone)
    except Exception:
        log.exception("sealing folders or removing ended keys failed; the next drain tries again")


STALE_TEMP_SECONDS = 600


def _sweep_temp(store: Store) -> None:
    """Remove temp files that an interrupted write left behind long ago (a fresh one may
    belong to a write still under way in another process)."""
    cutoff = time.time() - STALE_TEMP_SECONDS
    for path in [*store.files.temp_leftovers(), *store.layout.spool.glob(".tmp-*.part")]:
        try:
            if path.stat().st_mtime < cutoff:
                path.unlink()
        except FileNotFoundError:
            continue


def _one(store: Store, config: Config, path: Path, report: DrainReport) -> None:
    try:
        # as transcripts are read: a surrogate escape a writer left in it comes back as U+FFFD
        record = jsontext.loads(path.read_bytes())
        if not isinstance(record, dict):
            raise ValueError("not an object")
    except FileNotFoundError:
        return
    except (ValueError, UnicodeDecodeError) as exc:
        spool.reject(path, store.layout.spool_rejected, f"unreadable spool file: {exc}")
        log.warning("rejected %s: unreadable spool file", path.name)
        report.rejected.append(path.name)
        return
    try:
        slug = process(store, config, record)
    except KeyUnavailable as exc:
        log.info("deferred %s: %s", path.name, exc)
        report.deferred.append(path.name)
        report.why_deferred[path.name] = str(exc)
        return
    except MemorydError as exc:
        spool.reject(path, store.layout.spool_rejected, str(exc))
        log.warning("rejected %s: %s", path.name, exc)
        report.rejected.append(path.name)
        return
    except OSError as exc:  # the disk, not the payload (full, read-only): it waits for the next drain
        log.warning("kept %s for later: %s", path.name, exc)
        report.deferred.append(path.name)
        report.why_deferred[path.name] = f"cannot be written now: {exc.strerror or exc}"
        return
    except Exception as exc:  # a bug met on this payload: set it aside, never stall the queue
        log.exception("rejected %s: internal error", path.name)
        spool.reject(path, store.layout.spool_rejected, f"internal error: {exc.__class__.__name__}: {exc}")
        report.rejected.append(path.name)
        return
    faults.point("capture:saved")  # the session is written, the spool file not yet gone
    path.unlink(missing_ok=True)
    report.captured.append(slug)


def embed_new(store: Store, config: Config) -> int:
    """Vectors for what the drain (or anyone since the last run) wrote: after the capture,
    never in the hook. One embedder at a time (a second worker finds the lock taken and
    leaves it to the first); a failure is logged and left for the next run or `reindex`."""
    from memoryd import embed

    lock = FileLock(str(store.layout.home / "vectors.lock"), mode=FILE_MODE)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        return 0
    try:
        embedder = embed.load(config, log.warning)
        if embedder is None:
            return 0
        started = time.monotonic()
        n = store.embed_vectors(embedder)
        if n:
            took = time.monotonic() - started
            log.info("embedded %d texts in %.1f s (%.0f texts/s)", n, took, n / max(took, 1e-9))
        return n
    except Exception:
        log.exception("embedding failed; the next worker run or `memoryd reindex` retries")
        return 0
    finally:
        lock.release()


def main() -> int:
    from memoryd import config as config_mod
    from memoryd import paths

    os.umask(0o077)
    layout = paths.layout().prepare()
    attach_log(layout)
    try:
        store = Store.open(layout)
        config = config_mod.load()
        drain(store, config)
        embed_new(store, config)
        from memoryd.governance.analyze import after_capture

        for a in after_capture(store, config):
            log.info("analysis %s: %s %s", a.slug, a.status, a.note or a.by)
        from memoryd import snapshot

        snapshot.refresh_changed(store)
    except MemorydError as exc:
        log.error("%s", exc)
        return 1
    except Exception:  # a detached worker has no terminal: the log is where it speaks
        log.exception("worker failed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
