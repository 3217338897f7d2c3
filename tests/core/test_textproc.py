"""Query text processing: terms, bigrams and dates named in questions (turn ranking:
test_turnrank.py)."""

from __future__ import annotations

from memoryd.textproc import DateRef, date_match, dates, match_query, segment, terms


def test_han_bigrams_beside_words():
    assert segment("我们讨论数据库 migration").split() == [
        "我们",
        "们讨",
        "讨论",
        "论数",
        "数据",
        "据库",
        "migration",
    ]
    assert segment("库") == " 库 " and segment("plain text") == "plain text"
    assert "数据" in terms("数据库迁移?") and "the" not in terms("the cache")
    assert match_query("?!*") is None
    assert match_query('say "hi"') == '"say" OR "hi"'


def test_kana_and_hangul_are_bigrammed_and_part_from_latin_words():
    """Japanese writes no spaces and Korean glues particles to its words: unbigrammed, the
    run このリポジトリではpnpmを was one token, and 저장소 never matched 저장소에서는."""
    ja = segment("このリポジトリではpnpmを使う").split()
    assert "pnpm" in ja and {"リポ", "ポジ", "ジト", "トリ"} <= set(ja)
    assert set(terms("リポジトリ")) <= set(ja)  # the query's terms are all in the text
    ko = segment("이 저장소에서는 pnpm을 써").split()
    assert "pnpm" in ko and set(terms("저장소")) == {"저장", "장소"} <= set(ko)
    assert segment("・").strip() == "・"  # the middle dot parts words, it is none
    assert match_query("차") == '"차"*'  # one syllable: a prefix of the bigrams it starts


def test_dates_people_write():
    assert dates("What did Caroline do on October 13, 2023?") == [DateRef(2023, 10, 13)]
    assert dates("2023年5月8日的会议") == [DateRef(2023, 5, 8)]
    assert dates("the 2024-02 release") == [DateRef(2024, 2, None)]
    assert dates("in May we shipped") == [DateRef(None, 5, None)]
    assert dates("you may want to retry") == []
    assert date_match([DateRef(2023, 5, None)], "2023-05-08T10:00:00Z") == 1.0
    assert date_match([DateRef(2023, 5, 9)], "2023-05-08T10:00:00Z") == 2 / 3
    assert date_match([DateRef(2022, 5, None)], "2023-05-08T10:00:00Z") == 0.0


def test_a_decomposed_query_finds_composed_text():
    import unicodedata

    text = "저장소에서는 データベースの設定"
    assert segment(unicodedata.normalize("NFD", text)) == segment(text)
    assert terms(unicodedata.normalize("NFD", "저장소")) == terms("저장소") == ["저장", "장소"]
