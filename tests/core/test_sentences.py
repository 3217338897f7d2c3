"""Sentence splitting keeps names, versions, files, decimals and abbreviations whole."""

from __future__ import annotations

import pytest

from memoryd import sentences


def test_a_domain_name_is_not_a_sentence_end():
    text = "We moved the app to Fly.io from now on. Decision: we stopped using Heroku and moved to Fly."
    assert sentences.split(text) == [
        "We moved the app to Fly.io from now on.",
        "Decision: we stopped using Heroku and moved to Fly.",
    ]


@pytest.mark.parametrize(
    "whole",
    [
        "Pin Python 3.11 and v1.2.3 of the client.",
        "The fix is in billing.py and package.json now.",
        "It costs 2.5 times as much on example.com today.",
        "Use a manager, e.g. pnpm, i.e. not npm.",
        "Read `foo. Bar` before you change it.",
        "See https://example.com/a?b=1 for details.",
        "Compare Postgres vs. SQLite first.",
    ],
)
def test_names_versions_files_decimals_abbreviations_stay_whole(whole: str):
    assert sentences.split(whole) == [whole]


def test_english_ends_and_list_items():
    text = "Really? Yes! Done.\n1. Run the tests\n2. Bump the version in package.json\nHow to ship: 1. tag it"
    assert sentences.split(text) == [
        "Really?",
        "Yes!",
        "Done.",
        "1. Run the tests",
        "2. Bump the version in package.json",
        "How to ship: 1. tag it",
    ]


def test_chinese_ends_need_no_space():
    text = "以后一律用 pnpm。不要在周五部署！为什么？因为会出事；好的"
    assert sentences.split(text) == [
        "以后一律用 pnpm。",
        "不要在周五部署！",
        "为什么？",
        "因为会出事；",
        "好的",
    ]


def test_a_hard_wrapped_sentence_is_joined_and_code_blocks_can_be_left_out():
    text = "never run the migrations\non staging. Then:\n```\nmake migrate. now\n```\nDone."
    assert sentences.split(text, code=False) == ["never run the migrations on staging.", "Then:", "Done."]


def test_first_sentence():
    assert sentences.first("Deployed to Fly.io.  Then   we\nchecked it.") == "Deployed to Fly.io."
    assert sentences.first("  ") == ""
