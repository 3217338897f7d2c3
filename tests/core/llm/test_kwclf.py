"""The learned keyword chooser (memoryd.llm.kwclf): in a language other than English and
Chinese it chooses among the ranked terms by what they mean to the text; in English and
Chinese, and without the embedder it was trained with, the ranking's own cut decides."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import numpy as np
import pytest

from memoryd import embed, keyterms
from memoryd.llm import kwclf, rules
from tests.core.llm.test_typeclf import PlugIn

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
    """The rarity a store with no memory yet gives: nothing seen, every term rarest."""
    return {}


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
    monkeypatch.setattr(kwclf, "_model", None)
    monkeypatch.setattr(kwclf, "_failed", True)


@pytest.mark.parametrize("text", [EN, ZH])
def test_in_english_and_chinese_the_ranking_decides(
    default: embed.Embedder, text: str, monkeypatch: pytest.MonkeyPatch
):
    assert kwclf.choose(text, 8, embedder=default, rarity=new_store) is None
    learned = rules.score(text[:79], "", user_turns=[text], rarity=new_store, embedder=default)
    without_weights(monkeypatch)
    cut = rules.score(text[:79], "", user_turns=[text], rarity=new_store, embedder=default)
    assert learned.triggers == cut.triggers and "Vercel" in cut.triggers


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
        assert all(p[i] >= kwclf.THRESHOLD for i in at[kwclf.KEEP_AT_LEAST :])


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
    for text in ("", "   ", "¿y qué?", "ok."):
        got = kwclf.choose(text, 8, embedder=default, rarity=new_store)
        assert got in (None, []), (text, got)
    assert kwclf.choose(PT, 0, embedder=default, rarity=new_store) is None


@pytest.mark.slow  # about 25 s: the dev sets through capture and analysis, and the fits
def test_the_committed_weights_match_a_fresh_fit():
    """What keyterms ranks and the analysis reads feeds the weights: a change needs a re-fit."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "core"), str(ROOT)])}
    out = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "train_kwclf.py"), "--check"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert out.returncode == 0, out.stdout + out.stderr
