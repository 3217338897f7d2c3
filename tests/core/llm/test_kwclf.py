"""The learned keyword chooser (memoryd.llm.kwclf): in a language other than English and
Chinese it chooses among the ranked terms by what they mean to the text; in English and
Chinese, and without the embedder it was trained with, the ranking's own cut decides."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import numpy as np
import pytest

from memoryd import embed, keyterms
from memoryd.llm import kwclf, rules
from tests.core.llm.test_typeclf import PlugIn, trainer_check

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "tests" / "data" / "proposals"
# A decision in Portuguese: the ranking's cut keeps "lá" (there) and "rápido" (fast) too.
PT = (
    "Ok, decidimos: a partir de agora o deploy do site vai para a Vercel e não mais para o "
    "Netlify, porque o build do Next.js lá fica mais rápido. Pode atualizar o README com isso?"
)
# A warning in Japanese: the cut keeps 全部 (all of them).
JA = (
    "気をつけて：本番のRedisで FLUSHALL は絶対に実行しないこと。"
    "去年これでセッションが全部消えて、ユーザーが全員ログアウトされた。"
)
EN = "We decided to move the site's deploys from Netlify to Vercel, since Next.js builds faster there."
ZH = "我们决定以后把网站部署从 Netlify 换到 Vercel，因为 Next.js 在那边构建更快。"


def new_store(terms: Sequence[str]) -> Mapping[str, float]:
    """The rarity a store with no memory yet gives (memoryd.store.terms.idf(0, 0)): 1.0."""
    return dict.fromkeys(terms, 1.0)


def busy_store(terms: Sequence[str]) -> Mapping[str, float]:
    """A store that has seen some of the terms in many memories, some in few, some never."""
    return {t: 1.0 + (sum(map(ord, t)) % 5) / 2 for t in terms if sum(map(ord, t)) % 3}


@pytest.fixture(autouse=True)
def no_real_waits() -> Iterator[None]:
    """This module waits on nothing, but loads a model: tests/core/llm's five-second budget
    per test (conftest.py) is for the provider tests."""
    yield


@pytest.fixture(scope="module")
def default() -> embed.Embedder:
    from memoryd.embed.use import UseEmbedder

    return UseEmbedder()


def test_in_another_language_the_chooser_drops_what_the_cut_keeps_in_passing(default: embed.Embedder):
    cut = keyterms.keywords(PT, 8, rarity=new_store)
    chosen = kwclf.choose(PT, 8, embedder=default, rarity=new_store)
    assert {"lá", "rápido"} <= set(cut)  # what the test is about: the cut keeps them
    assert chosen is not None and not {"lá", "rápido"} & set(chosen), chosen
    assert {"Vercel", "Netlify", "Next.js"} <= set(chosen)
    cut_ja = keyterms.keywords(JA, 8, rarity=new_store)
    chosen_ja = kwclf.choose(JA, 8, embedder=default, rarity=new_store)
    assert "全部" in cut_ja
    assert chosen_ja is not None and "全部" not in chosen_ja and {"Redis", "FLUSHALL"} <= set(chosen_ja)


def without_weights(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kwclf, "model", lambda: None)


@pytest.mark.parametrize(
    "text",
    [
        EN,
        ZH,
        EN + " Thanks to Дмитрий for the tip.",  # a name in another script
        EN + " ありがとう!",
        ZH.replace("那边", "那边の"),
        EN + " Merci beaucoup.",
    ],
)
def test_in_english_and_chinese_the_ranking_decides(
    default: embed.Embedder, text: str, monkeypatch: pytest.MonkeyPatch
):
    assert kwclf.choose(text, 8, embedder=default, rarity=new_store) is None
    learned = rules.score(text[:79], "", user_turns=[text], rarity=new_store, embedder=default)
    without_weights(monkeypatch)
    cut = rules.score(text[:79], "", user_turns=[text], rarity=new_store, embedder=default)
    assert learned.triggers == cut.triggers and "Vercel" in cut.triggers


def test_other_languages_are_told_by_their_main_script_and_words():
    assert kwclf.other_language(PT) and kwclf.other_language(JA)
    korean = "앞으로 배포는 금요일 오후에 하지 않기로 했어요. 주말에 장애가 나면 대응할 사람이 없어요."
    assert kwclf.other_language(korean)
    assert kwclf.other_language(unicodedata.normalize("NFD", korean))  # a macOS file's text
    assert kwclf.other_language("Запомни: у мамы аллергия на пенициллин.")
    assert not kwclf.other_language(EN) and not kwclf.other_language(ZH)
    assert not kwclf.other_language("") and not kwclf.other_language("1234 :)")


def test_the_store_orders_what_is_kept_but_does_not_choose_it(default: embed.Embedder):
    """The chooser was fitted where every term's rarity is the same (each labelled session is
    a project of its own): the store's rarity must not change which terms it keeps, only
    their order, rarest first as the ranking orders."""
    fresh = kwclf.choose(PT, 8, embedder=default, rarity=new_store)
    busy = kwclf.choose(PT, 8, embedder=default, rarity=busy_store)
    assert fresh and busy and set(fresh) == set(busy)
    assert fresh != busy  # what the test is about: the weights reorder them
    weights = busy_store(busy)
    pool = {c.shown: c for c in keyterms.candidates(PT, rarity=busy_store, pool=kwclf.POOL)}
    assert all(pool[w].rarity == weights.get(w, max(weights.values())) for w in busy)


def test_a_long_line_is_not_embedded_whole(default: embed.Embedder):
    seen: list[int] = []

    class Counting:
        name, version, dim = default.name, default.version, default.dim

        def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
            seen.extend(len(t) for t in texts)
            return default.embed_documents(texts)

        def embed_query(self, text: str) -> np.ndarray:
            return default.embed_query(text)

    text = PT + "\n" + " ".join(["Vercel Netlify build deploy README Next.js"] * 4000)
    got = kwclf.choose(text, 8, embedder=Counting(), rarity=new_store)
    assert got and "Vercel" in got
    assert max(seen) <= kwclf.MAX_TEXT_CHARS


def test_the_choice_is_a_subset_of_the_ranked_terms_best_first(default: embed.Embedder):
    pool = keyterms.candidates(PT, rarity=new_store, pool=kwclf.POOL)
    shown = [c.shown for c in pool]
    assert (
        keyterms.keywords(PT, 8, rarity=new_store) == shown[: len(keyterms.keywords(PT, 8, rarity=new_store))]
    )
    model = kwclf.model()
    assert model is not None
    p = model.probabilities(kwclf.features(PT, pool, default))
    assert p.shape == (len(pool),) and np.isfinite(p).all()
    for limit in (1, 2, 3, 8):
        chosen = kwclf.choose(PT, limit, embedder=default, rarity=new_store)
        assert chosen is not None and 1 <= len(chosen) <= limit
        at = [shown.index(w) for w in chosen]
        assert list(p[at]) == sorted(p[at], reverse=True)  # most likely first
        assert all(p[i] >= kwclf.THRESHOLD for i in at[1:])


def test_the_analysis_chooses_the_triggers_of_a_session_in_another_language(
    default: embed.Embedder, monkeypatch: pytest.MonkeyPatch
):
    """A Russian decision to run Loki instead of ELK (tests/data/proposals, set `ml`, which
    the chooser was not trained on): the cut keeps slang for the memory it eats and misses
    the tool chosen."""
    rows = (DATA / "sessions_ml.jsonl").read_text(encoding="utf-8").splitlines()
    case = next(json.loads(r) for r in rows if '"ml-ru-loki-vmesto-elk"' in r)
    users = [t[1] for t in case["turns"] if t[0] == "user"]
    learned = rules.score(users[0][:79], "", user_turns=users, rarity=new_store, embedder=default)
    without_weights(monkeypatch)
    plain = rules.score(users[0][:79], "", user_turns=users, rarity=new_store, embedder=default)
    assert plain.type == learned.type == "decision"  # the same reading: only the choice differs
    assert "Loki" not in plain.triggers, plain.triggers
    assert {"Loki", "ELK", "Elasticsearch"} <= set(learned.triggers), learned.triggers


def test_without_the_trained_embedder_the_cut_decides(default: embed.Embedder):
    assert kwclf.choose(PT, 8, embedder=PlugIn(), rarity=new_store) is None
    cut = rules.score(PT[:79], "", user_turns=[PT], rarity=new_store).triggers
    assert rules.score(PT[:79], "", user_turns=[PT], rarity=new_store, embedder=PlugIn()).triggers == cut


@pytest.mark.parametrize("bad", ["raise", np.nan, np.inf, 1e30])
def test_a_failing_or_nonsense_embedder_leaves_the_choice_to_the_cut(default: embed.Embedder, bad: object):
    """A model that fails on this text, or answers NaN, infinite or huge vectors, must not
    make the triggers empty or random: the ranking's cut answers."""

    class Broken(PlugIn):
        name, version = default.name, default.version

        def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
            if bad == "raise":
                raise RuntimeError("model gone")
            return np.full((len(texts), self.dim), bad, dtype=np.float64)

    assert kwclf.choose(PT, 8, embedder=Broken(), rarity=new_store) is None
    assert kwclf.choose(JA, 8, embedder=Broken(), rarity=new_store) is None
    cut = keyterms.keywords(PT, 8, rarity=new_store, focus=None)
    assert cut  # the cut's answer is what stands
    got = rules.score(PT[:79], "", user_turns=[PT], rarity=new_store, embedder=Broken()).triggers
    assert got == rules.score(PT[:79], "", user_turns=[PT], rarity=new_store).triggers


@pytest.mark.parametrize(
    "damage",
    [
        lambda d: d.update(spec=99),
        lambda d: d.update(features=d["features"][:-1]),
        lambda d: d.update(weights=d["weights"][:-1]),
        lambda d: d.update(scale=[0.0] * len(d["scale"])),
        lambda d: d.pop("bias"),
    ],
)
def test_weights_that_do_not_fit_this_code_are_refused(tmp_path: Path, damage):
    data = json.loads(kwclf.WEIGHTS.read_text(encoding="utf-8"))
    damage(data)
    bad = tmp_path / "kwclf.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises((ValueError, KeyError)):
        kwclf.read(bad)
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError):
        kwclf.read(bad)


def test_the_weights_are_for_the_default_embedder_and_the_dev_sets_only(default: embed.Embedder):
    model = kwclf.model()
    assert model is not None and model.embedder == embed.tag(default)
    data = json.loads(kwclf.WEIGHTS.read_text(encoding="utf-8"))
    assert set(data["trained_on"]) == {"dev", "dev2", "dev3", "dev4", "dev5", "dev6"}
    assert not {"held_out", "dev7", "dev8", "ml", "ml2", "ml3", "ml4"} & set(data["trained_on"])
    assert data["threshold"] == kwclf.THRESHOLD


def test_nothing_to_rank_is_no_keyword(default: embed.Embedder):
    for text in ("", "   ", "ok."):  # no language the chooser runs for
        assert kwclf.choose(text, 8, embedder=default, rarity=new_store) is None, text
    for text in ("¿Y qué? ¿Por qué no? Sí, es que no.", "Ja, aber warum nicht? Ich bin es nicht."):
        assert kwclf.other_language(text)  # it runs, and finds only grammar words
        assert kwclf.choose(text, 8, embedder=default, rarity=new_store) == [], text
    assert kwclf.choose(PT, 0, embedder=default, rarity=new_store) is None


@pytest.mark.slow  # about 25 s: the dev sets through capture and analysis, and the fits
def test_the_committed_weights_match_a_fresh_fit():
    """What keyterms ranks and the analysis reads feeds the weights: a change needs a re-fit."""
    out = trainer_check("train_kwclf.py", timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
