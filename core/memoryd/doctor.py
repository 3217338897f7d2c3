"""`memoryd doctor`'s checks in one place: the store's own (files, index, audit chain) and
those of the layers above it (sensitive scopes' keys), which the store cannot import."""

from __future__ import annotations

from memoryd.store import DoctorReport, Store


def run(store: Store) -> DoctorReport:
    from memoryd.sensitive import marking

    report = store.doctor()
    report.missing_keys = marking.missing_keys(store)
    return report
