"""The words other languages say what kind of memory it is with ("retiens-le", "ojito",
참고로) are no keywords where they say it, as "remember" and "careful" are not in English;
each language's words are read only in that language, and the same word elsewhere, or a
noun that only starts like one, stays a keyword."""

from __future__ import annotations

import pytest

from memoryd.keyterms import keywords
from memoryd.llm.cue_words import language_of, said_at


def _said(text: str) -> list[str]:
    return [text[a:b].lower() for a, b in said_at(text)]


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
    assert any(cue in said for said in _said(text))
    found = [k.lower() for k in keywords(text, 12)]
    assert cue not in found, found
    assert any(kept in k for k in found), found  # the premise: keywords were found at all


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        # the same word elsewhere in the text: "die Wahl fällt auf" states a decision
        ("Die Wahl fällt auf Hetzner. Die Wahl des Rechenzentrums war Falkenstein, wegen der Wahl.", "wahl"),
        # nouns that only start like a cue verb (segna, grava, notier)
        (
            "Il segnale del sensore Zigbee si perde, ricordati: il segnale cade di notte col segnale.",
            "segnale",
        ),
        (
            "A gravação da reunião ficou sem som, lembre-se: a gravação do Zoom precisa de gravação local.",
            "gravação",
        ),
        # a danger word is often the subject itself
        ("Achtung: der Pilz ist giftig. Giftig sind auch die Blätter, giftig für Hunde.", "giftig"),
    ],
)
def test_what_a_memory_is_about_stays_a_keyword(text: str, kept: str) -> None:
    found = [k.lower() for k in keywords(text, 12)]
    assert any(kept in k for k in found), found


def test_a_language_s_words_are_read_only_in_that_language() -> None:
    assert said_at("We moved the standup to Mai's room; never mind the old one.") == []
    assert said_at("Ich bin hier seit Montag im Büro") == []  # German: no cue word
    assert said_at("以后一律用 pnpm，记住了") == []  # Chinese: memoryd.llm.cues' own words
    assert language_of("Wir haben uns für Postgres entschieden, weil es JSONB kann.") == "de"
