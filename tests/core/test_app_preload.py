"""A long-lived process (the MCP server, the tray) loads the search model and the memories'
vectors as it starts (issue 20: warm search stays fast): its first hybrid search must not
pay seconds for a large store's matrix. Tried: a store with vectors, keyword mode
configured, a model that fails to load, a search racing the preload."""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

import pytest

from memoryd import embed
from memoryd.app import Memoryd
from memoryd.scope import resolve

MEMORIES = (
    ("Deploy target", "We deploy the backend to Kubernetes on Google Cloud."),
    ("数据库选择", "我们决定使用 PostgreSQL 作为主数据库。"),
    ("Code style", "Python code is formatted with ruff."),
)


def _store_with_vectors(project: Path) -> None:
    writer = Memoryd()
    model = writer.embedder()  # warm, so record embeds inline
    assert model is not None
    for title, body in MEMORIES:
        writer.record("fact", title, body, scope_path=project)
    assert writer.store.vectors.missing(embed.tag(model)) == 0  # record embedded them inline


def test_preload_loads_the_model_and_the_memory_vectors_before_any_search(
    project: Path, isolated_home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    _store_with_vectors(project)
    app = Memoryd(warm=True)  # a fresh process's facade: nothing loaded yet
    assert not app.store.vectors.loaded(app.store.vectors.default_model() or "", 1)
    with caplog.at_level(logging.INFO, logger="memoryd.app"):
        thread = app.preload()
        thread.join(timeout=120)
    assert not thread.is_alive()
    keywords = app.store.keywords
    assert keywords is not None and keywords.built() is not None  # the postings too
    model = app.embedder()
    assert model is not None
    assert app.store.vectors.loaded(embed.tag(model), 1)
    ready = [r.getMessage() for r in caplog.records if r.getMessage().startswith("search ready")]
    assert ready == [
        f"search ready: {embed.tag(model)}, {len(MEMORIES)} memory vectors, keyword postings, loaded in "
        + ready[0].rsplit(" in ", 1)[1]
    ]
    # and the search it prepared for answers across languages from those vectors
    (hit, *_) = app.search("我们的后端部署在哪里？", scopes=[resolve(project).hash], count_recall=False)
    assert hit.title == "Deploy target"


def test_a_search_racing_the_preload_waits_for_it_rather_than_failing(
    project: Path, isolated_home: Path
) -> None:
    _store_with_vectors(project)
    app = Memoryd(warm=True)
    thread = app.preload()
    found: list[str] = []

    def ask() -> None:
        found.extend(
            r.title for r in app.search("Which database did we choose?", scopes=None, count_recall=False)
        )

    searchers = [threading.Thread(target=ask) for _ in range(3)]
    for t in searchers:
        t.start()
    for t in [thread, *searchers]:
        t.join(timeout=120)
    assert found.count("数据库选择") == 3 and found[0] == "数据库选择"


def test_keyword_mode_never_loads_the_model_but_builds_the_keyword_postings(
    project: Path, isolated_home: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    _store_with_vectors(project)
    (tmp_path / "config.toml").write_text('[search]\nmode = "keyword"\n', encoding="utf-8")
    app = Memoryd(warm=True)
    with caplog.at_level(logging.INFO, logger="memoryd.app"):
        app.preload().join(timeout=120)
    assert not app._embedder_loaded  # a keyword-only user never pays for the model
    keywords = app.store.keywords
    assert keywords is not None and keywords.built() is not None
    assert any(r.getMessage().startswith("search ready: keyword postings, loaded in") for r in caplog.records)


def test_preload_runs_once_per_facade(project: Path, isolated_home: Path) -> None:
    app = Memoryd(warm=True)
    first = app.preload()
    assert app.preload() is first
    first.join(timeout=120)
    assert app.preload() is first


def test_a_model_that_fails_to_load_warns_once_and_search_falls_back(
    project: Path, isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _store_with_vectors(project)
    plugin = tmp_path / "plugins"
    plugin.mkdir()
    (plugin / "broken_model.py").write_text(
        "def make():\n    raise RuntimeError('weights missing')\n", encoding="utf-8"
    )
    monkeypatch.syspath_prepend(str(plugin))
    (tmp_path / "config.toml").write_text(
        '[search]\nembedding_model = "broken_model:make"\n', encoding="utf-8"
    )
    app = Memoryd(warm=True)
    warnings: list[str] = []
    app.warn = warnings.append
    app.preload().join(timeout=60)
    (hit,) = app.search("Kubernetes", scopes=[resolve(project).hash], count_recall=False)
    assert hit.title == "Deploy target"
    assert len(warnings) == 1 and "broken_model:make" in warnings[0], warnings


def test_racing_searches_load_the_model_and_open_the_store_once(
    project: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The preload's thread and the tray's worker threads all ask a fresh facade for its
    store and its model at once: each is made once (a second Store.open would leak a
    connection, a second model load hundreds of MB)."""
    from memoryd import app as app_module

    _store_with_vectors(project)
    opened: list[int] = []
    loaded: list[int] = []
    real_open, real_load = app_module.Store.open, embed.load

    def slow_open(layout):  # type: ignore[no-untyped-def]
        opened.append(1)
        time.sleep(0.3)  # widen the window in which a second opener would get in
        return real_open(layout)

    def slow_load(config, warn=None):  # type: ignore[no-untyped-def]
        loaded.append(1)
        time.sleep(0.3)
        return real_load(config, warn)

    monkeypatch.setattr(app_module.Store, "open", staticmethod(slow_open))
    monkeypatch.setattr(embed, "load", slow_load)
    app = Memoryd(warm=True)
    start = threading.Barrier(4)
    found: list[str] = []

    def ask() -> None:
        start.wait()
        found.extend(
            r.title for r in app.search("Which database did we choose?", scopes=None, count_recall=False)
        )

    def preload() -> None:
        start.wait()
        app.preload().join(timeout=120)

    threads = [threading.Thread(target=preload), *(threading.Thread(target=ask) for _ in range(3))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert (len(opened), len(loaded)) == (1, 1)
    assert found.count("数据库选择") == 3
