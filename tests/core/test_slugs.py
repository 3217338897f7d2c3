from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memoryd import slugs
from memoryd.errors import InvalidSlug

WHEN = datetime(2026, 5, 18, tzinfo=UTC)


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "..",
        "../etc/passwd",
        "a/b",
        "a\\b",
        "x\x00y",
        "a" * 121,
        ".hidden",
        "-flag",
        "ok..no",
        "x.md",
        "with space",
        "日本",
    ],
)
def test_unsafe_slugs_are_refused(bad: str):
    with pytest.raises(InvalidSlug):
        slugs.validate(bad)


def test_generated_slugs_are_safe_and_readable():
    s = slugs.for_title("Use Postgres for the job queue!", WHEN)
    assert s.startswith("2026-05-18-use-postgres-for-the-job-queue-") and slugs.validate(s) == s
    assert slugs.validate(slugs.for_title("全部中文标题", WHEN)).startswith("2026-05-18-")
    a = slugs.for_session("claude-code", "../../evil/ id", WHEN)
    assert a == slugs.for_session("claude-code", "../../evil/ id", WHEN)
    assert a != slugs.for_session("codex", "../../evil/ id", WHEN)
    assert "/" not in a and ".." not in a


def test_cli_refuses_traversal_slug_without_damage(cli, isolated_home, project):
    assert (
        cli("record", "--type", "fact", "--title", "keep", "--body", "b", "--scope", str(project)).returncode
        == 0
    )
    for bad in ("../../etc/passwd", "a/b", "x" * 500):
        for cmd in (("get", bad), ("forget", bad), ("update", bad, "--title", "x")):
            res = cli(*cmd)
            assert res.returncode == 2, (cmd, res.stderr)
            assert res.stderr.startswith("memoryd: slug") and res.stderr.count("\n") == 1
    assert cli("doctor").returncode == 0
