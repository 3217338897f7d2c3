"""`memoryd doctor`'s checks in one place: the store's own (files, index, audit chain) and
those of the layers above it (sensitive scopes' keys), which the store cannot import."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memoryd.store import DoctorReport, Store

if TYPE_CHECKING:
    from memoryd.config import Config


def run(store: Store) -> DoctorReport:
    from memoryd.sensitive import marking

    report = store.doctor()
    report.missing_keys = marking.missing_keys(store)
    report.settings_lost = lost_settings(store)
    return report


def lost_settings(store: Store) -> list[str]:
    """Scopes with memories or a folder under scopes/ that the keyring says were marked
    here, and whose settings file is gone (memoryd.sensitive.keys.Keys.settings_lost)."""
    hashes = store.scope_hashes()
    if store.layout.scopes.is_dir():
        hashes |= {p.name for p in store.layout.scopes.iterdir() if p.is_dir()}
    return sorted(h for h in hashes if store.keys.settings_lost(h))


def vectors(store: Store, config: Config, report: DoctorReport) -> None:
    """Texts without a vector of the configured model, vectors left from another model or
    from deleted memories, memories indexed before vectors existed. Loading the embedder
    builds nothing yet (the model is built at its first text), so this stays quick."""
    from memoryd import embed
    from memoryd import vectors as vsql
    from memoryd.db.engine import read_session
    from memoryd.store import raw_connection

    embedder = embed.load(config)
    if embedder is None:
        return
    model = embed.tag(embedder)
    locked = sorted(store._locked_scopes())
    report.vectors_model = model
    report.vectors_missing = store.vectors.missing(model, skip_scopes=locked)
    report.vectors_stale = store.vectors.stale(model)
    report.vectors_invalid = store.vectors.invalid(model)
    with read_session(store.engine) as s:
        report.vectors_unreferenced = len(vsql.unreferenced(raw_connection(s), locked))


def llm_consents(store: Store, config: Config, report: DoctorReport) -> None:
    """Which sensitive scopes' text goes to an LLM provider, and to which; and the old
    config switch, which no longer lets any through (memoryd.sensitive.llm_access)."""
    from memoryd.sensitive import llm_access, state

    report.llm_switch_ignored = config.llm.allow_sensitive
    for h in sorted(state.sensitive_hashes(store.layout)):
        consent = llm_access.get(store, h)
        if consent is not None:
            report.llm_allowed[h] = consent.endpoint
