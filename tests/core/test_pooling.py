"""Level-1 pooling (memoryd.pooling): a memory's windows make one score. What a user sees:
a memory about the question throughout ranks above one that mentions it once, and a long
memory about something else still does not answer a question about nothing stored."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from memoryd import pooling

Cli = Callable[..., Any]
T = pooling.TEMPERATURE


def test_one_window_scores_its_cosine_and_each_close_window_adds_a_little() -> None:
    assert pooling.pooled_one([0.42]) == (np.float32(0.42), np.float32(0.42))
    soft, best = pooling.pooled_one([0.5, 0.5])
    assert best == np.float32(0.5) and math.isclose(soft, 0.5 + T * math.log(2), rel_tol=1e-5)
    soft_far, _ = pooling.pooled_one([0.5, 0.1])  # a window far below adds next to nothing
    assert 0.5 < soft_far < 0.5 + 0.001


def test_the_bonus_is_bounded_by_the_number_of_windows() -> None:
    soft, best = pooling.pooled_one([0.3] * 64)
    assert math.isclose(soft - best, T * math.log(64), rel_tol=1e-4)


def test_groups_are_pooled_apart_and_a_filtered_group_stays_out() -> None:
    scores = np.array([0.6, 0.58, 0.57, 0.62, 0.1, 0.1, -np.inf, -np.inf], dtype=np.float32)
    soft, best = pooling.pooled(scores, np.array([0, 3, 6]))
    assert best.tolist() == [np.float32(0.6), np.float32(0.62), -np.inf]
    assert soft[0] > soft[1]  # three close windows beat one slightly better window
    assert soft[2] == -np.inf
    empty = pooling.pooled(np.zeros(0, dtype=np.float32), np.zeros(0, dtype=np.int64))
    assert [len(x) for x in empty] == [0, 0]


# A long memory about one thing: many windows, none close to the question below, but
# together they pooled above the floor (0.171 against 0.16 when this test was written;
# best window 0.086).
GARDEN = " ".join(
    [
        "Tomatoes want six hours of sun and deep watering twice a week; mulch keeps the soil moist.",
        "Prune the roses in late winter, just above an outward-facing bud, and feed them in spring.",
        "Compost needs greens and browns in about equal parts; turn the heap every couple of weeks.",
        "Basil bolts in the heat: pinch the flower heads off and harvest from the top.",
        "Slugs come out after rain; beer traps and copper tape keep them off the lettuce.",
        "Plant garlic cloves in October, pointed end up, a hand's width apart.",
    ]
    * 6
)
PASSPORT = "我的护照什么时候过期？"  # when does my passport expire?


def test_a_long_memory_on_another_subject_does_not_answer_a_question_about_nothing_stored(
    cli: Cli, project: Path, isolated_home: Path
) -> None:
    out = cli("record", "--type", "fact", "--title", "Garden notes", "--body", GARDEN, "--json", cwd=project)
    assert out.returncode == 0, out.stderr
    slug = json.loads(out.stdout)["slug"]
    for mode in ("dense", "hybrid"):
        got = cli("search", PASSPORT, "--mode", mode, "--json", cwd=project)
        assert got.returncode == 0, got.stderr
        assert json.loads(got.stdout) == [], (mode, got.stdout)
    # the memory is searchable: a question about it finds it
    got = cli("search", "when should I plant garlic?", "--mode", "dense", "--json", cwd=project)
    assert [r["slug"] for r in json.loads(got.stdout)] == [slug]


def test_long_memories_under_the_floor_do_not_crowd_out_a_short_one_over_it(
    project: Path, tmp_path: Path, isolated_home: Path
) -> None:
    """Forty long memories whose windows all sit just under the floor pool above a short
    memory over it (0.12 + T log 39 > 0.22). They used to fill the dense candidates, be
    dropped by the floor after, and leave nothing: the short memory must still be found.
    (In hybrid mode its score is 0 on the min-max scale the long memories set: fusing only
    memories at the floor lowered the bilingual set's same-language top-1, so it was not kept.)"""
    from memoryd import embed
    from memoryd.app import Memoryd

    embed._loaded.clear()
    (tmp_path / "config.toml").write_text(
        '[search]\nembedding_model = "tests.core.store.embedders:crowd"\n', encoding="utf-8"
    )
    app = Memoryd()
    short = app.record("fact", "Short note", "zqshort a memo worded otherwise", scope_path=project)[0]
    filler = " ".join(f"zqlong filler {{i}}.{k} lorem ipsum dolor sit amet" for k in range(250))
    for i in range(40):
        app.record("fact", f"Long {i}", filler.replace("{i}", str(i)), scope_path=project)
    assert app.store.embed_vectors(embed.load(app.config, None)) > 1500  # as the worker would
    for mode in ("dense", "hybrid"):
        got = app.search(
            "what is the answer to my question", scopes=None, mode=mode, limit=10, count_recall=False
        )
        assert [r.slug for r in got] == [short.meta.slug], mode
        assert got[0].score > 0 or mode == "hybrid", mode
