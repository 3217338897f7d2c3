"""memoryd.fusion: the pure part of hybrid ranking (the product's path is tested through the
CLI in tests/core/test_hybrid_search.py)."""

from __future__ import annotations

import pytest

from memoryd import fusion


def test_minmax_maps_each_query_onto_zero_to_one() -> None:
    assert fusion.minmax({"a": 12.0, "b": 7.0, "c": 2.0}) == {"a": 1.0, "b": 0.5, "c": 0.0}
    assert fusion.minmax({"only": 3.2}) == {"only": 1.0}
    assert fusion.minmax({}) == {}


def test_fuse_weights_dense_over_keyword_and_gives_unmatched_keyword_zero() -> None:
    keyword = {"kw-top": 9.0, "both": 5.0, "kw-low": 1.0}
    dense = {"both": 0.6, "dense-only": 0.5, "kw-top": 0.1}
    fused = fusion.fuse(keyword, dense)
    assert fused["kw-top"] == pytest.approx(0.3 * 1.0 + 0.7 * 0.0)
    assert fused["both"] == pytest.approx(0.3 * 0.5 + 0.7 * 1.0)
    assert fused["dense-only"] == pytest.approx(0.7 * 0.8)  # keyword part 0: not matched
    assert fused["kw-low"] == pytest.approx(0.0)  # lowest keyword, no vector in the pool
    assert max(fused, key=fused.__getitem__) == "both"


def test_a_candidate_in_another_script_is_not_held_back_by_its_missing_keyword_match() -> None:
    """A Chinese question cannot share a token with an English memory: its keyword part is
    its dense part, while a Chinese memory that keyword search could have matched and did
    not keeps 0. Without `blind` the Chinese memory sharing one word wins."""
    keyword = {"zh-shares-a-word": 4.0, "zh-other": 1.0}
    dense = {"en-the-answer": 0.30, "zh-shares-a-word": 0.22, "zh-unmatched": 0.26, "zh-other": 0.10}
    plain = fusion.fuse(keyword, dense)
    assert max(plain, key=plain.__getitem__) == "zh-shares-a-word"
    fused = fusion.fuse(keyword, dense, blind={"en-the-answer", "zh-other"})
    assert fused["en-the-answer"] == pytest.approx(1.0)  # best cosine: both parts 1
    assert fused["zh-unmatched"] == pytest.approx(0.7 * 0.8)  # same script, no match: 0
    assert fused["zh-other"] == pytest.approx(0.3 * 0.0)  # keyword part max(0, 0): unchanged
    assert fused["zh-shares-a-word"] == plain["zh-shares-a-word"]
    assert max(fused, key=fused.__getitem__) == "en-the-answer"
    # a matched keyword part above the dense part is kept, never lowered
    assert fusion.fuse({"a": 5.0, "b": 1.0}, {"a": 0.1, "b": 0.3}, blind={"a"})["a"] == pytest.approx(0.3)
    # keyword search matched nothing: it has no say, and the order is the dense order
    alone = fusion.fuse({}, dense, blind={"en-the-answer", "zh-other"})
    assert alone == pytest.approx({k: 0.7 * v for k, v in fusion.minmax(dense).items()})


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Use PostgreSQL 16 for the ledger service", "latin"),
        ("账本服务最后定了用哪个数据库？", "han"),
        ("手机 App 发新版本要走哪些步骤？", "han"),  # one English word among Chinese ones
        ("我们用 PostgreSQL 和 Redis", "han"),
        ("Deploy with kubectl 部署", "latin"),
        ("Как настроить базу данных", "cyrillic"),
        ("データベースの設定", "kana"),
        ("テストは本物のデータベースで実行する", "kana"),  # Japanese: kana among Han
        ("东京の酒店预订确认", "han"),  # one kana among Chinese: still Chinese
        ("일본 비자 신청 절차", "hangul"),
        ("ERR_PNPM_PEER_DEP 1.4.2", "latin"),
        ("1234 #!?", None),
        ("", None),
    ],
)
def test_script_is_the_writing_system_most_of_a_text_is_in(text: str, expected: str | None) -> None:
    assert fusion.script(text) == expected


def test_other_language_picks_the_candidates_keyword_search_cannot_judge() -> None:
    titles = {
        "en": "Background jobs go through Redis streams",
        "zh": "数据库连接池大小",
        "none": "42",
        "de": "Wir verwenden PostgreSQL für die Auftragswarteschlange",
        "ko": "일본 비자 신청 절차",
        "ja": "テストは本物のデータベースで実行する",
        "short": "Deploy checklist",  # Latin script, no function word: could be any
    }
    assert fusion.other_language("后台任务的队列是用什么做的？", titles) == {"en", "de", "ko", "ja", "short"}
    assert fusion.other_language("what is the connection pool size?", titles) == {"zh", "de", "ko", "ja"}
    assert fusion.other_language("Welche Datenbank nutzt die Warteschlange?", titles) == {"zh", "ko", "ja"}
    assert fusion.other_language("비자는 어떻게 신청해?", titles) == {"en", "zh", "de", "ja", "short"}
    assert fusion.other_language("Redis streams", titles) == {"zh", "ko", "ja"}  # unknown Latin: no Latin one
    assert fusion.other_language("???", titles) == set()  # a query of no script judges nothing


@pytest.mark.parametrize(
    ("one", "other", "expected"),
    [
        ("en", "de", True),
        ("en", "en", False),
        ("latin", "de", False),  # a Latin text of unknown language could be German
        ("de", "latin", False),
        ("latin", "han", True),
        ("han", "kana", True),
        ("latin", "latin", False),
        (None, "en", False),
    ],
)
def test_apart_is_symmetric_and_never_guesses_within_the_latin_script(
    one: str | None, other: str | None, expected: bool
) -> None:
    assert fusion.apart(one, other) is expected
    assert fusion.apart(other, one) is expected


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("why does pnpm fail with ERR_PNPM_PEER_DEP again?", ["ERR_PNPM_PEER_DEP"]),
        ("what did we do about JIRA-1234 and #1234", ["JIRA-1234", "#1234"]),
        ("upgrade to v18.2 or 1.4.2-rc1", ["v18.2", "1.4.2-rc1"]),
        ("edit vite.config.ts and src/app.py", ["vite.config.ts", "src/app.py"]),
        ("rustc E0382 and TS2345 in useEffect", ["E0382", "TS2345", "useEffect"]),
        ("为什么又出现ERR_PNPM_PEER_DEP", ["ERR_PNPM_PEER_DEP"]),
        ("what did we decide about the database, e.g. postgres?", []),
        ("数据库用的是哪个", []),
    ],
)
def test_identifiers_are_the_tokens_no_plain_word_looks_like(query: str, expected: list[str]) -> None:
    assert fusion.identifiers(query) == expected


def test_verbatim_counts_whole_tokens_only() -> None:
    assert fusion.verbatim(["ERR_PNPM_PEER_DEP"], "pnpm said ERR_PNPM_PEER_DEP.") == 1
    assert fusion.verbatim(["ERR_PNPM_PEER_DEP"], "pnpm said err_pnpm_peer_dep") == 1  # case aside
    assert fusion.verbatim(["ERR_PNPM_PEER_DEP"], "ERR_PNPM_PEER_DEPS is another code") == 0
    assert fusion.verbatim(["#12"], "see #123") == 0
    assert fusion.verbatim(["1.2"], "released 1.2.3") == 0
    assert fusion.verbatim(["app.py", "#12"], "src/app.py, see #12") == 2
    assert fusion.verbatim(["JIRA-1234"], "工单JIRA-1234已关闭") == 1


def test_order_puts_exact_matches_first_then_score_times_factor() -> None:
    scores = {"close": 0.9, "exact": 0.2, "session": 0.8, "long-term": 0.7}
    factors = {"session": 1.0, "long-term": 1.25, "close": 1.25}
    ranked = fusion.order(scores, factors=factors, exact={"exact": 1})
    assert [k for k, _ in ranked] == ["exact", "close", "long-term", "session"]
    assert dict(ranked)["long-term"] == pytest.approx(0.875)
    # the exact match's score says so, for callers that merge result lists by score
    assert dict(ranked)["exact"] > max(s for k, s in ranked if k != "exact")
    two = fusion.order({"one": 1.0, "two": 0.0}, factors={"one": 1.25}, exact={"one": 1, "two": 2})
    assert [k for k, _ in two] == ["two", "one"]
    # without identifiers, ties keep the order given
    assert [k for k, _ in fusion.order({"a": 0.5, "b": 0.5})] == ["a", "b"]


def test_a_title_too_short_to_tell_is_judged_with_its_body_and_only_then() -> None:
    titles = {
        "es": "Pasar la ITV del Ibiza",  # "la", "del": Spanish or Italian, not told apart
        "en": "Deploy checklist",
        "de": "Wir verwenden PostgreSQL für die Warteschlange",  # told by the title
    }
    bodies = {
        "es": "Hay que pedir cita en la estación y llevar el permiso de circulación.",
        "en": "Run the migrations first, then roll the pods one at a time.",
    }
    asked: list[list[str]] = []

    def read(keys: list[str]) -> dict[str, str]:
        asked.append(sorted(keys))
        return {k: bodies[k] for k in keys}

    assert fusion.other_language("when is the car inspection due?", titles) == {
        "de"
    }  # no bodies: unsure stays
    assert fusion.other_language("when is the car inspection due?", titles, read) == {"de", "es"}
    assert asked == [["en", "es"]]  # one read, of the undecided titles only
    assert fusion.other_language("数据库是哪个？", titles, read) == set(titles)  # the script tells
    assert asked == [["en", "es"]]  # a script apart needs no body
