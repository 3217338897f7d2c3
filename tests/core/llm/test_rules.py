"""The rules provider's proposals for the examples of issue 21 (no API key)."""

from __future__ import annotations

import pytest

from memoryd.llm import rules
from memoryd.store import dura_mean

THRESHOLD = 0.6  # config governance.promote_threshold's default


def _score(*turns: str):
    out = rules.score(turns[0][:79], "", user_turns=list(turns))
    return out, dura_mean({"D": out.D, "U": out.U, "R": out.R, "A": out.A}) or 0.0


def test_title_states_the_rule_without_prefix_or_cut_word():
    out, mean = _score(
        "Warning for the future: never run the migrations on staging during business hours, "
        "the tables lock and the whole app stalls for minutes."
    )
    assert out.title == "Never run the migrations on staging during business hours"
    assert out.type == "warning" and mean >= THRESHOLD


def test_body_keeps_fly_io_whole_and_the_points_in_order():
    out, _ = _score(
        "We moved the app to Fly.io from now on.", "Decision: we stopped using Heroku and moved to Fly."
    )
    assert (
        out.body == "- We moved the app to Fly.io from now on.\n- We stopped using Heroku and moved to Fly."
    )


def test_a_point_said_twice_is_kept_once_where_first_said():
    out, _ = _score("Always use pnpm.", "We chose Postgres.", "always use pnpm.")
    assert out.body == "- Always use pnpm.\n- We chose Postgres."


def test_always_use_pnpm_is_a_preference():
    out, mean = _score("always use pnpm in this repo; npm broke the lockfile last time")
    assert out.type == "preference" and mean >= THRESHOLD
    assert out.title == "Always use pnpm in this repo; npm broke the lockfile last time"


def test_a_bug_fix_session_is_not_proposed():
    out, mean = _score(
        "The invoice export crashes with a KeyError when the list is empty, please fix it. "
        "This is important: billing depends on the CSV export and it must work."
    )
    assert out.type == "none" and mean < THRESHOLD


def test_chinese_preference_warning_and_bug_fix():
    out, mean = _score("记住：以后一律用 pnpm 安装依赖，不要用 npm。")
    assert (out.type, out.title) == (
        "preference",
        "以后一律用 pnpm 安装依赖，不要用 npm",
    ) and mean >= THRESHOLD
    out, mean = _score("有个坑：不要在周五下午部署生产环境，否则周末没人值班。")
    assert (out.type, out.title) == ("warning", "不要在周五下午部署生产环境，否则周末没人值班")
    assert mean >= THRESHOLD
    out, mean = _score("帮我修一下 InvoiceExport 的报错：空列表时会崩溃。这个很重要，账单依赖它，必须修好。")
    assert out.type == "none" and mean < THRESHOLD


def test_the_title_comes_from_the_sentence_that_states_the_rule():
    out, _ = _score(
        "can you look at the deploy script?",
        "ok thanks. From now on, deploy with ansible and never by hand.",
    )
    assert out.title == "From now on, deploy with ansible and never by hand"


def test_a_stated_fact_and_a_playbook_are_proposed():
    out, mean = _score("FYI the staging DB is on port 5433.")
    assert (out.type, out.title) == ("fact", "The staging DB is on port 5433") and mean >= THRESHOLD
    out, mean = _score("How to release:\n1. bump the version\n2. run the tests\n3. tag and push")
    assert (out.type, out.title) == ("playbook", "How to release") and mean >= THRESHOLD
    assert "2. run the tests\n3. tag and push" in out.body


def test_the_reasons_follow_the_point():
    out, _ = _score("Remember: in this repo always use pnpm, never npm. This is important for the lockfile.")
    assert out.body == "- In this repo always use pnpm, never npm.\n- This is important for the lockfile."


def test_steps_the_assistant_laid_out_are_the_playbook_the_user_adopts():
    body = (
        "## Goal\nHow do I rotate the API token for the billing service?\n\n"
        "## Outcome\nDo it like this: 1. create a new token in the vault 2. update BILLING_TOKEN "
        "in the deploy settings 3. redeploy billing 4. revoke the old token.\n"
    )
    turns = [
        "How do I rotate the API token for the billing service?",
        "Great, that's our rotation procedure.",
    ]
    out = rules.score(turns[0], body, user_turns=turns)
    assert out.type == "playbook"
    assert "BILLING_TOKEN" in out.triggers  # said only in the steps
    assert out.body.splitlines()[1:] == [
        "1. create a new token in the vault",
        "2. update BILLING_TOKEN in the deploy settings",
        "3. redeploy billing",
        "4. revoke the old token.",
    ]


def test_each_user_turn_is_its_own_sentences():
    """A turn with no closing punctuation is not a hard-wrapped line of the next one: a
    person pressed enter, and their next turn may take the first back."""
    out, _ = _score("we could keep the npm workspaces hm", "scratch that, let's go with pnpm workspaces")
    assert out.type == "decision"
    assert out.title.lower() == "scratch that, let's go with pnpm workspaces"
    assert "npm workspaces hm" not in out.title


def test_a_lone_surrogate_in_what_was_said_still_makes_a_proposal():
    """Found by the red team: a lone surrogate (a JSON transcript can escape one) reached
    DuraOutput's title and body, and pydantic refused them: score raised instead of
    answering. The text is made UTF-8 safe as it enters, so the proposal is the same as
    for the text with U+FFFD there."""
    turn = "Always use pnpm \ud800 in this repo; npm broke the lockfile."
    out = rules.score("x \udfff", "## Goal\nfix \udc80 it\n", user_turns=[turn])
    same = rules.score("x \ufffd", "## Goal\nfix \ufffd it\n", user_turns=[turn.replace("\ud800", "\ufffd")])
    assert out == same
    assert out.type == "preference" and "pnpm" in out.title
    (out.title + out.body + "".join(out.triggers) + out.reasoning).encode("utf-8")
    # the body alone (no turns kept) goes through the same entry
    alone = rules.score("x", "## Goal\nAlways use pnpm \ud800 in this repo.\n")
    assert alone.type == "preference" and "\ufffd" in alone.body
    # ...and so does the reason a provider gave up, which may quote a server's error
    failed = rules.score("x", "## Goal\nfix it\n", reason="LLM failed (model not found \ud800)")
    failed.reasoning.encode("utf-8")


@pytest.mark.parametrize(
    ("sentence", "term", "named"),
    [
        ("用postgres做队列，redis 只做缓存", "postgres", True),  # Latin beside Han: still a word
        ("IIJmioのドコモ回線にした", "iijmio", True),
        ("run npm audit fix --force and be done", "--force", True),
        ("we moved to postgresql last year", "postgres", False),  # inside a longer word
        ("女儿对花生严重过敏", "花生", True),
        ("女儿对坚果过敏", "花生", False),
    ],
)
def test_a_title_sentence_names_a_keyword_as_a_whole_word(sentence: str, term: str, named: bool) -> None:
    assert rules._names(sentence.casefold(), term) is named
