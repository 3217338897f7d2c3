"""memoryd.overlap: the dense half of a hybrid search runs on its own thread, and its
caller gets its value or its exception as if it had called it."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from memoryd import overlap


def test_the_value_comes_back_from_another_thread() -> None:
    seen: list[threading.Thread] = []

    def work() -> int:
        seen.append(threading.current_thread())
        return 42

    assert overlap.start(work).result() == 42
    assert seen and seen[0] is not threading.current_thread()


def test_the_caller_waits_for_a_job_still_running() -> None:
    go = threading.Event()
    job = overlap.start(lambda: go.wait(5) and "done")
    go.set()
    assert job.result() == "done"


def test_what_the_job_raised_is_raised_by_result() -> None:
    def broken() -> None:
        raise LookupError("no key")

    job = overlap.start(broken)
    with pytest.raises(LookupError, match="no key"):
        job.result()


def test_a_hybrid_search_scans_the_vectors_beside_the_keyword_lookup(
    monkeypatch: pytest.MonkeyPatch, project: Path, tmp_path: Path, isolated_home: Path
) -> None:
    """The vectors are scanned on another thread than the keyword lookup, and the results
    are those of the same search run on one thread."""
    from memoryd import embed, search
    from memoryd.app import Memoryd

    embed._loaded.clear()
    (tmp_path / "config.toml").write_text(
        '[search]\nembedding_model = "tests.core.store.embedders:v1"\n', encoding="utf-8"
    )
    app = Memoryd()
    for i in range(6):
        app.record("fact", f"Postgres note {i}", f"Body {i}: postgres connection pools.", scope_path=project)
    threads: dict[str, threading.Thread] = {}
    similar, keyword = type(app.store.vectors).similar, type(app.store).search

    def spy_similar(self: Any, *a: Any, **k: Any) -> Any:
        threads["dense"] = threading.current_thread()
        return similar(self, *a, **k)

    def spy_search(self: Any, *a: Any, **k: Any) -> Any:
        threads["keyword"] = threading.current_thread()
        return keyword(self, *a, **k)

    monkeypatch.setattr(type(app.store.vectors), "similar", spy_similar)
    monkeypatch.setattr(type(app.store), "search", spy_search)
    got = app.search("postgres pools", scopes=None, count_recall=False, mode="hybrid")
    assert len(got) == 6 and threads["dense"] is not threads["keyword"]

    class Inline:
        def __init__(self, fn: Any) -> None:
            self.value = fn()

        def result(self) -> Any:
            return self.value

    monkeypatch.setattr(search.overlap, "start", Inline)
    assert app.search("postgres pools", scopes=None, count_recall=False, mode="hybrid") == got
    assert threads["dense"] is threads["keyword"] is threading.current_thread()
