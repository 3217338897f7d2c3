"""The words other languages say what kind of memory it is with ("retiens-le", "ojito",
참고로) are no keywords, as "remember" and "careful" are not in English; and each language's
words are read only in that language."""

from __future__ import annotations

import pytest

from memoryd.keyterms import keywords
from memoryd.llm.cue_words import language_of, said_with


@pytest.mark.parametrize(
    ("text", "cue", "kept"),
    [
        (
            "Pas de machine à 90 quand le four est allumé, retiens-le stp. Le disjoncteur saute sinon.",
            "retiens-le",
            "disjoncteur",
        ),
        ("Ojito con esa tabla de pedidos en Postgres: la última vez se cayó la web.", "ojito", "postgres"),
        ("Passt auf mit dem Staging-Cluster, sonst ist die Datenbank weg.", "passt", "staging-cluster"),
        ("참고로 엄마가 내년에 칠순이세요. 제주도 가족여행 얘기 중이에요.", "참고로", "제주도"),
        (
            "Запомни: на проде никогда не запускать миграции вручную, только через Jenkins.",
            "запомни",
            "jenkins",
        ),
    ],
)
def test_words_that_state_a_type_are_no_keywords(text: str, cue: str, kept: str) -> None:
    assert cue in said_with(text)
    found = [k.lower() for k in keywords(text, 12)]
    assert cue not in found, found
    assert any(kept in k for k in found), found  # the premise: keywords were found at all


def test_a_language_s_words_are_read_only_in_that_language() -> None:
    assert said_with("We moved the standup to Mai's room; never mind the old one.") == frozenset()
    assert said_with("Ich bin hier seit Montag im Büro") == frozenset()  # German: no cue word
    assert said_with("以后一律用 pnpm，记住了") == frozenset()  # Chinese: memoryd.llm.cues' own words
    assert language_of("Wir haben uns für Postgres entschieden, weil es JSONB kann.") == "de"
