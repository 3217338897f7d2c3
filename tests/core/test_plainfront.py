"""memoryd.plainfront, the frontmatter without pydantic for the CLI's read path: its field
table is the model's, it takes a file memoryd wrote as the model does, writes a recall
as the model would, and turns down every file the model would read differently."""

from __future__ import annotations

import typing
from datetime import UTC, datetime

import pytest

from memoryd import frontmatter, plainfront
from memoryd.frontmatter import Document
from memoryd.models import DecayState, Frontmatter, MemoryType

SLUG = "2026-05-18-use-postgres-1a2b"


def _doc(**extra: typing.Any) -> Document:
    meta = Frontmatter(
        title="Use Postgres: 前端 \"quoted\" and 'single'",
        slug=SLUG,
        type=MemoryType.decision,
        scope_hash="0123456789ab",
        source="manual",
        created_at=datetime(2026, 5, 18, 10, 0, tzinfo=UTC),
        updated_at=datetime(2026, 5, 19, 10, 0, tzinfo=UTC),
        triggers=["postgres", "2026"],
        tags=["db"],
        decay_state=DecayState.dim,
        recall_count=3,
        dura_score={"D": 0.5, "U": 1.0},
        **extra,
    )
    return Document(meta, "SQLite locked up.\n\n---\nnot a fence\n")


def test_the_field_table_is_the_models():
    assert [name for name, _ in plainfront.FIELDS] == list(Frontmatter.model_fields)
    for name, kind in plainfront.FIELDS:
        field = Frontmatter.model_fields[name]
        assert field.is_required() == (kind in ("str", "type", "scope", "time")), name
        optional = type(None) in typing.get_args(field.annotation)
        assert optional == (kind.endswith("?") or kind.endswith("-")), name


@pytest.mark.parametrize(
    "extra",
    [
        {},
        {"session_id": "s-1", "superseded_by": "2026-05-20-newer-9f9f"},
        {"entity_mentions": {"entity:x:y": 2}},
    ],
)
def test_a_file_memoryd_wrote_reads_and_recalls_as_through_the_model(extra: dict[str, typing.Any]):
    doc = _doc(**extra)
    text = frontmatter.render(doc)
    data, body = plainfront.canonical(text, SLUG) or ({}, "")
    assert body == doc.body
    dumped = {k: frontmatter._plain(v) for k, v in doc.meta.model_dump().items()}
    assert plainfront.dumped(data) == dumped
    assert list(plainfront.dumped(data)) == list(dumped)

    when = datetime(2026, 6, 1, 12, 30, 5, tzinfo=UTC)
    doc.meta.recall_count += 1
    doc.meta.last_recalled_at = when
    doc.meta.decay_state = DecayState.alive
    assert plainfront.render(plainfront.recalled(data, "2026-06-01T12:30:05Z"), body) == frontmatter.render(
        doc
    )


@pytest.mark.parametrize(
    "edit",
    [
        ("---\n", "---\n# a comment\n"),  # YAML that does not round-trip
        ("recall_count: 3", "recall_count: '3'"),  # the model would make it a number
        ("created_at: '2026-05-18T10:00:00Z'", "created_at: '2026-05-18 10:00'"),  # and this a time
        ("created_at: '2026-05-18T10:00:00Z'", "created_at: '2026-02-30T10:00:00Z'"),  # no such day
        ("D: 0.5", "D: 1"),  # the model makes it 1.0
        ("tags:\n- db\n", ""),  # a missing list the model would add
        ("decay_state: dim", "decay_state: faded"),
        ("scope_hash: 0123456789ab", "scope_hash: 0123456789AB"),
        (f"slug: {SLUG}", "slug: another-slug-0000"),
        ("title: ", "zz_first: 1\ntitle: "),  # keys out of the model's order
    ],
)
def test_anything_else_is_left_to_the_model(edit: tuple[str, str]):
    text = frontmatter.render(_doc())
    assert edit[0] in text
    assert plainfront.canonical(text.replace(edit[0], edit[1], 1), SLUG) is None


def test_a_dated_extension_is_left_to_the_model():
    """An unquoted date in an extension key loads as a date, which the model's dump
    writes back as a string: not the same bytes."""
    text = frontmatter.render(_doc(reviewed={"ok": True}))
    assert plainfront.canonical(text, SLUG) is not None
    assert plainfront.canonical(text.replace("  ok: true", "  ok: 2026-05-18"), SLUG) is None
