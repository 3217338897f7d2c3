"""DURA analysis end to end: sessions captured through the real CLI, scored through the real
provider clients (the anthropic SDK, the OpenAI-compatible and Ollama HTTP paths) against
recorded responses served by httpx.MockTransport. Whatever the provider answers, a session
ends scored or cleanly deferred, never lost, and every token spent is written down."""

from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anthropic
import httpx
import pytest
from sqlalchemy import text

from memoryd.app import Memoryd
from memoryd.config import Config, GovernanceConfig, LLMConfig
from memoryd.db.engine import read_session, write_session
from memoryd.governance import spend
from memoryd.governance.analyze import MAX_ATTEMPTS, Analysis, Analyzer
from memoryd.llm import render, tokens
from memoryd.llm.base import Usage
from memoryd.llm.http_providers import OllamaProvider, OpenAIProvider
from memoryd.store import analysis_digest, analysis_fingerprint, fingerprint
from memoryd.testing import claude_exchange, stop_payload, write_jsonl
from tests.core.llm.replay import RECORDED, Recorded, Replay, recorded

KEY = "sk-test-SECRET-0123456789"

# What the recorded good answers ("ok.json", the same for every provider) propose.
GOOD = {
    "D": 0.85,
    "U": 0.8,
    "R": 0.9,
    "A": 0.95,
    "type": "decision",
    "title": "memoryd stores memories as Markdown files, SQLite only as an index",
    "body": (
        "For memoryd the Markdown files under the data directory are the source of truth; the SQLite "
        "database is only a rebuildable search index. Any change to a memory is written to its file "
        "first, then re-indexed."
    ),
    "triggers": ["memoryd", "markdown", "sqlite", "index", "source of truth"],
    "reasoning": "The user explicitly decided the storage design and it will shape later work on the store.",
}
GOOD_SCORES = {"D": 0.85, "U": 0.8, "R": 0.9, "A": 0.95}
GOOD_MEAN = 0.875


@dataclass(frozen=True)
class LLMApi:
    name: str
    model: str
    key_env: str | None
    path: str  # where the request goes
    usage: Usage  # what the recorded answers report
    price: tuple[float, float]  # USD per million tokens, (input, output)

    @property
    def by(self) -> str:
        return f"{self.name}:{self.model}"

    def config(self, **llm: Any) -> Config:
        return Config(llm=LLMConfig(provider=self.name, model=self.model, **{"max_retries": 2, **llm}))

    def env(self) -> dict[str, str]:
        return {self.key_env: KEY} if self.key_env else {}  # Ollama needs no key

    def cost(self, usage: Usage) -> float:
        return (usage.input_tokens * self.price[0] + usage.output_tokens * self.price[1]) / 1_000_000

    def messages(self, request: httpx.Request) -> tuple[str, str]:
        """(system, user) as this API's request carries them."""
        body = json.loads(request.content)
        if self.name == "anthropic":
            assert [m["role"] for m in body["messages"]] == ["user"]
            return body["system"], body["messages"][0]["content"]
        assert [m["role"] for m in body["messages"]] == ["system", "user"]
        return body["messages"][0]["content"], body["messages"][1]["content"]


LLM_APIS = [
    LLMApi(
        "anthropic", "claude-haiku-4-5", "ANTHROPIC_API_KEY", "/v1/messages", Usage(1087, 164), (1.0, 5.0)
    ),
    LLMApi("openai", "gpt-4o-mini", "OPENAI_API_KEY", "/v1/chat/completions", Usage(1043, 158), (0.15, 0.6)),
    LLMApi("ollama", "llama3.2", None, "/api/chat", Usage(1021, 171), (0.0, 0.0)),
]
MALFORMED_USAGE = {"anthropic": Usage(1087, 360), "openai": Usage(1043, 360), "ollama": Usage(1021, 360)}


def llm_answer(api: str, **fields: Any) -> Recorded:
    """The recorded good answer of `api` with the model's JSON changed by `fields`."""
    data = json.loads((RECORDED / api / "ok.json").read_text(encoding="utf-8"))
    body = data["body"]
    answer = json.dumps({**GOOD, "supersedes": [], **fields})
    if api == "anthropic":
        body["content"][0]["text"] = answer
    elif api == "openai":
        body["choices"][0]["message"]["content"] = answer
    else:
        body["message"]["content"] = answer
    return Recorded(data["status"], data["headers"], json.dumps(body).encode())


# -- fixtures -----------------------------------------------------------------------------
@dataclass
class LLMWaits:
    slept: list[float] = field(default_factory=list)  # time.sleep: the anthropic SDK's retry waits
    backoffs: list[float] = field(default_factory=list)  # the HTTP providers' retry waits


@pytest.fixture(autouse=True)
def llm_waits(monkeypatch: pytest.MonkeyPatch) -> Iterator[LLMWaits]:
    """No test really waits. The factory builds the HTTP providers with their default
    sleep (bound to time.sleep when the module was imported), so that default is swapped;
    the SDK calls time.sleep, which is recorded and cut to a blink."""
    waits = LLMWaits()
    real = time.sleep

    def sleep(seconds: float) -> None:
        # Only the SDK's waits: subprocess.run(timeout=...) (git, during capture) polls too.
        if sys._getframe(1).f_globals.get("__name__", "").startswith("anthropic"):
            waits.slept.append(seconds)
        real(min(seconds, 0.01))

    monkeypatch.setattr(time, "sleep", sleep)
    for cls in (OpenAIProvider, OllamaProvider):
        monkeypatch.setitem(cls.__init__.__kwdefaults__, "sleep", waits.backoffs.append)
    # Timeouts carry no retry-after: shrink the SDK's exponential base.
    monkeypatch.setattr(anthropic._base_client, "INITIAL_RETRY_DELAY", 0.001)
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    yield waits
    assert sum(waits.slept) < 0.25, f"real waits requested: {waits.slept}"


@pytest.fixture(params=LLM_APIS, ids=lambda a: a.name)
def llm_api(request: pytest.FixtureRequest) -> LLMApi:
    return request.param


@pytest.fixture
def llm_app() -> Memoryd:
    return Memoryd()


DEFAULT_EXCHANGES = [
    claude_exchange(
        "Remember this, it is important: we decided that Markdown files are the source of truth "
        "for memoryd and SQLite is only a rebuildable index.",
        "Agreed. Every change is written to the Markdown file first, then re-indexed.",
        tool="Bash",
        tool_input={"command": "pytest tests/core/store -q"},
        tool_output="41 passed",
    ),
    claude_exchange(
        "Add a reindex test for that",
        "Added test_reindex_rebuilds_from_files in tests/core/store/test_reindex.py; it passes.",
    ),
]


@pytest.fixture
def llm_capture(cli, project: Path, tmp_path: Path, llm_app: Memoryd) -> Callable[..., str]:
    """Capture a Claude Code session the way the Stop hook does (no worker: the spool is
    drained here, so nothing analyses it behind the test's back); returns its slug."""
    count = 0

    def capture(exchanges: list[list[dict[str, Any]]] | None = None) -> str:
        nonlocal count
        count += 1
        sid = f"5e55{count:04d}-aaaa-4bbb-8ccc-0123456789ab"
        lines = []
        for ex in exchanges or DEFAULT_EXCHANGES:
            for line in ex:
                lines.append({**line, "sessionId": sid, "cwd": str(project)})
        transcript = write_jsonl(tmp_path / f"{sid}.jsonl", lines)
        res = cli(
            "capture",
            "--source=claude-code",
            stdin=stop_payload(sid, transcript, project),
            cwd=project,
            env={"MEMORYD_NO_WORKER": "1"},
        )
        assert res.returncode == 0, res.stderr
        report = llm_app.drain_spool(wait=True)
        assert len(report.captured) == 1 and not report.rejected, report
        slug = llm_app.store.slug_for_session("claude-code", sid)
        assert slug is not None
        return slug

    return capture


# -- helpers ------------------------------------------------------------------------------
def analyzer(app: Memoryd, api: LLMApi, replay: Replay, **llm: Any) -> Analyzer:
    return Analyzer(app.store, api.config(**llm), env=api.env(), transport=replay.transport)


def query(app: Memoryd, sql: str, **params: Any) -> list[dict[str, Any]]:
    with read_session(app.store.engine) as s:
        return [dict(r._mapping) for r in s.exec(text(sql), params=params)]


def usage_rows(app: Memoryd) -> list[dict[str, Any]]:
    return query(
        app,
        "SELECT provider, model, task, input_tokens, output_tokens, cost_usd, outcome, day "
        "FROM llm_usage ORDER BY id",
    )


def failure_rows(app: Memoryd, slug: str) -> list[dict[str, Any]]:
    return query(app, "SELECT attempts, last_error FROM analysis_failures WHERE slug = :slug", slug=slug)


def promotions_of(app: Memoryd, slug: str) -> list[dict[str, Any]]:
    return [p for p in app.promotions() if p["source_session_slug"] == slug]


def events(app: Memoryd, event_type: str) -> list[Any]:
    return app.audit_events(event_type=event_type)


def session_file(app: Memoryd, slug: str) -> bytes:
    return app.store.read(slug)[1].read_bytes()


def due(app: Memoryd) -> list[str]:
    rows = query(
        app,
        "SELECT slug FROM memories WHERE type = 'session' "
        "AND (analyzed_fingerprint IS NULL OR analyzed_fingerprint != fingerprint)",
    )
    return [r["slug"] for r in rows]


def mark_sensitive(app: Memoryd, slug: str) -> None:
    with write_session(app.store.engine) as s:
        s.exec(text("UPDATE memories SET scope_sensitive = 1 WHERE slug = :slug"), params={"slug": slug})


def assert_untouched(app: Memoryd, slug: str, before: bytes) -> None:
    """A deferred session: same file, no score in the index, still due for analysis."""
    assert session_file(app, slug) == before
    row = app.store.row(slug)
    assert row["dura_mean"] is None and row["analyzed_fingerprint"] is None
    assert slug in due(app)
    assert promotions_of(app, slug) == []


def assert_scored_by(app: Memoryd, slug: str, result: Analysis, by: str) -> None:
    assert result.status == "scored", result
    assert result.by == by
    doc, _ = app.store.read(slug)
    assert doc.meta.extras["analysis"]["by"] == by
    assert analysis_fingerprint(doc.meta.extras) == analysis_digest(doc.body)
    assert doc.meta.dura_score == result.scores
    row = app.store.row(slug)
    assert row["dura_mean"] == pytest.approx(result.mean)
    assert row["analyzed_fingerprint"] == fingerprint(doc.body)
    assert slug not in due(app)
    assert failure_rows(app, slug) == []


# -- a good answer ------------------------------------------------------------------------
def test_good_answer_scores_the_session_and_queues_a_promotion(
    llm_api: LLMApi, llm_app: Memoryd, llm_capture: Callable[..., str], cli
) -> None:
    slug = llm_capture()
    replay = Replay(recorded(llm_api.name, "ok"))
    az = analyzer(llm_app, llm_api, replay)

    result = az.session(slug)

    # one request, to the right endpoint, for the configured model, with the key
    assert len(replay.requests) == 1
    request = replay.requests[0]
    assert request.url.path == llm_api.path
    assert json.loads(request.content)["model"] == llm_api.model
    if llm_api.name == "anthropic":
        # the SDK sends the key as x-api-key (or as a bearer token in newer versions)
        assert KEY in (request.headers.get("x-api-key"), request.headers.get("authorization", "")[7:])
    elif llm_api.name == "openai":
        assert request.headers["authorization"] == f"Bearer {KEY}"
    else:
        assert "authorization" not in request.headers

    assert_scored_by(llm_app, slug, result, llm_api.by)
    assert result.scores == GOOD_SCORES and result.mean == pytest.approx(GOOD_MEAN)
    assert result.tokens == llm_api.usage.total
    doc, path = llm_app.store.read(slug)
    assert doc.meta.extras["analysis"]["prompt"] == "dura.v1"
    raw = path.read_text(encoding="utf-8")
    assert "dura_score:" in raw and analysis_digest(doc.body) in raw  # in the file itself, not only the index
    assert llm_app.store.row(slug)["dura_mean"] == pytest.approx(GOOD_MEAN)

    # the promotion, as proposed; the unknown slug the model said it supersedes is dropped
    (promo,) = promotions_of(llm_app, slug)
    assert result.promotion == "queued" and result.promotion_id == promo["id"]
    assert promo["status"] == "pending"
    assert promo["proposed_type"] == "decision"
    assert promo["proposed_title"] == GOOD["title"]
    assert promo["proposed_body"] == GOOD["body"]
    assert promo["proposed_triggers"] == GOOD["triggers"]
    assert promo["reasoning"] == GOOD["reasoning"]
    assert promo["dura_score"] == GOOD_SCORES
    assert promo["proposed_supersedes"] == []
    assert promo["scope_hash"] == doc.meta.scope_hash

    # spend: the recorded token counts, priced
    (usage,) = usage_rows(llm_app)
    assert (usage["provider"], usage["model"], usage["task"], usage["outcome"]) == (
        llm_api.name,
        llm_api.model,
        "dura",
        "ok",
    )
    assert (usage["input_tokens"], usage["output_tokens"]) == (
        llm_api.usage.input_tokens,
        llm_api.usage.output_tokens,
    )
    assert usage["cost_usd"] == pytest.approx(llm_api.cost(llm_api.usage))
    if llm_api.name == "anthropic":
        assert usage["cost_usd"] == pytest.approx(0.001907)  # haiku: $1 in, $5 out per million
    rep = spend.report(llm_app.store, az.config.llm)
    for period in (rep.today, rep.month):
        assert (period.calls, period.tokens) == (1, llm_api.usage.total)
        assert (period.input_tokens, period.output_tokens) == (
            llm_api.usage.input_tokens,
            llm_api.usage.output_tokens,
        )
        assert period.cost_usd == pytest.approx(llm_api.cost(llm_api.usage), abs=1e-6)  # rounded to 6 places
        assert period.unpriced_calls == 0
    assert rep.left_today == 200_000 - llm_api.usage.total

    # audit
    (analyzed,) = events(llm_app, "analyze")
    assert analyzed.target_id == slug
    details = analyzed.details_obj
    assert details["by"] == llm_api.by and details["promotion"] == promo["id"]
    assert details["mean"] == pytest.approx(GOOD_MEAN)
    (queued,) = events(llm_app, "promotion_queued")
    assert queued.target_id == str(promo["id"]) and queued.details_obj["session"] == slug
    verify = cli("audit", "verify")
    assert verify.returncode == 0, verify.stdout + verify.stderr


def test_answer_below_the_threshold_scores_without_a_promotion(
    llm_api: LLMApi, llm_app: Memoryd, llm_capture: Callable[..., str]
) -> None:
    slug = llm_capture()
    low = llm_answer(llm_api.name, D=0.2, U=0.1, R=0.3, A=0.4, type="none", title="", body="")
    result = analyzer(llm_app, llm_api, Replay(low)).session(slug)

    assert_scored_by(llm_app, slug, result, llm_api.by)
    assert result.mean == pytest.approx(0.25) and result.promotion is None
    assert llm_app.store.row(slug)["dura_mean"] == pytest.approx(0.25)
    assert promotions_of(llm_app, slug) == []
    assert events(llm_app, "promotion_queued") == []
    assert len(events(llm_app, "analyze")) == 1
    assert len(usage_rows(llm_app)) == 1


def test_threshold_comes_from_governance_config(llm_app: Memoryd, llm_capture: Callable[..., str]) -> None:
    api = LLM_APIS[0]
    slug = llm_capture()
    cfg = Config(llm=api.config().llm, governance=GovernanceConfig(promote_threshold=0.9))
    az = Analyzer(llm_app.store, cfg, env=api.env(), transport=Replay(recorded(api.name, "ok")).transport)
    result = az.session(slug)
    assert result.status == "scored" and result.mean == pytest.approx(GOOD_MEAN)
    assert result.promotion is None and promotions_of(llm_app, slug) == []


# -- malformed JSON -----------------------------------------------------------------------
def test_malformed_answer_defers_then_a_later_run_scores(
    llm_api: LLMApi, llm_app: Memoryd, llm_capture: Callable[..., str]
) -> None:
    slug = llm_capture()
    before = session_file(llm_app, slug)
    bad = Replay(recorded(llm_api.name, "malformed"))

    result = analyzer(llm_app, llm_api, bad).session(slug)

    assert result.status == "deferred" and result.by == llm_api.by
    assert "analysis deferred (attempt 1 of 3)" in result.note and "not a JSON object" in result.note
    assert len(bad.requests) == 1  # a bad answer is not asked again within the run
    assert_untouched(llm_app, slug, before)
    (failure,) = failure_rows(llm_app, slug)
    assert failure["attempts"] == 1 and "not a JSON object" in failure["last_error"]
    spent = MALFORMED_USAGE[llm_api.name]
    assert result.tokens == spent.total
    (usage,) = usage_rows(llm_app)
    assert (usage["input_tokens"], usage["output_tokens"], usage["outcome"]) == (
        spent.input_tokens,
        spent.output_tokens,
        "error",
    )
    assert spend.tokens_today(llm_app.store) == spent.total
    assert events(llm_app, "analyze") == []

    # the next run, with a good answer, scores it and clears the failure
    good = Replay(recorded(llm_api.name, "ok"))
    again = analyzer(llm_app, llm_api, good).pending()
    assert [a.slug for a in again] == [slug]
    assert_scored_by(llm_app, slug, again[0], llm_api.by)
    assert len(promotions_of(llm_app, slug)) == 1
    assert [u["outcome"] for u in usage_rows(llm_app)] == ["error", "ok"]
    assert spend.tokens_today(llm_app.store) == spent.total + llm_api.usage.total


def test_answer_not_matching_the_schema_defers(
    llm_api: LLMApi, llm_app: Memoryd, llm_capture: Callable[..., str]
) -> None:
    slug = llm_capture()
    before = session_file(llm_app, slug)
    result = analyzer(llm_app, llm_api, Replay(recorded(llm_api.name, "schema_mismatch"))).session(slug)
    assert result.status == "deferred" and "DuraOutput" in result.note
    assert_untouched(llm_app, slug, before)
    assert failure_rows(llm_app, slug)[0]["attempts"] == 1


# -- transient failures -------------------------------------------------------------------
def test_rate_limited_then_success_scores(
    llm_api: LLMApi, llm_app: Memoryd, llm_capture: Callable[..., str], llm_waits: LLMWaits
) -> None:
    slug = llm_capture()
    replay = Replay(recorded(llm_api.name, "rate_limited"), recorded(llm_api.name, "ok"))

    result = analyzer(llm_app, llm_api, replay).session(slug)

    assert len(replay.requests) == 2
    assert_scored_by(llm_app, slug, result, llm_api.by)
    assert result.promotion == "queued"
    if llm_api.name == "anthropic":
        assert llm_waits.slept == [pytest.approx(0.002)]  # the SDK honoured retry-after-ms
    else:
        assert llm_waits.backoffs == [1.0]  # Retry-After: 1
    # the 429 cost nothing; the success is written down once
    (usage,) = usage_rows(llm_app)
    assert usage["outcome"] == "ok" and usage["input_tokens"] == llm_api.usage.input_tokens


def test_server_errors_defer_until_the_rules_score_it(
    llm_api: LLMApi, llm_app: Memoryd, llm_capture: Callable[..., str], llm_waits: LLMWaits
) -> None:
    slug = llm_capture()
    before = session_file(llm_app, slug)
    assert MAX_ATTEMPTS == 3

    for attempt in (1, 2):
        replay = Replay(recorded(llm_api.name, "server_error"))
        result = analyzer(llm_app, llm_api, replay, max_retries=1).session(slug)
        assert len(replay.requests) == 2  # the try and its one retry
        assert result.status == "deferred", result
        assert f"analysis deferred (attempt {attempt} of 3)" in result.note
        assert re.search(r": HTTP 500( \(api_error\))? after 2 attempts$", result.note), result.note
        assert_untouched(llm_app, slug, before)
        assert failure_rows(llm_app, slug)[0]["attempts"] == attempt
    if llm_api.name == "anthropic":
        assert llm_waits.slept == [pytest.approx(0.002)] * 2
    else:
        assert llm_waits.backoffs == [0.5, 0.5]

    replay = Replay(recorded(llm_api.name, "server_error"))
    result = analyzer(llm_app, llm_api, replay, max_retries=1).session(slug)

    assert len(replay.requests) == 2
    assert_scored_by(llm_app, slug, result, "rules")
    assert result.note.startswith("the LLM failed 3 times, last: ")
    # the rules' reasoning says why the rules scored it
    (promo,) = promotions_of(llm_app, slug)
    assert promo["reasoning"].startswith("rule-scored (the LLM failed 3 times")
    assert llm_app.store.read(slug)[0].meta.extras["analysis"]["prompt"] == "rules"
    rows = usage_rows(llm_app)
    assert [r["outcome"] for r in rows] == ["error"] * 3
    assert all(r["input_tokens"] == r["output_tokens"] == 0 for r in rows)
    (analyzed,) = events(llm_app, "analyze")
    assert analyzed.details_obj["by"] == "rules"


def test_timeout_defers_and_loses_nothing(
    llm_api: LLMApi, llm_app: Memoryd, llm_capture: Callable[..., str]
) -> None:
    slug = llm_capture()
    before = session_file(llm_app, slug)
    replay = Replay(httpx.ReadTimeout("timed out"))

    result = analyzer(llm_app, llm_api, replay, max_retries=1).session(slug)

    assert len(replay.requests) == 2
    assert result.status == "deferred" and result.by == llm_api.by
    assert "timed out" in result.note and "attempt 1 of 3" in result.note
    assert_untouched(llm_app, slug, before)
    (failure,) = failure_rows(llm_app, slug)
    assert "timed out" in failure["last_error"]
    assert [r["outcome"] for r in usage_rows(llm_app)] == ["error"]
    # the session is still there and still waiting: a timeout then success scores it
    replay = Replay(httpx.ReadTimeout("timed out"), recorded(llm_api.name, "ok"))
    result = analyzer(llm_app, llm_api, replay, max_retries=1).session(slug)
    assert len(replay.requests) == 2
    assert_scored_by(llm_app, slug, result, llm_api.by)


# -- re-analysis --------------------------------------------------------------------------
def test_reanalysis_updates_the_pending_promotion(
    llm_api: LLMApi, llm_app: Memoryd, llm_capture: Callable[..., str]
) -> None:
    slug = llm_capture()
    first = analyzer(llm_app, llm_api, Replay(recorded(llm_api.name, "ok"))).session(slug)
    assert first.promotion == "queued"

    # unchanged body, no force: nothing is sent
    replay = Replay(recorded(llm_api.name, "ok"))
    skipped = analyzer(llm_app, llm_api, replay).session(slug)
    assert skipped.status == "skipped" and replay.requests == []

    other = llm_answer(
        llm_api.name,
        D=0.9,
        U=0.9,
        R=0.8,
        A=0.9,
        type="preference",
        title="Markdown is the truth",
        body="Markdown files are the source of truth.",
        triggers=["markdown"],
        reasoning="Said twice.",
    )
    replay = Replay(other)
    second = analyzer(llm_app, llm_api, replay).session(slug, force=True)

    assert len(replay.requests) == 1
    assert second.status == "scored"
    assert second.promotion == "updated" and second.promotion_id == first.promotion_id
    (promo,) = promotions_of(llm_app, slug)
    assert promo["status"] == "pending"
    assert (promo["proposed_type"], promo["proposed_title"]) == ("preference", "Markdown is the truth")
    assert promo["proposed_body"] == "Markdown files are the source of truth."
    assert promo["proposed_triggers"] == ["markdown"] and promo["reasoning"] == "Said twice."
    assert promo["dura_score"] == {"D": 0.9, "U": 0.9, "R": 0.8, "A": 0.9}
    assert llm_app.store.row(slug)["dura_mean"] == pytest.approx(0.875)
    assert len(events(llm_app, "promotion_queued")) == 1
    (updated,) = events(llm_app, "promotion_updated")
    assert updated.target_id == str(first.promotion_id)
    assert len(events(llm_app, "analyze")) == 2
    assert llm_app.audit_verify().ok


def test_rejected_promotion_gets_no_new_one(
    llm_api: LLMApi, llm_app: Memoryd, llm_capture: Callable[..., str]
) -> None:
    slug = llm_capture()
    first = analyzer(llm_app, llm_api, Replay(recorded(llm_api.name, "ok"))).session(slug)
    assert first.promotion_id is not None
    llm_app.reject(first.promotion_id, reason="not worth keeping")

    other = llm_answer(llm_api.name, D=0.95, U=0.95, R=0.95, A=0.95, title="Try again")
    second = analyzer(llm_app, llm_api, Replay(other)).session(slug, force=True)

    assert second.status == "scored" and second.mean == pytest.approx(0.95)
    assert second.promotion == "decided" and second.promotion_id == first.promotion_id
    (promo,) = promotions_of(llm_app, slug)
    assert promo["status"] == "rejected" and promo["proposed_title"] == GOOD["title"]
    assert llm_app.promotions(status="pending") == []
    assert len(events(llm_app, "promotion_queued")) == 1
    assert events(llm_app, "promotion_updated") == []
    assert llm_app.store.row(slug)["dura_mean"] == pytest.approx(0.95)  # the score itself is updated


# -- when nothing is sent -----------------------------------------------------------------
def test_spent_daily_budget_falls_back_to_rules_without_a_request(
    llm_api: LLMApi, llm_app: Memoryd, llm_capture: Callable[..., str]
) -> None:
    budget = 20_000
    slug = llm_capture()
    replay = Replay(recorded(llm_api.name, "ok"))
    first = analyzer(llm_app, llm_api, replay, daily_token_budget=budget).session(slug)
    assert first.by == llm_api.by and len(replay.requests) == 1  # under budget: the LLM answers

    cfg = llm_api.config(daily_token_budget=budget).llm
    filler = budget - llm_api.usage.total - 100
    spend.record(
        llm_app.store,
        cfg,
        provider="openai",
        model="gpt-4o-mini",
        task="dura",
        usage=Usage(filler, 0),
        ok=True,
    )
    assert spend.tokens_today(llm_app.store) == budget - 100

    replay = Replay(recorded(llm_api.name, "ok"))
    result = analyzer(llm_app, llm_api, replay, daily_token_budget=budget).session(slug, force=True)

    assert replay.requests == []
    assert_scored_by(llm_app, slug, result, "rules")
    assert result.note == "daily token budget spent (19,900 of 20,000 tokens)"
    assert result.promotion == "updated"
    (promo,) = promotions_of(llm_app, slug)
    assert promo["reasoning"].startswith("rule-scored (daily token budget spent")
    assert len(usage_rows(llm_app)) == 2  # nothing new written: nothing was spent


def test_yesterdays_spend_does_not_count_against_today(
    llm_app: Memoryd, llm_capture: Callable[..., str], monkeypatch: pytest.MonkeyPatch
) -> None:
    api = LLM_APIS[0]
    monkeypatch.setenv("MEMORYD_NOW", "2026-05-17T23:00:00Z")
    spend.record(
        llm_app.store,
        api.config().llm,
        provider=api.name,
        model=api.model,
        task="dura",
        usage=Usage(50_000, 0),
        ok=True,
    )
    monkeypatch.setenv("MEMORYD_NOW", "2026-05-18T08:00:00Z")
    slug = llm_capture()
    replay = Replay(recorded(api.name, "ok"))
    result = analyzer(llm_app, api, replay, daily_token_budget=20_000).session(slug)
    assert result.by == api.by and len(replay.requests) == 1


@pytest.mark.parametrize("api", LLM_APIS[:2], ids=lambda a: a.name)
@pytest.mark.parametrize("key", [None, "   "], ids=["unset", "blank"])
def test_no_api_key_scores_by_rules_without_a_request(
    api: LLMApi, key: str | None, llm_app: Memoryd, llm_capture: Callable[..., str]
) -> None:
    slug = llm_capture()
    other = "OPENAI_API_KEY" if api.name == "anthropic" else "ANTHROPIC_API_KEY"
    env = {other: KEY, **({api.key_env: key} if key is not None else {})}
    replay = Replay(recorded(api.name, "ok"))
    result = Analyzer(llm_app.store, api.config(), env=env, transport=replay.transport).session(slug)

    assert replay.requests == []
    assert_scored_by(llm_app, slug, result, "rules")
    assert result.note == f"no API key: {api.key_env} is not set"
    assert usage_rows(llm_app) == []


def test_an_explicitly_empty_env_is_not_the_process_env(
    llm_app: Memoryd, llm_capture: Callable[..., str], monkeypatch: pytest.MonkeyPatch
) -> None:
    api = LLM_APIS[0]
    slug = llm_capture()
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    replay = Replay(recorded(api.name, "ok"))
    result = Analyzer(llm_app.store, api.config(), env={}, transport=replay.transport).session(slug)
    assert replay.requests == []
    assert result.by == "rules"


def test_rules_provider_scores_without_a_request(llm_app: Memoryd, llm_capture: Callable[..., str]) -> None:
    slug = llm_capture()
    replay = Replay(recorded("anthropic", "ok"))
    cfg = Config(llm=LLMConfig(provider="rules"))
    result = Analyzer(llm_app.store, cfg, env={"ANTHROPIC_API_KEY": KEY}, transport=replay.transport).session(
        slug
    )

    assert replay.requests == []
    assert_scored_by(llm_app, slug, result, "rules")
    assert 'provider = "rules"' in result.note
    assert result.tokens == 0 and usage_rows(llm_app) == []
    assert llm_app.store.read(slug)[0].meta.extras["analysis"]["prompt"] == "rules"
    # the rules read this session as a decision the user asked to remember
    (promo,) = promotions_of(llm_app, slug)
    assert promo["proposed_type"] == "decision"
    assert promo["reasoning"].startswith('rule-scored (provider = "rules"')


def test_sensitive_scope_is_rule_scored_whatever_the_config_says(
    llm_api: LLMApi, llm_app: Memoryd, llm_capture: Callable[..., str]
) -> None:
    slug = llm_capture()
    mark_sensitive(llm_app, slug)
    replay = Replay(recorded(llm_api.name, "ok"))

    result = analyzer(llm_app, llm_api, replay).session(slug)

    assert replay.requests == []
    assert_scored_by(llm_app, slug, result, "rules")
    assert result.note == "sensitive scope: nothing sent to the LLM"
    assert usage_rows(llm_app) == []
    (promo,) = promotions_of(llm_app, slug)
    assert "sensitive scope" in promo["reasoning"]

    # The old config switch is no consent (an agent can write it): the person allows one
    # project with `memoryd allow-llm` (tests/core/sensitive/test_llm_access.py).
    mark_sensitive(llm_app, slug)
    replay = Replay(recorded(llm_api.name, "ok"))
    switched = analyzer(llm_app, llm_api, replay, allow_sensitive=True).session(slug, force=True)
    assert replay.requests == []
    assert_scored_by(llm_app, slug, switched, "rules")


# -- what is sent -------------------------------------------------------------------------
TOOL_OUTPUT = "TOOLOUTPUT-qz81"  # a tool's output: kept in the turns, never in the body
SECOND_SENTENCE = "HIDDENSENT-k2x9"  # only an answer's first sentence reaches the body
DESCRIPTION = "DESCMARK-r5t0"  # a tool argument other than the command
LATE_ANSWER = "LATEANSWER-p7w3"  # answers after the twelfth are not summarised


def _long_session() -> list[list[dict[str, Any]]]:
    exchanges = []
    for i in range(30):
        exchanges.append(
            claude_exchange(
                f"Step {i}: migrate the storage module part {i} and keep the index rebuildable. "
                + "Context: "
                + "the reindex path must stay idempotent and fast " * 6,
                (f"Answer {i} {LATE_ANSWER} migrated part {i}. " if i >= 14 else f"Migrated part {i}. ")
                + f"Second sentence {SECOND_SENTENCE} with details that stay in the turns only.",
                tool="Bash",
                tool_input={
                    "command": f"python scripts/migrate.py --part {i} " + "--verbose --check " * 14,
                    "description": f"{DESCRIPTION} run the migration",
                },
                tool_output=f"{TOOL_OUTPUT} migrated {i} rows",
            )
        )
    exchanges.append(claude_exchange("Wrap up", "All parts migrated; the index rebuilds from files."))
    return exchanges


def test_what_is_sent_is_bounded_and_only_the_session_body(
    llm_api: LLMApi, llm_app: Memoryd, llm_capture: Callable[..., str]
) -> None:
    limit = 300
    slug = llm_capture(_long_session())
    doc, path = llm_app.store.read(slug)
    # preconditions: a long body, and the markers were captured (in the turns) but not summarised
    assert tokens.estimate(doc.body) > 3 * limit
    turns = "\n".join(t.text for t in llm_app.store.files.read_turns(path))
    for marker in (TOOL_OUTPUT, SECOND_SENTENCE, DESCRIPTION, LATE_ANSWER):
        assert marker in turns and marker not in doc.body, marker

    replay = Replay(recorded(llm_api.name, "ok"))
    result = analyzer(llm_app, llm_api, replay, max_input_tokens=limit).session(slug)
    assert result.status == "scored"

    (request,) = replay.requests
    system, user = llm_api.messages(request)
    empty = render("dura", body="", existing="(none)")
    assert system == empty.system
    assert user.startswith(empty.user)
    assert tokens.estimate(user) <= limit + tokens.estimate(empty.user) + 1
    sent = user.split("Session:\n", 1)[1]
    assert sent.endswith(tokens.MARK)
    assert doc.body.startswith(sent.removesuffix(tokens.MARK))  # a prefix of the body, nothing else
    wire = request.content.decode()
    for marker in (TOOL_OUTPUT, SECOND_SENTENCE, DESCRIPTION, LATE_ANSWER):
        assert marker not in wire, marker


def test_a_short_body_is_sent_whole(
    llm_api: LLMApi, llm_app: Memoryd, llm_capture: Callable[..., str]
) -> None:
    slug = llm_capture()
    doc, _ = llm_app.store.read(slug)
    replay = Replay(recorded(llm_api.name, "ok"))
    analyzer(llm_app, llm_api, replay).session(slug)
    _, user = llm_api.messages(replay.requests[0])
    assert user == render("dura", body=doc.body, existing="(none)").user
    assert tokens.MARK not in user


# -- stats --------------------------------------------------------------------------------
def test_stats_show_todays_and_this_months_spend(
    cli, llm_app: Memoryd, llm_capture: Callable[..., str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The CLI cannot use a mock transport: usage is written by the in-process Analyzer
    against recorded answers, then read back by `memoryd stats`."""
    (tmp_path / "config.toml").write_text("[llm]\ndaily_token_budget = 50000\n", encoding="utf-8")
    api = LLM_APIS[0]
    prices = {"claude-haiku-4-5": (100.0, 500.0)}  # so the cost shows at two decimals
    per_call = (1087 * 100 + 164 * 500) / 1_000_000

    monkeypatch.setenv("MEMORYD_NOW", "2026-04-30T12:00:00Z")  # last month: in neither total
    spend.record(
        llm_app.store,
        api.config(prices=prices).llm,
        provider=api.name,
        model=api.model,
        task="dura",
        usage=Usage(5000, 500),
        ok=True,
    )
    monkeypatch.setenv("MEMORYD_NOW", "2026-05-03T09:00:00Z")  # this month, not today
    slug = llm_capture()
    assert analyzer(llm_app, api, Replay(recorded(api.name, "ok")), prices=prices).session(slug).by == api.by
    monkeypatch.setenv("MEMORYD_NOW", "2026-05-18T12:00:00Z")  # today
    again = analyzer(llm_app, api, Replay(recorded(api.name, "ok")), prices=prices).session(slug, force=True)
    assert again.by == api.by
    assert [r["day"] for r in usage_rows(llm_app)] == ["2026-04-30", "2026-05-03", "2026-05-18"]

    out = cli("stats", "--json")
    assert out.returncode == 0, out.stderr
    llm = json.loads(out.stdout)["llm"]
    assert llm["provider"] == "anthropic"
    assert llm["today"] == {
        "calls": 1,
        "tokens": 1251,
        "input_tokens": 1087,
        "output_tokens": 164,
        "cost_usd": pytest.approx(per_call),
        "unpriced_calls": 0,
    }
    assert llm["month"] == {
        "calls": 2,
        "tokens": 2502,
        "input_tokens": 2174,
        "output_tokens": 328,
        "cost_usd": pytest.approx(2 * per_call),
        "unpriced_calls": 0,
    }
    assert llm["daily_budget"] == 50_000 and llm["left_today"] == 48_749

    out = cli("stats")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert "LLM today: 1,251 tokens in 1 call(s) (~$0.19); daily budget 50,000, 48,749 left" in lines
    assert "LLM this month: 2,502 tokens in 2 call(s) (~$0.38)" in lines
