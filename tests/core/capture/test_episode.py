"""A session's title and its "What was done" lines are cut at boundaries, never mid-word."""

from __future__ import annotations

from collections import deque

from memoryd.capture import episode
from memoryd.capture.transcripts import Parsed
from memoryd.redact import Redactor

PROMPT = (
    "Warning for the future: never run the migrations on staging during business hours, "
    "the tables lock and the whole app stalls for minutes."
)


def _build(prompts: list[str], answers: list[str]) -> episode.Episode:
    parsed = Parsed(turns=deque(), prompts=prompts, answers=answers)
    return episode.build(parsed, {"session_id": "s1"}, "claude-code", Redactor())


def test_session_title_is_cut_at_a_word_boundary():
    ep = _build([PROMPT], ["Done."])
    head = ep.title.removesuffix("…")
    assert len(ep.title) <= 80 and ep.title != head and PROMPT.startswith(head)
    assert PROMPT[len(head)] == " ", ep.title  # was "...business hou…"


def test_chinese_session_title_does_not_split_an_ascii_word():
    zh = "以后部署的时候一定要先在预发环境把完整的回归测试跑一遍然后确认监控面板上没有告警再执行迁移"
    prompt = f"{(zh * 2)[:70]} PostgreSQLMigrationRunner 脚本"  # the ASCII word spans character 80
    ep = _build([prompt], ["好的。"])
    head = ep.title.removesuffix("…")
    assert len(ep.title) <= 80 and prompt.startswith(head)
    assert "Postgre" not in ep.title, ep.title


def test_what_was_done_keeps_fly_io_and_versions_whole():
    ep = _build(
        ["move us off Heroku"],
        ["Moved the app to Fly.io and pinned Python 3.11. Then I checked the logs.", "All done."],
    )
    assert "- Moved the app to Fly.io and pinned Python 3.11.\n" in ep.body
