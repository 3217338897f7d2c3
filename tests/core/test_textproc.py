"""Query text processing: terms, bigrams, dates named in questions, and turn re-ranking."""

from __future__ import annotations

from memoryd.search import rerank_turns
from memoryd.store import TurnHit
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


def test_dates_people_write():
    assert dates("What did Caroline do on October 13, 2023?") == [DateRef(2023, 10, 13)]
    assert dates("2023年5月8日的会议") == [DateRef(2023, 5, 8)]
    assert dates("the 2024-02 release") == [DateRef(2024, 2, None)]
    assert dates("in May we shipped") == [DateRef(None, 5, None)]
    assert dates("you may want to retry") == []
    assert date_match([DateRef(2023, 5, None)], "2023-05-08T10:00:00Z") == 1.0
    assert date_match([DateRef(2023, 5, 9)], "2023-05-08T10:00:00Z") == 2 / 3
    assert date_match([DateRef(2022, 5, None)], "2023-05-08T10:00:00Z") == 0.0


def _hit(slug: str, seq: int, score: float, ts: str | None = None) -> TurnHit:
    return TurnHit(slug, seq, "user", ts, None, "t", score)


def test_rerank_lifts_a_turn_beside_a_strong_match_and_a_named_date():
    pool = [_hit("a", 5, -10.0), _hit("b", 1, -6.0), _hit("a", 6, -5.5)]
    order = [(h.slug, h.seq) for h in rerank_turns(pool)]
    assert order[0] == ("a", 5) and order[1] == ("a", 6)  # the answer next to the match
    dated = [_hit("x", 1, -5.0, "2023-01-02T00:00:00Z"), _hit("y", 1, -4.0, "2023-05-08T00:00:00Z")]
    assert rerank_turns(dated, [DateRef(2023, 5, 8)])[0].slug == "y"
