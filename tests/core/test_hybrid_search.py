"""Hybrid search through the real CLI, with the real default model (USE multilingual v3):
a question in one language finds a memory written in the other, an identifier still ranks
its exact match first, `--mode` chooses, and an unavailable model falls back to keywords
with one warning instead of an error."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

Cli = Callable[..., Any]

# Memories written in one language, each with a question in the other that shares no word
# with it (so keyword search cannot find it), and a neighbour on another subject.
ENGLISH = (
    "Deploy target",
    "We deploy the backend to Kubernetes on Google Cloud; staging and production are separate clusters.",
)
CHINESE = ("数据库选择", "我们决定使用 PostgreSQL 作为主数据库，因为它支持 JSONB 和全文检索。")
NEIGHBOURS = (
    ("Code style", "Python code is formatted with ruff; lines stay under 110 characters."),
    ("Release notes", "Every release gets a changelog entry written by hand, not generated."),
)
ASK_ENGLISH_IN_CHINESE = "我们的后端服务部署在哪里？"  # where do we deploy the backend?
ASK_CHINESE_IN_ENGLISH = "Which database did we choose and why?"


def record(cli: Cli, project: Path, title: str, body: str, kind: str = "fact") -> str:
    out = cli("record", "--type", kind, "--title", title, "--body", body, "--json", cwd=project)
    assert out.returncode == 0, out.stderr
    return str(json.loads(out.stdout)["slug"])


def search(cli: Cli, project: Path, query: str, *flags: str) -> tuple[list[str], str]:
    out = cli("search", query, "--json", *flags, cwd=project)
    assert out.returncode == 0, out.stderr
    return [r["slug"] for r in json.loads(out.stdout)], out.stderr


@pytest.fixture
def bilingual(cli: Cli, project: Path, isolated_home: Path) -> dict[str, str]:
    slugs = {"english": record(cli, project, *ENGLISH), "chinese": record(cli, project, *CHINESE)}
    for i, (title, body) in enumerate(NEIGHBOURS):
        slugs[f"other{i}"] = record(cli, project, title, body)
    return slugs


def test_a_question_in_one_language_finds_a_memory_in_the_other(
    cli: Cli, project: Path, bilingual: dict[str, str]
) -> None:
    found, err = search(cli, project, ASK_ENGLISH_IN_CHINESE)
    assert found[:1] == [bilingual["english"]], found
    assert err == ""
    found, _ = search(cli, project, ASK_CHINESE_IN_ENGLISH)
    assert found[:1] == [bilingual["chinese"]], found


def test_keyword_mode_does_not_cross_languages_and_hybrid_does(
    cli: Cli, project: Path, tmp_path: Path, bilingual: dict[str, str]
) -> None:
    keyword, _ = search(cli, project, ASK_ENGLISH_IN_CHINESE, "--mode", "keyword")
    assert bilingual["english"] not in keyword
    hybrid, _ = search(cli, project, ASK_ENGLISH_IN_CHINESE, "--mode", "hybrid")
    assert hybrid[:1] == [bilingual["english"]]
    dense, _ = search(cli, project, ASK_ENGLISH_IN_CHINESE, "--mode", "dense")
    assert dense[:1] == [bilingual["english"]]
    # the configured mode is the default; --mode still overrides it
    (tmp_path / "config.toml").write_text('[search]\nmode = "keyword"\n', encoding="utf-8")
    configured, _ = search(cli, project, ASK_ENGLISH_IN_CHINESE)
    assert bilingual["english"] not in configured
    again, _ = search(cli, project, ASK_ENGLISH_IN_CHINESE, "--mode", "hybrid")
    assert again[:1] == [bilingual["english"]]


@pytest.mark.parametrize(
    ("title", "body"),
    [
        (
            "Wir verwenden PostgreSQL für die Auftragswarteschlange",
            "Die Warteschlange läuft auf PostgreSQL statt Redis, weil Transaktionen wichtig sind.",
        ),
        (
            "Auftragswarteschlange: Datenbank PostgreSQL",  # no function word: the body tells
            "Die Warteschlange läuft auf PostgreSQL statt Redis, weil wir Transaktionen brauchen.",
        ),
    ],
)
def test_an_english_question_finds_a_german_memory_past_english_ones_sharing_a_word(
    cli: Cli, project: Path, isolated_home: Path, title: str, body: str
) -> None:
    """Same script, other language: keyword search cannot match the German memory, yet
    matches English ones on "job"/"queue"; were its missing match read as evidence against
    it (a keyword part of 0), the English memories would outrank the one asked about."""
    german = record(cli, project, title, body, "decision")
    record(
        cli,
        project,
        "Use Redis only for caching",
        "Sessions and page fragments go in Redis; jobs stay elsewhere.",
    )
    record(
        cli, project, "Job queue retries", "A failed job is retried three times with backoff, then parked."
    )
    record(cli, project, "Queue dashboard", "The queue dashboard lives at /admin/queues behind the VPN.")
    found, _ = search(cli, project, "which database does the job queue use?")
    assert found[:1] == [german], found
    found, _ = search(cli, project, "Welche Datenbank nutzt die Warteschlange?", "--mode", "keyword")
    assert found[:1] == [german], found  # in its own language, keyword search finds it


def test_keyword_search_finds_japanese_and_korean_words_and_the_names_glued_to_them(
    cli: Cli, project: Path, isolated_home: Path
) -> None:
    """Japanese writes no spaces and Korean glues particles to its words; keyword search
    (the cold CLI's read path) must still find the word a person types."""
    ja = record(cli, project, "このリポジトリでは必ずpnpmを使う", "npmだとCIのロックファイル検査が落ちます。")
    ko = record(
        cli,
        project,
        "앞으로 이 저장소에서는 pnpm을 써 주세요",
        "npm을 쓰면 CI의 잠금 파일 검사가 실패합니다.",
    )
    record(
        cli, project, "Use npm workspaces in the docs site", "The docs site keeps npm: Docusaurus expects it."
    )
    assert set(search(cli, project, "pnpm", "--mode", "keyword")[0]) == {ja, ko}
    assert search(cli, project, "ロックファイル", "--mode", "keyword")[0] == [ja]
    assert search(cli, project, "저장소", "--mode", "keyword")[0] == [ko]


def test_an_identifier_ranks_its_exact_match_first(cli: Cli, project: Path, isolated_home: Path) -> None:
    """The memories about peer dependency conflicts are closer in meaning to the question;
    the one that holds the error code verbatim still comes first."""
    close = [
        record(
            cli,
            project,
            "Peer dependency conflicts",
            "When installing packages fails because of a peer dependency conflict, align the "
            "versions of the conflicting packages instead of forcing the install.",
        ),
        record(
            cli,
            project,
            "Package install errors",
            "Dependency resolution errors during package installation usually mean two "
            "packages want different versions of the same peer.",
        ),
    ]
    exact = record(
        cli,
        project,
        "CI log from March",
        "The nightly job stopped with ERR_PNPM_PEER_DEP; we pinned the runner image.",
    )
    query = "ERR_PNPM_PEER_DEP peer dependency conflict when installing packages"
    dense, _ = search(cli, project, query, "--mode", "dense")
    assert dense[0] in close  # the premise: by meaning alone another memory wins
    found, _ = search(cli, project, query)
    assert found[0] == exact, found
    assert set(close) <= set(found)
    # a ticket number and a file name work the same way
    ticket = record(cli, project, "Flaky upload", "Tracked as JIRA-4821; retry uploads in vite.config.ts.")
    assert search(cli, project, "what was JIRA-4821 about")[0][0] == ticket
    assert search(cli, project, "who changed vite.config.ts")[0][0] == ticket


def test_an_unavailable_model_falls_back_to_keywords_with_one_warning(
    cli: Cli, project: Path, tmp_path: Path, isolated_home: Path
) -> None:
    plugin = tmp_path / "plugins"
    plugin.mkdir()
    (plugin / "broken_model.py").write_text(
        "def make():\n    raise RuntimeError('weights missing')\n", encoding="utf-8"
    )
    (tmp_path / "config.toml").write_text(
        '[search]\nembedding_model = "broken_model:make"\n', encoding="utf-8"
    )
    env = {"PYTHONPATH": os.pathsep.join([str(plugin), os.environ.get("PYTHONPATH", "")])}
    slug = record(cli, project, *ENGLISH)
    out = cli("search", "Kubernetes clusters", "--json", cwd=project, env=env)
    assert out.returncode == 0, out.stderr
    assert [r["slug"] for r in json.loads(out.stdout)] == [slug]
    lines = out.stderr.splitlines()
    assert len(lines) == 1 and "broken_model:make" in lines[0] and "keyword" in lines[0], lines
    assert "Traceback" not in out.stderr
    out = cli("traces", "Kubernetes clusters", "--json", cwd=project, env=env)
    assert out.returncode == 0 and len(out.stderr.splitlines()) == 1, out.stderr
    # --mode keyword never loads the model, so it has nothing to warn about
    out = cli("search", "Kubernetes clusters", "--mode", "keyword", cwd=project, env=env)
    assert out.returncode == 0 and out.stderr == "", out.stderr


@pytest.mark.parametrize("command", ["search", "traces"])
def test_a_bad_mode_is_a_one_line_usage_error(
    cli: Cli, project: Path, isolated_home: Path, command: str
) -> None:
    out = cli(command, "anything", "--mode", "fuzzy", cwd=project)
    assert out.returncode == 2
    assert len(out.stderr.splitlines()) == 1 and "--mode" in out.stderr and "hybrid" in out.stderr
    assert "Traceback" not in out.stderr


def test_a_bad_configured_mode_is_a_one_line_error(
    cli: Cli, project: Path, tmp_path: Path, isolated_home: Path
) -> None:
    (tmp_path / "config.toml").write_text('[search]\nmode = "semantic"\n', encoding="utf-8")
    out = cli("search", "anything", cwd=project)
    assert out.returncode != 0
    assert len(out.stderr.splitlines()) == 1, out.stderr
    assert "[search] mode" in out.stderr and "'semantic'" in out.stderr


def test_a_model_that_fails_at_query_time_falls_back_to_keywords_with_one_warning(
    cli: Cli, project: Path, tmp_path: Path, isolated_home: Path
) -> None:
    from memoryd import embed
    from memoryd.app import Memoryd

    embed._loaded.clear()
    (tmp_path / "config.toml").write_text(
        '[search]\nembedding_model = "tests.core.store.embedders:fails_after_load"\n', encoding="utf-8"
    )
    app = Memoryd()
    warnings: list[str] = []
    app.warn = warnings.append
    slug = app.record("fact", *ENGLISH, scope_path=project)[0].meta.slug
    for mode in ("hybrid", "dense"):
        found = app.search("Kubernetes clusters", scopes=None, mode=mode)
        assert [r.slug for r in found] == [slug], mode
        app.traces("Kubernetes clusters", scopes=None, mode=mode)  # no turns here: it must not raise
    assert len(warnings) == 1 and "keyword" in warnings[0], warnings
    fresh = Memoryd()  # traces first: the model fails there too
    fresh.warn = warnings.append
    fresh.traces("Kubernetes clusters", scopes=None, mode="hybrid")
    assert len(warnings) == 2, warnings
    out = cli("reindex", cwd=project)
    assert out.returncode == 0, out.stderr
    assert "internal error" not in out.stderr + out.stdout and "Traceback" not in out.stderr


def test_a_huge_query_is_answered_in_seconds(project: Path, isolated_home: Path) -> None:
    """Only the head of a query is embedded (search.QUERY_CHARS): a 1 MB query took 20-30 s."""
    import time

    from memoryd.app import Memoryd

    app = Memoryd()
    slug = app.record("fact", *ENGLISH, scope_path=project)[0].meta.slug
    app.search("warm the model up", scopes=None, mode="hybrid")
    query = "Where do we deploy the backend Kubernetes " + "lorem ipsum dolor sit amet " * 40_000
    assert len(query) > 1_000_000
    start = time.monotonic()
    found = app.search(query, scopes=None, mode="hybrid")
    assert time.monotonic() - start < 5
    assert [r.slug for r in found][:1] == [slug]


def test_a_version_ranks_its_exact_match_first(project: Path, isolated_home: Path) -> None:
    """A version has no search terms (terms("1.4.2") == []): it is still found verbatim, and
    counted on every candidate, not only on what an identifier search returned."""
    from memoryd.app import Memoryd

    app = Memoryd()
    broke = app.record(
        "fact",
        "Android SDK regression",
        "Release 1.4.2 of the SDK broke login on Android.",
        scope_path=project,
    )[0].meta.slug
    app.record(
        "fact",
        "Android SDK fix",
        "release 1.4.3 fixed the Android login crash in the SDK.",
        scope_path=project,
    )
    for query in ("SDK release 1.4.2 Android login", "1.4.2"):
        found = app.search(query, scopes=None, mode="hybrid")
        assert [r.slug for r in found][:1] == [broke], (query, found)


def test_a_version_finds_its_exact_match_through_the_cli_read_path(cli: Cli, project: Path) -> None:
    """The same through cold `memoryd search` processes: the first search after a cold record
    takes the full path (it embeds the new memories), the next one the stdlib read path."""
    broke = record(cli, project, "Android SDK regression", "Release 1.4.2 of the SDK broke login on Android.")
    record(cli, project, "Android SDK fix", "release 1.4.3 fixed the Android login crash in the SDK.")
    for _ in range(2):
        slugs, _err = search(cli, project, "1.4.2")
        assert slugs[:1] == [broke]
