"""Text a capture or a record can bring, shaped to make a careless pattern take quadratic
time, goes through every text step of the proposal path in bounded time.

Found by the red team: 64 KB of "Always use pnpm. " took 30 s in sentences.split, 64 KB
of Han characters 18 s in the rules' identifier pattern, and 8 KB of spaces 100 s in the
graph's replacement patterns. The bound below is generous (a slow machine passes); the
bugs it guards against took 10 to 100 times longer.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from memoryd import keyterms, sentences, titles
from memoryd.kg import extract
from memoryd.llm import rules

N = 65536  # the body limit
BOUND_S = 8.0
INPUTS = {
    "one sentence again and again": "Always use pnpm. " * (N // 17),
    "dots and spaces": ". " * (N // 2),
    "a Han run": "数据库" * (N // 3),
    "one Latin word": "a" * N,
    "hex": "deadbeef" * (N // 8),
    "a rule never closed": "记住" + "啊" * (N - 3) + "：",
    "inline code": "`x` " * (N // 4),
    "abbreviations": "e.g. " * (N // 5),
    "list markers": "1. " * (N // 3),
    "spaces": " " * N + "x",
    "short lines": "a.\n" * (N // 3),
    "lead-ins": "Remember: " * (N // 10),
    "Chinese full stops": "。" * N,
    "names and versions": "Fly.io v1.2.3 billing.py 2.5 ERR_PNPM_PEER_DEP 不要在工作时间跑迁移。" * (N // 60),
}
STEPS: dict[str, Callable[[str], object]] = {
    "sentences.split": sentences.split,
    "titles.make": titles.make,
    "keyterms.keywords": lambda t: keyterms.keywords(t, 8),
    "rules.score": lambda t: rules.score("x", t, user_turns=[t]),
    "extract.by_rules": lambda t: extract.by_rules("x", t, memory_type="decision"),
}


@pytest.mark.parametrize("shape", sorted(INPUTS))
def test_every_text_step_is_bounded_on_hostile_text(shape: str):
    text = INPUTS[shape]
    slow = {}
    for name, step in STEPS.items():
        start = time.perf_counter()
        step(text)
        took = time.perf_counter() - start
        if took > BOUND_S:
            slow[name] = round(took, 1)
    assert not slow, f"{shape}: {slow} seconds (bound {BOUND_S} s)"


FOREIGN = {
    "a German sentence again and again": "Wir nehmen ab jetzt immer Gitea statt GitLab. " * (N // 46),
    "a Cyrillic run": "пенициллин" * (N // 10),
    "a kana run": "セッション" * (N // 5),
    "a hangul run": "배포는금요일" * (N // 6),
    "one long French line": "Nous avons décidé de garder le déploiement du vendredi. " * (N // 56),
    "French short lines": "Oui, nous le faisons avec la CI.\n" * (N // 33),
}


@pytest.fixture(scope="module")
def embedder() -> object:
    from memoryd.embed.use import UseEmbedder

    model = UseEmbedder()
    model.embed_documents(["warm"])  # the model's load is not the step's
    return model


@pytest.mark.parametrize("shape", sorted(FOREIGN) + sorted(INPUTS))
def test_the_learned_keyword_choice_is_bounded_on_hostile_text(shape: str, embedder: object):
    """memoryd.llm.kwclf embeds a text's terms and lines: in a language it is used for, a
    text at the body limit costs what its caps allow, and it answers or steps aside. Found
    with it: a kana or hangul run with no space was one keyword of 65,535 characters."""
    from memoryd.llm import kwclf

    text = FOREIGN.get(shape) or INPUTS[shape]
    start = time.perf_counter()
    got = kwclf.choose(text, 8, embedder=embedder)  # type: ignore[arg-type]
    took = time.perf_counter() - start
    assert got is None or (isinstance(got, list) and len(got) <= 8)
    if shape in FOREIGN:
        assert got is not None, shape  # what the test is about: the chooser ran
        assert all(len(w) <= 64 for w in got), got
    assert took <= BOUND_S, f"{shape}: {took:.1f} s (bound {BOUND_S} s)"
