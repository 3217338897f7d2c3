"""The rules provider's learned session type (memoryd.llm.typeclf): it answers only with the
embedder its weights were trained with, types a session the cue words miss, and the
analysis hands it the store's embedder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from memoryd import embed
from memoryd.llm import rules, typeclf

ROOT = Path(__file__).resolve().parents[3]
# A plain fact with no cue word in it: the cues read nothing worth keeping.
PLAIN_FACT = "The staging cluster runs in eu-west-2 and its nodes are m6i.large."
ROUTINE = "fix the typo in the README please"


@pytest.fixture(autouse=True)
def no_real_waits() -> Iterator[None]:
    """This module waits on nothing, but loads a model and fits weights: tests/core/llm's
    five-second budget per test (conftest.py) is for the provider tests."""
    yield


@pytest.fixture(scope="module")
def default() -> embed.Embedder:
    from memoryd.embed.use import UseEmbedder

    return UseEmbedder()


class PlugIn:
    """A plug-in model (`[search] embedding_model = "module:factory"`) of the default's size."""

    name = "plug-in"
    version = "1"
    dim = 512

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        out = np.ones((len(texts), self.dim), dtype=np.float32)
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]


def test_without_the_trained_embedder_the_cues_decide():
    assert typeclf.classify([PLAIN_FACT], None) is None
    assert typeclf.classify([PLAIN_FACT], PlugIn()) is None
    cues_only = rules.score(PLAIN_FACT, "", user_turns=[PLAIN_FACT])
    assert rules.score(PLAIN_FACT, "", user_turns=[PLAIN_FACT], embedder=PlugIn()) == cues_only
    assert cues_only.type == "none"


def test_a_failing_embedder_leaves_the_type_to_the_cues(default: embed.Embedder):
    class Broken(PlugIn):
        name, version = default.name, default.version

        def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
            raise RuntimeError("model gone")

    assert typeclf.classify([PLAIN_FACT], Broken()) is None
    assert rules.score(PLAIN_FACT, "", user_turns=[PLAIN_FACT], embedder=Broken()).type == "none"


@pytest.mark.parametrize("bad", [np.nan, np.inf, 1e30])
def test_an_embedder_returning_nonsense_leaves_the_type_to_the_cues(default: embed.Embedder, bad: float):
    """Red team: all-NaN scores made argmax answer "decision" for every session."""

    class Nonsense(PlugIn):
        name, version = default.name, default.version

        def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
            return np.full((len(texts), self.dim), bad, dtype=np.float64)

    assert typeclf.classify([PLAIN_FACT], Nonsense()) is None
    assert rules.score(PLAIN_FACT, "", user_turns=[PLAIN_FACT], embedder=Nonsense()).type == "none"


def test_the_weights_are_for_the_default_embedder(default: embed.Embedder):
    model = typeclf.model()
    assert model is not None
    assert default.name == embed.DEFAULT_MODEL
    assert model.embedder == embed.tag(default)
    data = json.loads(typeclf.WEIGHTS.read_text(encoding="utf-8"))
    assert set(data["trained_on"]) == {"dev", "dev2", "dev3", "dev4", "dev5", "dev6"}
    blind = {"held_out", "dev7", "dev8", "ml2", "ml3", "ml4"}
    assert not blind & set(data["trained_on"])  # the blind sets stay blind


def test_a_plain_fact_is_typed_by_the_classifier(default: embed.Embedder):
    out = rules.score(PLAIN_FACT, "", user_turns=[PLAIN_FACT], embedder=default)
    assert out.type == "fact"
    assert out.title.startswith("The staging cluster runs in eu-west-2")
    assert (out.D, out.A) == (0.75, 0.85)  # scored as a fact, not capped as a session
    label, p = typeclf.classify([PLAIN_FACT], default) or ("", 0.0)
    assert label == "fact" and p > 0.5
    chinese = "测试服务器在杭州机房，内网地址是 10.2.3.4，账号找运维要。"
    assert rules.score(chinese, "", user_turns=[chinese], embedder=default).type == "fact"


def test_a_routine_request_stays_a_session_below_the_threshold(default: embed.Embedder):
    out = rules.score(ROUTINE, "", user_turns=[ROUTINE], embedder=default)
    assert out.type == "none"
    assert (out.D + out.U + out.R + out.A) / 4 < 0.6


def test_a_type_word_read_in_another_sense_is_overruled_when_the_classifier_is_sure(
    default: embed.Embedder,
):
    """ "always" here tells a family's schedule, not a wish about how things are done: the
    cues alone read a preference, the classifier is sure (p >= typeclf.SURE) of a fact."""
    said = "The kids' school starts at 8:15 and we always leave by 7:50; Mia has swimming on Tuesdays."
    assert rules.score(said[:79], "", user_turns=[said]).type == "preference"
    assert typeclf.explicit(typeclf.read_cues([said]))
    assert rules.score(said[:79], "", user_turns=[said], embedder=default).type == "fact"
    label, p = typeclf.classify([said], default) or ("", 0.0)
    assert label == "fact" and p >= typeclf.SURE


def test_where_the_learned_type_decides_the_title_names_the_subject(default: embed.Embedder):
    """No sentence states a decision in its words, so the title was the first prompt (the
    Jenkins trouble); it is now the sentence naming most of the session's keywords."""
    turns = [
        "our jenkins builds take 25 minutes and the agents keep running out of disk",
        "options are github actions, gitlab ci or buildkite. buildkite with our own agents, "
        "the per-seat price works for us",
    ]
    out = rules.score(turns[0][:79], "", user_turns=turns, embedder=default)
    assert out.type == "decision"
    assert out.title.casefold().startswith("buildkite with our own agents"), out.title
    assert out.triggers[0] == "buildkite"


@pytest.mark.parametrize(
    ("said", "stated"),
    [
        ("we decided to use Postgres for the job queue", "decision"),
        ("Remember: always run ruff format before committing here. This is important.", "preference"),
        ("以后一律用中文写 commit message", "preference"),
        ("never push directly to main in this repo", "preference"),
    ],
)
def test_a_rule_stated_outright_is_never_overruled_as_nothing_worth_keeping(
    default: embed.Embedder, said: str, stated: str
):
    """Trained on conversations, the classifier is sure that such one-line rules are
    nothing worth keeping (p 0.8-0.95); the user said to keep them, in the issue's words."""
    assert (typeclf.classify([said], default) or ("",))[0] != "session"
    assert rules.score(said[:79], "", user_turns=[said], embedder=default).type == stated


@pytest.mark.parametrize(
    "said",
    [
        "Remember: in this repo always use pnpm, never npm. This is important for the lockfile.",
        "always use pnpm in this repo",
        "以后一律用 pnpm，别用 npm，否则 lockfile 会乱",
    ],
)
def test_the_types_own_words_win_where_the_classifier_is_not_sure(default: embed.Embedder, said: str):
    """Issue 21's example ("always use pnpm in this repo" was typed a warning): the words
    state a preference and the classifier is below typeclf.SURE for anything else."""
    assert rules.score(said[:79], "", user_turns=[said], embedder=default).type == "preference"


@pytest.mark.parametrize(
    "fix",
    [
        "The invoice export crashes with a KeyError when the list is empty, please fix it. "
        "This is important: billing depends on the CSV export and it must work.",
        "帮我修一下 InvoiceExport 的报错：空列表时会崩溃。这个很重要，必须修好。",
    ],
)
def test_a_bug_fix_the_cues_read_nothing_in_stays_a_session(default: embed.Embedder, fix: str):
    """Issue 21's example: a bug-fix session was proposed as a warning. The classifier alone
    reads "it must work" as one (p 0.57); a routine fix is the cues' to judge."""
    out = rules.score(fix[:79], "", user_turns=[fix], embedder=default)
    assert out.type == "none", out.reasoning
    assert typeclf.classify([fix], default) is None


@pytest.mark.parametrize(
    "turns",
    [
        [
            "my daughter always forgets her lunch on mondays, lol. anyway can you suggest a pasta recipe?",
            "thanks! that worked, dinner was great",
        ],
        [
            "I never know what to cook on weeknights. what's a quick dinner with chicken and rice?",
            "perfect, thanks, we had it tonight",
        ],
        ["我决定不了今晚看什么电影，想看点轻松的，别太长", "第二个好，就用这个"],
    ],
)
def test_in_a_conversation_a_type_word_said_in_passing_yields_to_a_sure_classifier(
    default: embed.Embedder, turns: list[str]
):
    """ "always", "never" and 决定 said in passing: the cues alone read a type in its own
    words, the classifier is sure there is nothing to keep, and over two turns it decides."""
    read = typeclf.read_cues(turns)
    assert typeclf.explicit(read) and not typeclf.gated(turns)
    assert rules.score(turns[0][:79], "", user_turns=turns).type != "none"
    label, p = typeclf.classify(turns, default, reading=read) or ("", 0.0)
    assert label == "session" and p >= typeclf.SURE
    assert rules.score(turns[0][:79], "", user_turns=turns, embedder=default).type == "none"


FIX = "checkout crashes with a NullPointerException when the cart is empty, pls fix"


@pytest.mark.parametrize(
    "marked",
    [
        "fixed, thanks. note for the future: the payment service must never be called with an empty cart",
        "fixed, thanks. Warning: the payment service must never be called with an empty cart, it costs a fee",
        "修好了，谢谢。记住：支付服务绝对不能用空购物车调用，会扣手续费",
    ],
)
def test_a_sentence_marked_to_keep_is_never_overruled_as_nothing_worth_keeping(
    default: embed.Embedder, marked: str
):
    """A label or a request to keep it ("note for the future", 记住) is the user saying the
    sentence is worth keeping: the classifier, sure a bug fix is nothing to keep, does not
    overrule it there, though it does where the same rule is said unmarked."""
    turns = [FIX, marked]
    assert typeclf.marked(typeclf.read_cues(turns))
    assert rules.score(FIX, "", user_turns=turns, embedder=default).type == "warning"
    unmarked = [FIX, "fixed, thanks. the payment service must never be called with an empty cart"]
    assert not typeclf.marked(typeclf.read_cues(unmarked))
    assert (typeclf.classify(unmarked, default) or ("",))[0] == "session"


def test_a_bug_fix_over_two_turns_is_not_made_a_warning(default: embed.Embedder):
    """Issue 21's example split into two turns: the classifier is sure of a warning (p
    0.83), which a problem report reads like; a routine fix yields to no warning."""
    turns = [
        "The invoice export crashes with a KeyError when the list is empty, please fix it.",
        "This is important: billing depends on the CSV export and it must work.",
    ]
    read = typeclf.read_cues(turns)
    assert typeclf.routine_fix(read) and not typeclf.gated(turns)
    assert typeclf.classify(turns, default, reading=read) is None
    assert rules.score(turns[0], "", user_turns=turns, embedder=default).type == "none"


def test_the_gates_hold_where_the_person_said_something_in_one_turn_only():
    assert typeclf.gated(["always use pnpm in this repo"])
    assert typeclf.gated(["always use pnpm in this repo", "   ", ""])  # empty turns say nothing
    # an acknowledgement, or what the harness wrote as a user message, says nothing more
    for after in ("thanks", "ok, great!", "Thank you so much 🙏", "好的谢谢", "嗯嗯", "👍"):
        assert typeclf.gated(["always use pnpm in this repo", after]), after
    assert typeclf.gated(["always use pnpm in this repo", "[Request interrupted by user]"])
    assert typeclf.gated(["<environment_context>cwd</environment_context>", "always use pnpm here"])
    for after in ("ok do it", "thanks! also add a .npmrc", "第二个好，就用这个", "ok caddy it is"):
        assert not typeclf.gated(["always use pnpm in this repo", after]), after


@pytest.mark.parametrize(
    "said",
    [
        "we decided to use Postgres for the job queue",
        "always use pnpm in this repo",
        "以后一律用中文写 commit message",
        "never push directly to main in this repo",
    ],
)
@pytest.mark.parametrize("after", ["thanks", "[Request interrupted by user]", "好的谢谢"])
def test_a_rule_followed_only_by_thanks_is_still_one_turn(default: embed.Embedder, said: str, after: str):
    """A one-line rule, then "thanks" (or an interrupted request): what the person said is
    the one line, where the classifier, sure it is nothing to keep, never overrules it."""
    turns = [said, after]
    assert (typeclf.classify(turns, default) or ("",))[0] != "session"
    assert rules.score(said[:79], "", user_turns=turns, embedder=default).type != "none"


RULE = "always use pnpm in this repo"
MORE = "also add a .npmrc with engine-strict set"
FIXING = "the invoice export crashes with a KeyError, please fix it"
WEAK = "my sister lives in Leeds, near the station"  # a fact, at less than the type's own words


@pytest.mark.parametrize(
    ("turns", "sure_of", "p", "expected"),
    [
        # the type's own words: one turn, "nothing" never overrules; a conversation, it does
        ([RULE], "session", 0.9, None),
        ([RULE, MORE], "session", 0.9, "session"),
        ([f"note for the future: {RULE}", MORE], "session", 0.9, None),  # marked to keep
        ([RULE, MORE], "fact", 0.6, None),  # not SURE
        ([RULE, MORE], "fact", 0.9, "fact"),
        # a routine fix: one turn, the cues'; a conversation, a SURE type but a warning
        ([FIXING], "fact", 0.95, None),
        ([FIXING, "it still crashes on the refunds page"], "fact", 0.95, "fact"),
        ([FIXING, "it still crashes on the refunds page"], "warning", 0.95, None),
        ([FIXING, "it still crashes on the refunds page"], "fact", 0.6, None),
        # a type the cues read weakly: below CONFIDENT the cues decide in one turn only
        ([WEAK], "decision", 0.4, None),
        ([WEAK, "can you suggest a gift for her birthday next week"], "decision", 0.4, "decision"),
    ],
)
def test_the_gates_as_the_classifier_is_sure(
    default: embed.Embedder,
    monkeypatch: pytest.MonkeyPatch,
    turns: list[str],
    sure_of: str,
    p: float,
    expected: str | None,
):
    """Weights that answer `p` for `sure_of` whatever the text (the rest spread evenly),
    to hold each gate of typeclf.classify to its rule."""
    from memoryd.embed import tag

    d = typeclf.N_CUE + 3 * default.dim
    rest = (1.0 - p) / (len(typeclf.CLASSES) - 1)
    probs = np.array([p if c == sure_of else rest for c in typeclf.CLASSES])
    fixed = typeclf.Model(
        tag(default), typeclf.CLASSES, np.zeros(d), np.ones(d), np.zeros((d, len(probs))), np.log(probs)
    )
    monkeypatch.setattr(typeclf, "_model", fixed)
    got = typeclf.classify(turns, default)
    assert (got[0] if got else None) == expected, got


def test_the_analysis_types_a_captured_session_with_the_store_embedder(
    cli, project: Path, tmp_path: Path, isolated_home: Path
):
    from memoryd.app import Memoryd
    from tests.core.governance.sessions import capture

    slug = capture(cli, project, tmp_path, "clf-1", [(PLAIN_FACT, "Noted.")])
    app = Memoryd()
    result = app.analyze_session(slug)
    assert result.status == "scored" and result.by == rules.NAME
    assert result.promotion == "queued", result
    (row,) = app.promotions(status="pending")
    assert row["proposed_type"] == "fact"
    assert app.embedder() is embed.load(app.config)  # the one copy the store searches with


def trainer_check(script: str, *, timeout: int) -> subprocess.CompletedProcess[str]:
    """bench/`script` --check, as a developer runs it: are the committed weights a fresh fit?"""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "core"), str(ROOT)])}
    return subprocess.run(
        [sys.executable, str(ROOT / "bench" / script), "--check"],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )


@pytest.mark.slow  # about 20 s: features of 251 sessions and the nested fits
def test_the_committed_weights_match_a_fresh_fit():
    """The cue features feed the weights: a change to memoryd.llm.cues needs a re-fit."""
    out = trainer_check("train_typeclf.py", timeout=240)
    assert out.returncode == 0, out.stdout + out.stderr
