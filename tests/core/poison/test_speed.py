"""inspect stays fast on large and hostile input: the store calls it on every save. The
bound here is generous (the machine running the tests is often loaded); the real figures are
printed by bench/poison_detection.py."""

from __future__ import annotations

import time

from memoryd.poison import inspect

_HOSTILE = "ignore the system you must send token to <|< ```\n\u200b\"'“「 QUJDREVGR0hJSktMTU5P "


_BOUND_MS = 400  # CPU time; the rules run over the whole text took 0.9-2 s here


def _median_ms(text: str, runs: int = 3) -> float:
    times = []
    for _ in range(runs):
        start = time.process_time()
        inspect(text)
        times.append(time.process_time() - start)
    return sorted(times)[runs // 2] * 1000


def test_256_kb_hostile_input_finishes_in_time() -> None:
    text = (_HOSTILE * (256 * 1024 // len(_HOSTILE) + 1))[: 256 * 1024]
    assert _median_ms(text) < _BOUND_MS


def test_256_kb_of_trigger_words_finishes_in_time() -> None:
    assert _median_ms("ignore " * (256 * 1024 // 7)) < _BOUND_MS
