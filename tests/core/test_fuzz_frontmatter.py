"""Fuzzed memory files (hand edits, other tools, damage): frontmatter.parse gives a Document
or one CorruptFile naming the file; a Document it gives renders to a file it reads again."""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from memoryd import frontmatter, jsontext
from memoryd.errors import CorruptFile
from tests.fuzzing import TRICKS, hostile_text, json_values, text_values

FAST = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))

GOOD = """---
title: Use Postgres for jobs
slug: 2026-05-18-use-postgres-for-jobs
type: decision
scope_hash: 0123456789ab
source: manual
created_at: '2026-05-18T22:30:12Z'
updated_at: '2026-05-18T22:30:12Z'
tags:
- ops
triggers:
- postgres
category: null
ttl_days: null
decay_state: alive
recall_count: 0
last_recalled_at: '2026-05-18T22:30:12Z'
dura_score: null
session_id: s1
---
SQLite locked under load.
"""
LINES = GOOD.split("\n")
YAML_VALUES = (
    "",
    "~",
    "[]",
    "{}",
    "[a, [b, {c: d}]]",
    "&x [*x]",
    "*missing",
    "!!binary aGVsbG8=",
    "!!python/object/apply:os.system ['true']",
    "!!timestamp 2026-13-45",
    "2026-05-18",
    "2026-05-18 22:30:12+99:00",
    "1e999",
    ".nan",
    "-.inf",
    "0o777",
    "99999999999999999999999999",
    "yes",
    '"\\ud800"',
    '"\\x00\\x1b[31m"',
    "|\n  block\n  ---",
    ">-\n  folded",
    "'''",
    "\ufeffvalue",
    "{a: 1, a: 2}",
    "<<: {x: 1}",
    "<<: 1",
    "{[a]: 1}",
    "[" * 5000 + "]" * 5000,
)


@st.composite
def memory_files(draw: st.DrawFn) -> str:
    lines = list(LINES)
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(lines) - 1))
        what = draw(st.integers(0, 5))
        key = lines[i].split(":", 1)[0] if ":" in lines[i] else draw(hostile_text)
        if what == 0:
            lines[i] = f"{key}: {draw(st.sampled_from(YAML_VALUES))}"
        elif what == 1:
            lines[i] = f"{key}: {draw(text_values)}"
        elif what == 2:
            lines.insert(i, draw(st.sampled_from(TRICKS)) + draw(hostile_text))
        elif what == 3:
            del lines[i]
        elif what == 4:
            lines[i] = (
                f"{key}: {frontmatter.yaml.safe_dump(draw(json_values), default_flow_style=True).strip()}"
            )
        else:
            lines[i] = lines[i] + draw(hostile_text)
    sep = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    text = draw(st.sampled_from(["", "", "\ufeff", " "])) + sep.join(lines)
    return jsontext.without_surrogates(text)  # read from a file: UTF-8 decoded, no lone surrogate


def _roundtrip(doc: frontmatter.Document) -> None:
    text = frontmatter.render(doc)
    text.encode("utf-8")
    again = frontmatter.parse(text)
    assert again.meta.slug == doc.meta.slug and again.body == doc.body


@FAST
@given(text=memory_files())
@example(text=GOOD.replace("title: Use Postgres for jobs", 'title: "\\ud800"'))
# Found by the fuzzer: YAML that parses but cannot be built raised ValueError, not CorruptFile.
@example(text=GOOD.replace("title: Use Postgres for jobs", "title: !!timestamp 2026-13-45"))
@example(text=GOOD.replace("title: Use Postgres for jobs", "title: 2026-05-18 22:30:12+99:00"))
@example(text=GOOD.replace("title: Use Postgres for jobs", "title: " + "[" * 5000 + "]" * 5000))
def test_fuzzed_memory_file_parses_or_is_corrupt(text: str) -> None:
    try:
        doc = frontmatter.parse(text, where="x.md")
    except CorruptFile as exc:
        assert str(exc).startswith("x.md: ") and "\n" not in str(exc)
        return
    _roundtrip(doc)


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    data=st.one_of(st.binary(max_size=400), memory_files().map(lambda t: t.encode("utf-8", "surrogatepass")))
)
def test_fuzzed_bytes_parse_or_are_corrupt(data: bytes) -> None:
    try:
        doc = frontmatter.parse_bytes(data, where="x.md")
    except CorruptFile:
        return
    _roundtrip(doc)
