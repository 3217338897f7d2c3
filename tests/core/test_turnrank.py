"""Level-2 ranking by what a turn carries: neighbours, session, speaker, time, cosine."""

from __future__ import annotations

from memoryd import turnrank
from memoryd.store import TurnHit


def _hit(slug: str, seq: int, score: float, text: str = "t", ts: str | None = None) -> TurnHit:
    return TurnHit(slug, seq, "user", ts, None, text, score)


def _fillers(n: int = 5) -> list[TurnHit]:
    """Weak matches, as a real pool has many: min-max scales against them."""
    return [_hit(f"f{i}", 1, -1.0) for i in range(n)]


def _order(hits: list[TurnHit]) -> list[tuple[str, int]]:
    return [(h.slug, h.seq) for h in hits]


def test_speaker_named_in_the_query_ranks_their_turn_first():
    pool = [
        _hit("a", 1, -5.0, "John: we took the kids to the museum"),
        _hit("b", 1, -5.0, "Melanie: we took the kids to the museum"),
    ]
    ranked = turnrank.rank("What has Melanie done with her kids?", pool)
    assert _order(ranked)[0] == ("b", 1)
    assert turnrank.speaker("Melanie: hi") == "Melanie"
    assert turnrank.speaker("no speaker here: at all") is None


def test_a_when_question_lifts_the_turn_that_says_when():
    pool = [
        _hit("a", 1, -5.0, "Caroline: the support group was moving"),
        _hit("b", 1, -5.0, "Caroline: I went to the support group yesterday"),
    ]
    assert _order(turnrank.rank("When did Caroline go to the support group?", pool))[0] == ("b", 1)
    # the same pool, asked what rather than when: no lift, so keyword order stands
    assert _order(turnrank.rank("What did Caroline think of the support group?", pool))[0] == ("a", 1)
    assert turnrank.asks_when("她什么时候去的?") and turnrank.says_when("我昨天去了")


def test_a_date_in_the_query_lifts_turns_of_that_date():
    pool = [
        _hit("a", 1, -5.2, "x", "2023-01-02T00:00:00Z"),
        _hit("b", 1, -5.0, "x", "2023-05-08T00:00:00Z"),
        *_fillers(),
    ]
    assert _order(turnrank.rank("what happened", pool))[0] == ("a", 1)
    assert _order(turnrank.rank("what happened in May 2023", pool))[0] == ("b", 1)


def test_level1_session_relevance_and_neighbours_carry_a_turn():
    pool = [_hit("a", 3, -5.0), _hit("b", 3, -5.2), _hit("b", 4, -4.0), *_fillers()]
    # without context the best bm25 turn wins; a session that matches as a whole wins it back
    assert _order(turnrank.rank("q", pool))[0] == ("b", 3)
    assert _order(turnrank.rank("q", pool, sessions={"a": 9.0, "b": 1.0}))[0] == ("a", 3)


def test_cosines_bring_in_a_turn_keyword_search_missed():
    pool = [_hit("a", 1, -5.0), _hit("b", 7, -2.0), *_fillers()]
    extra = [_hit("c", 2, 0.0, "Nate: I made a dairy-free chocolate cake")]
    cos = {("a", 1): 0.05, ("b", 7): 0.05, ("c", 2): 0.9, ("c", 1): 0.6, ("c", 3): 0.5}
    ranked = turnrank.rank("favourite desserts", pool, extra=extra, cosines=cos, limit=2)
    assert _order(ranked) == [("a", 1), ("c", 2)]
    assert ("c", 2) not in _order(turnrank.rank("favourite desserts", pool, extra=extra, limit=2))
    assert all(h.score <= 0 for h in ranked)  # lower is better, as bm25
