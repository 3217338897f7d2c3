"""memoryd reindex / doctor / stats."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from memoryd.cli import output


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    r = sub.add_parser(
        "reindex",
        parents=[common],
        help="rebuild the index from the memory files",
        description="Rebuild everything derivable from the files. Example: memoryd reindex",
    )
    r.set_defaults(handler=run_reindex)
    d = sub.add_parser(
        "doctor",
        aliases=["validate"],  # seed 003's name for the same check
        parents=[common],
        help="check files, index and audit chain (also: validate)",
        description="Report files without rows, rows without files, damaged files and "
        "audit chain health; exit 1 on problems. Example: memoryd doctor",
    )
    d.set_defaults(handler=run_doctor)
    s = sub.add_parser(
        "stats",
        parents=[common],
        help="counts by type, state and scope; last runs",
        description="Example: memoryd stats --json",
    )
    s.set_defaults(handler=run_stats)


def run_reindex(args: argparse.Namespace) -> int:
    from memoryd.app import Memoryd
    from memoryd.importers.common import stderr_progress

    quiet = args.json
    rep = Memoryd().reindex(
        progress=None if quiet else stderr_progress("indexing"),
        embed_progress=None if quiet else stderr_progress("embedding"),
    )
    if args.json:
        output.emit_json(rep.__dict__)
        return 0
    kinds = ", ".join(f"{k} {v}" for k, v in sorted(rep.by_type.items())) or "none"
    output.line(f"indexed {rep.indexed} of {rep.files} files ({kinds}); {rep.turns} turns")
    if rep.model:
        line = f"vectors ({rep.model}): {rep.embedded} texts embedded"
        if rep.vectors_missing:
            line += f", {rep.vectors_missing} left (sensitive scopes whose key is not at hand)"
        output.line(line)
    for s in rep.skipped:
        output.warn(f"skipped {s}")
    for note in rep.notes:
        output.warn(note)
    return 0


def run_doctor(args: argparse.Namespace) -> int:
    from memoryd.app import Memoryd

    rep = Memoryd().doctor()
    audit = rep.audit
    if args.json:
        output.emit_json(
            {
                **{k: v for k, v in rep.__dict__.items() if k != "audit"},
                "audit": audit.__dict__ if audit else None,
                "ok": rep.ok,
            }
        )
    else:
        for title, items in (
            ("files without index rows", rep.files_without_rows),
            ("index rows without files", rep.rows_without_files),
            ("damaged files", rep.corrupt_files),
            ("leftover temp files", rep.temp_leftovers),
        ):
            output.line(f"{title}: {len(items)}")
            for item in items[:20]:
                output.line(f"  {item}")
        output.line(f"spool: {rep.spool_pending} pending, {rep.spool_rejected} rejected")
        for h in rep.missing_keys:
            output.line(
                f"sensitive scope {h}: its key is missing from the OS keyring, so its memories cannot be "
                "read; restore it with `memoryd key import FILE` (the file `memoryd key export` wrote)"
            )
        for item in rep.missing_markers:
            output.line(
                f"sensitive scope {item}: its .memoryd-sensitive marker is missing (captures stay "
                "sealed; `memoryd mark-sensitive` on that directory puts the marker back)"
            )
        for h in rep.settings_disowned:
            output.line(
                f"sensitive scope {h}: its settings file names another key than the one the OS keyring "
                "holds for it (edited outside memoryd), so nothing of it opens or is granted: restore "
                "sensitive.json from a backup, or `memoryd key import` the scope's recovery file"
            )
        for h in rep.settings_lost:
            output.line(
                f"sensitive scope {h}: its settings file is gone, but it was never unmarked (the OS "
                "keyring still anchors it), so nothing of it is written in the clear and its captures "
                "wait: restore sensitive.json from a backup, or `memoryd key import` the scope's "
                "recovery file"
            )
        if rep.moved_from:
            how = "a copy of the one" if Path(rep.moved_from).exists() else "moved from"
            output.line(
                f"data dir: {how} at {rep.moved_from}; the OS keyring names its grant PIN, audit "
                "anchor and sensitive scopes by that place: move it back there to use them (or "
                "`memoryd key import` a scope's recovery file here)"
            )
        for h, where in rep.llm_allowed.items():
            output.line(
                f"sensitive scope {h}: its sessions are scored by {where} (allowed by the person; "
                "`memoryd allow-llm PATH --off` keeps them here)"
            )
        if rep.llm_switch_ignored:
            output.line(
                "config: [llm] allow_sensitive is no longer read, so no sensitive project's text goes to "
                "the LLM by it; `memoryd allow-llm PATH` allows one project, confirmed as a grant is"
            )
        for h in rep.clear_roots:
            output.line(
                f"sensitive scope {h}: its settings keep the project folder in the clear (written "
                "before folders were sealed); the next capture or `memoryd grant` seals it"
            )
        if rep.vectors_model and (rep.vectors_missing or rep.vectors_stale or rep.vectors_unreferenced):
            parts = []
            if rep.vectors_missing:
                parts.append(f"{rep.vectors_missing} texts without a vector")
            if rep.vectors_unreferenced:
                parts.append(f"{rep.vectors_unreferenced} memories never embedded")
            if rep.vectors_stale:
                parts.append(f"{rep.vectors_stale} stale vectors (another model, or deleted memories)")
            output.line(
                f"vectors ({rep.vectors_model}): {'; '.join(parts)}; `memoryd reindex` embeds what is "
                "missing (keyword search finds these memories meanwhile)"
            )
        for h in rep.locked_scopes:
            if h not in rep.missing_keys:
                output.line(f"sensitive scope {h}: not checked (its key is not at hand without a grant)")
        if audit:
            state = "intact" if audit.ok else f"BROKEN at seq {audit.first_bad_seq}: {audit.reason}"
            output.line(f"audit chain: {audit.events} events, {state}")
            output.line(f"audit anchor: {audit.anchor}")
        if not rep.ok:
            output.line("problems found: `memoryd reindex` heals index drift; see above for the rest")
    return 0 if rep.ok else 1


def run_stats(args: argparse.Namespace) -> int:
    from memoryd.app import Memoryd

    app = Memoryd()
    app.catch_up()
    st = app.stats()
    if args.json:
        output.emit_json(st)
        return 0
    output.line(f"home: {st['home']}")
    output.line("by type:  " + (", ".join(f"{k} {v}" for k, v in st["by_type"].items()) or "none"))
    output.line("by state: " + (", ".join(f"{k} {v}" for k, v in st["by_state"].items()) or "none"))
    output.line(
        f"scopes: {len(st['by_scope'])}; turns: {st['turns']}; spool pending: {st['spool_pending']}; "
        f"forgotten (archived): {st['forgotten_archived']}"
    )
    for k, v in sorted(st["last_runs"].items()):
        output.line(f"last {k}: {v}")
    c = st["consolidation"]
    line = f"last consolidation: {c['last_success'] or 'never'}; next: {c['next_scheduled'] or 'none'}"
    if c["interrupted_in"]:
        line += f"; interrupted in {c['interrupted_in']}, resumes at the next run"
    elif c["last_error"]:
        line += f"; last attempt failed: {c['last_error']}"
    output.line(line)
    from memoryd.governance import spend

    for text in spend.describe(app.spend()):
        output.line(text)
    sq = st["sqlite"]
    output.line(
        f"sqlite {sq['version']} (fts5 {'yes' if sq['fts5'] else 'no'}), schema v{st['schema_version']}"
    )
    return 0
