from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memoryd import frontmatter
from memoryd.errors import CorruptFile
from memoryd.frontmatter import Document
from memoryd.models import Frontmatter, MemoryType, default_ttl

WHEN = datetime(2026, 5, 18, 22, 30, 12, tzinfo=UTC)


def _doc(**kw) -> Document:
    meta = Frontmatter(
        title="前端切换到 Solid",
        slug="2026-05-18-switch-ab12",
        type=MemoryType.decision,
        scope_hash="d8e86b48589e",
        source="manual",
        created_at=WHEN,
        **kw,
    )
    return Document(meta, "Body line.\n\n- bullet 中文\n")


def test_every_field_is_written_with_its_default():
    text = frontmatter.render(_doc())
    for key in (
        "title",
        "slug",
        "type",
        "scope_hash",
        "source",
        "created_at",
        "updated_at",
        "tags",
        "triggers",
        "category",
        "ttl_days",
        "decay_state",
        "recall_count",
        "last_recalled_at",
        "dura_score",
        "promoted_from",
        "supersedes",
        "observations",
        "relations",
    ):
        assert f"\n{key}:" in text, key
    assert "decay_state: alive" in text and "recall_count: 0" in text
    assert default_ttl(MemoryType.session) == 90 and default_ttl(MemoryType.warning) is None


def test_read_then_write_changes_nothing():
    doc = _doc(
        triggers=["性能", "solid"],
        dura_score={"D": 0.7, "U": 0.8, "R": 0.6, "A": 0.9},
        ttl_days=None,
        last_recalled_at=WHEN,
    )
    text = frontmatter.render(doc)
    again = frontmatter.render(frontmatter.parse(text))
    assert again == text


def test_unknown_keys_and_hand_written_timestamps_survive():
    text = (
        "---\ntitle: t\nslug: s1\ntype: fact\nscope_hash: d8e86b48589e\nsource: manual\n"
        "created_at: 2026-05-18T22:30:12Z\nmy_note: keep me\n---\nbody\n"
    )
    doc = frontmatter.parse(text)
    assert doc.meta.extras == {"my_note": "keep me"}
    out = frontmatter.render(doc)
    assert "my_note: keep me" in out and frontmatter.render(frontmatter.parse(out)) == out


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("no fence\n", "no frontmatter"),
        ("---\ntitle: t\n", "not closed"),
        ("---\n: : :\n  - [\n---\nb", "not valid YAML"),
        ("---\n- a list\n---\nb", "not a mapping"),
        ("---\ntitle: t\n---\nb", "slug"),
        (
            "---\ntitle: t\nslug: s\ntype: diary\nscope_hash: d8e86b48589e\n"
            "source: m\ncreated_at: 2026-01-01\n---\n",
            "type",
        ),
    ],
)
def test_malformed_frontmatter_is_one_clear_error(text: str, why: str):
    with pytest.raises(CorruptFile, match=why):
        frontmatter.parse(text, where="x.md")


def test_non_utf8_is_refused():
    with pytest.raises(CorruptFile, match="not UTF-8"):
        frontmatter.parse_bytes(b"---\ntitle: \xff\xfe\n---\n")
