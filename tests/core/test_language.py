"""memoryd.language: the language of a short Latin-script text by its function words, or
none where the words do not tell (guessing there would hide memories keyword search can
judge: memoryd.fusion ranks another language's memories by meaning alone)."""

from __future__ import annotations

import pytest

from memoryd.language import latin_language


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("which database does the job queue use?", "en"),
        ("The CLI keeps its offline cache in SQLite, not LevelDB", "en"),
        ("It's broken, don't deploy", "en"),  # contractions are English
        ("Wir verwenden PostgreSQL für die Auftragswarteschlange", "de"),
        ("Welche Datenbank nutzt die Warteschlange?", "de"),
        ("Ma fille est allergique aux arachides", "fr"),
        ("l'EpiPen est dans son sac", "fr"),  # an elided article counts
        ("À quoi ma fille est-elle allergique ?", "fr"),
        ("No desplegar los viernes por la tarde", "es"),
        ("¿Cuándo no debemos desplegar?", "es"),
        ("O banco de dados do faturamento é MySQL", "pt"),
        ("Il backup della base di dati parte ogni notte", "it"),
        ("De database van de klant draait op Postgres", "nl"),
    ],
)
def test_function_words_tell_the_language(text: str, expected: str) -> None:
    assert latin_language(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Kubernetes",  # no function word
        "Deploy checklist",
        "pnpm peer deps",
        "Fix flaky test in auth module",  # "in" is English, German, Italian and Dutch alike
        "Take a break",  # "a" alone is shared by four languages
        "Deploy was blocked",  # "was": English and German
        "",
        "1234 !?",
        # found by the red team: developer words that look like function words elsewhere
        "CI cache",  # ci: Italian, but an acronym is no function word
        "flaky CI tests",
        "MIT license",
        "os module",  # os: Portuguese, once
        "import os\nos.path.join(a, b)",  # a repeated word is no more evidence
        "limit per user per minute",  # per: Italian and English alike
        "non-blocking IO",
        "op codes",
    ],
)
def test_it_abstains_where_the_words_do_not_tell(text: str) -> None:
    assert latin_language(text) is None


def test_curly_apostrophes_read_as_straight_ones() -> None:
    assert latin_language("It\u2019s the cron job, don\u2019t restart") == "en"
    assert latin_language("l\u2019ordre des tâches est fixé") == "fr"


def test_english_with_shared_words_stays_english() -> None:
    assert latin_language("Caching in Redis per tenant, not per user") == "en"
    assert latin_language("Rate limit per AI call: cap at 20 per minute in CI, per user") == "en"
