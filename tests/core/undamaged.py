"""The end-to-end fuzz tests' one property of the store: whatever the input did, the data
dir is whole afterwards (doctor and audit verify clean) and earlier memories unchanged."""

from __future__ import annotations

from pathlib import Path

from memoryd.app import Memoryd

TITLES = ("Use Postgres for jobs", "前端性能预算")


def seeded(project: Path, titles: tuple[str, ...] = TITLES) -> tuple[Memoryd, dict[Path, bytes]]:
    """Recorded decisions and their bytes; hypothesis runs every example of a test in its
    one data dir, so they are recorded once."""
    app = Memoryd()
    if not list(app.layout.scopes.glob("*/decisions/*.md")):
        for title in titles:
            app.record("decision", title, f"{title}: body.", scope_path=project)
    return app, {p: p.read_bytes() for p in app.layout.scopes.glob("*/decisions/*")}


def assert_undamaged(app: Memoryd, before: dict[Path, bytes]) -> None:
    doctor = app.doctor()
    where = (doctor.corrupt_files, doctor.files_without_rows, doctor.rows_without_files, doctor.audit)
    assert doctor.ok, where
    assert app.audit_verify().ok
    for path, data in before.items():
        assert path.read_bytes() == data, path
