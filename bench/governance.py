"""Governance at scale: the nightly decay sweep and the weekly digest over 100k memories,
and the tokens one DURA analysis spends on a typical session.

Why: the tray sweeps every night and builds the digest every week; both walk the whole
store, so their cost at a big personal store decides whether they can run unnoticed. DURA
scoring is the one part of memoryd that costs money, once per captured session, so its
tokens per session are what a user pays.

The store is synthetic and deterministic (words from bench/corpus.py): mostly sessions,
some long-term memories, created over the last two years, some recalled since, in the
decay states the daily sweeps left them in yesterday; plus a review queue (pending and
decided promotions, duplicate pairs, a month of trigger, recall and LLM-spend rows). It
is built once with `Store.save_many` and cached under bench/.out/ like search_scale's.
Each sweep runs on a fresh clone of it (see `clone`) with the clock pinned (MEMORYD_NOW),
so every run moves the same memories:
  * the daily sweep (the memories crossing a threshold since yesterday's sweep),
  * a dry run (the candidate query alone),
  * the first sweep of a store never swept (every state reset to alive): the worst case.
The digest is `digest.build` + `render_text` in a warm process, and a cold
`memoryd digest --json`. DURA tokens: real Claude Code transcripts captured by
`capture.worker.process`, the prompt `Analyzer` sends for each, and one real `Analyzer`
call through the anthropic SDK answered by the recorded Messages API response.

    python bench/governance.py [--quick] [--size 100000] [--runs 3] [--json]
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import json
import os
import random
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import _common as c
import corpus
import hook_latency
import httpx
from sqlalchemy import event, text

from memoryd import clock, frontmatter, search, slugs
from memoryd.app import Memoryd
from memoryd.capture.worker import process
from memoryd.config import Config, DecayConfig
from memoryd.db.engine import migrations, read_session, write_session
from memoryd.frontmatter import Document
from memoryd.governance import analyze, decay, digest, spend
from memoryd.llm import pricing, prompts, tokens
from memoryd.llm.base import Prompt, Usage
from memoryd.models import LONG_TERM_TYPES, DecayState, Frontmatter, MemoryType, default_ttl
from memoryd.paths import Layout
from memoryd.scope import hash_root
from memoryd.store import Store, Turn, index
from memoryd.store import governance as sql

SEED = 20260518
SCOPES = 20
SCOPE_BASE = Path(tempfile.gettempdir()) / "memoryd-bench-scopes"
NOW = datetime(2026, 5, 18, 3, 0, tzinfo=UTC)  # the tray sweeps at 03:00
PREV = NOW - timedelta(days=1)  # yesterday's sweep: the store holds what it left
SPAN_DAYS = 730
SESSION_SHARE = 0.65
LONG_TERM = (
    (MemoryType.fact, 20),
    (MemoryType.decision, 15),
    (MemoryType.playbook, 10),
    (MemoryType.preference, 8),
    (MemoryType.warning, 7),
)
TTL_SHARE, LONG_TTL = 0.1, 365  # a tenth of long-term memories carry ttl_days, and decay
RECALLED = {True: 0.3, False: 0.5}  # share of sessions / long-term memories recalled since made
DUPLICATE_EVERY = 2000  # every 2000th memory repeats an earlier one of its scope
DECAY = DecayConfig()
TARGET_SWEEP_S, TARGET_DIGEST_S, TARGET_DURA_TOKENS = 3.0, 1.0, 1500
RECORDED = c.REPO / "tests" / "core" / "llm" / "recorded" / "anthropic" / "ok.json"


# -- the store --------------------------------------------------------------------------
@dataclass(frozen=True)
class Made:
    slug: str
    type: MemoryType
    scope_hash: str
    created: datetime
    life: datetime  # the last sign of life: creation or the last recall
    ttl: int | None


def settled(life: datetime, ttl: int | None, at: datetime) -> DecayState:
    """The state daily sweeps leave a memory in at `at`: one step per crossed threshold."""
    if ttl is None or life >= at:
        return DecayState.alive
    idle = (at - life).total_seconds() / 86400
    soft = ttl + DECAY.soft_forget_after_days
    crossed = sum(idle >= days for days in (ttl, soft, soft + DECAY.forget_after_days))
    return (DecayState.alive, DecayState.dim, DecayState.soft_forgotten, DecayState.forgotten)[crossed]


def population(size: int, made: list[Made]) -> Iterator[tuple[Document, list[Turn] | None]]:
    """`size` live memories, deterministic; what each is appended to `made`."""
    gen = corpus.Generator(SEED, SCOPES)
    rng = gen.rng
    scopes = [hash_root(corpus.scope_root(i, SCOPE_BASE)) for i in range(SCOPES)]
    kinds, weights = [t for t, _ in LONG_TERM], [w for _, w in LONG_TERM]
    last: dict[int, tuple[str, str]] = {}
    for n in range(size):
        gen.scope = rng.randrange(SCOPES)
        is_session = rng.random() < SESSION_SHARE
        mtype = MemoryType.session if is_session else rng.choices(kinds, weights)[0]
        ttl = default_ttl(mtype) or (LONG_TTL if rng.random() < TTL_SHARE else None)
        while True:  # one already forgotten was archived by an earlier sweep: draw again
            created = NOW - timedelta(seconds=rng.randrange(SPAN_DAYS * 86400))
            recalled = None
            if rng.random() < RECALLED[is_session]:
                recalled = created + timedelta(
                    seconds=rng.randrange(int((NOW - created).total_seconds()) + 1)
                )
            life = recalled or created
            state = settled(life, ttl, PREV)
            if state is not DecayState.forgotten:
                break
        lang = rng.choices(("en", "zh", "mixed"), weights=(60, 28, 12))[0]
        title = gen.title(lang)
        body = " ".join(gen.sentence(lang) for _ in range(rng.randint(2, 5))) + "\n"
        if n % DUPLICATE_EVERY == DUPLICATE_EVERY - 1 and gen.scope in last:
            title, body = last[gen.scope]  # the same note twice: a duplicate pair for the digest
        last[gen.scope] = (title, body)
        meta = Frontmatter(
            title=title,
            slug=f"{slugs.for_title(title, created)[:-5]}-{n:06x}",
            type=mtype,
            scope_hash=scopes[gen.scope],
            source="claude-code" if is_session else "manual",
            created_at=created,
            updated_at=created,
            tags=list(dict.fromkeys([gen.word("tech"), gen.word("nouns")])),
            triggers=list(dict.fromkeys([gen.word("zh" if lang == "zh" else "nouns") for _ in range(2)])),
            ttl_days=ttl,
            decay_state=state,
            recall_count=rng.randint(1, 9) if recalled else 0,
            last_recalled_at=life,  # capture and record stamp creation as the first recall
            session_id=f"gov-{n}" if is_session else None,
        )
        turns = None
        if is_session:
            stamp = clock.iso(created)
            turns = [
                Turn(i, "user" if i % 2 == 0 else "assistant", gen.sentence(lang), stamp, None)
                for i in range(4)
            ]
        made.append(Made(meta.slug, mtype, meta.scope_hash, created, life, ttl))
        yield Document(meta=meta, body=body), turns


def review_queue(store: Store, made: list[Made], size: int) -> dict[str, int]:
    """What the digest reads besides memories: a few hundred pending promotions of recent
    sessions (more already decided), and a month of trigger, recall and LLM-spend rows."""
    rng = random.Random(SEED + 1)
    gen = corpus.Generator(SEED + 2, SCOPES)
    pending_n = max(10, size * 3 // 1000)
    recent = [m for m in made if m.type is MemoryType.session and NOW - m.created < timedelta(days=14)]
    older = [m for m in made if m.type is MemoryType.session and NOW - m.created >= timedelta(days=14)]
    long_term = [m for m in made if m.type is not MemoryType.session]
    pend = rng.sample(recent, min(pending_n, len(recent)))
    decided = rng.sample(older, min(pending_n * 4, len(older)))
    month = [(NOW - timedelta(days=d)).strftime("%Y-%m-%d") for d in range(30)]
    with write_session(store.engine) as s:
        for i, m in enumerate(pend + decided):
            while True:
                score = {k: round(rng.uniform(0.4, 0.97), 2) for k in "DURA"}
                if sum(score.values()) / 4 >= 0.6:
                    break
            gen.scope = rng.randrange(SCOPES)
            lang = rng.choice(("en", "en", "zh"))
            picks = rng.sample(long_term, min(40, len(long_term)))
            same_scope = [x.slug for x in picks if x.scope_hash == m.scope_hash]
            when = m.created + timedelta(minutes=rng.randint(1, 90))
            pid, _ = sql.queue_promotion(
                s,
                {
                    "source_session_slug": m.slug,
                    "proposed_type": rng.choice([t.value for t in LONG_TERM_TYPES]),
                    "proposed_title": gen.title(lang)[:80],
                    "proposed_body": " ".join(gen.sentence(lang) for _ in range(rng.randint(1, 4))),
                    "proposed_triggers": list(dict.fromkeys(gen.word("nouns") for _ in range(5))),
                    "dura_score": score,
                    "reasoning": gen.sentence(lang),
                    "proposed_supersedes": same_scope[:1] if rng.random() < 0.1 else [],
                    "scope_hash": m.scope_hash,
                    "created_at": clock.iso(min(when, NOW)),
                },
            )
            if i >= len(pend):
                status = "promoted" if rng.random() < 0.6 else "rejected"
                sql.decide(s, pid, status, clock.iso(min(when + timedelta(days=rng.randint(1, 9)), NOW)))
        recalls = []
        for m in made:
            if m.life != m.created and NOW - m.life < timedelta(days=30):
                days = {m.life.strftime("%Y-%m-%d"), *rng.sample(month, rng.randint(0, 2))}
                recalls += [
                    {"slug": m.slug, "day": d, "hits": rng.randint(1, 4)}
                    for d in days
                    if d <= m.life.strftime("%Y-%m-%d")
                ]
        if recalls:
            s.exec(
                text("INSERT INTO recall_stats (slug, day, hits) VALUES (:slug, :day, :hits)"), params=recalls
            )
        trig = []
        for day in month:
            for _ in range(150):
                gen.scope = rng.randrange(SCOPES)
                word = gen.word(rng.choice(("nouns", "tech", "zh")))
                trig.append(
                    {"t": word, "scope": hash_root(corpus.scope_root(gen.scope, SCOPE_BASE)), "day": day}
                )
        s.exec(
            text(
                'INSERT INTO trigger_stats ("trigger", scope_hash, day, hits) VALUES (:t, :scope, :day, 1) '
                'ON CONFLICT("trigger", scope_hash, day) DO UPDATE SET hits = hits + 1'
            ),
            params=trig,
        )
        calls = 0
        for day in month:
            if day[:7] != NOW.strftime("%Y-%m") or day > NOW.strftime("%Y-%m-%d"):
                continue
            for _ in range(rng.randint(60, 140)):
                calls += 1
                used = Usage(rng.randint(700, 1300), rng.randint(110, 260))
                sql.record_usage(
                    s,
                    {
                        "ts": f"{day}T02:00:00Z",
                        "day": day,
                        "provider": "anthropic",
                        "model": "claude-haiku-4-5",
                        "task": "dura",
                        "input_tokens": used.input_tokens,
                        "output_tokens": used.output_tokens,
                        "cost_usd": pricing.cost("anthropic", "claude-haiku-4-5", used, {}),
                        "outcome": "ok",
                    },
                )
    return {
        "pending_promotions": len(pend),
        "decided_promotions": len(decided),
        "recall_stats_rows": len(recalls),
        "trigger_stats_hits": len(trig),
        "llm_calls_this_month": calls,
    }


def describe(made: list[Made]) -> dict[str, Any]:
    """What the store holds, and which transitions a sweep at NOW must make."""
    states: dict[str, int] = {}
    daily: dict[str, int] = {}
    first = 0
    for m in made:
        before, after = settled(m.life, m.ttl, PREV), settled(m.life, m.ttl, NOW)
        states[before.value] = states.get(before.value, 0) + 1
        if after is not before:
            daily[after.value] = daily.get(after.value, 0) + 1
        if m.ttl is not None and settled(m.life, m.ttl, NOW) is not DecayState.alive:
            first += 1  # never swept: everything past its ttl moves alive -> dim
    sessions = [m for m in made if m.type is MemoryType.session]
    return {
        "memories": len(made),
        "sessions": len(sessions),
        "long_term": len(made) - len(sessions),
        "long_term_with_ttl": sum(1 for m in made if m.type is not MemoryType.session and m.ttl),
        "states": dict(sorted(states.items())),
        "recalled_last_30_days": sum(
            1 for m in made if m.life != m.created and NOW - m.life < timedelta(days=30)
        ),
        "sessions_per_day_last_30_days": round(
            sum(1 for m in sessions if NOW - m.created < timedelta(days=30)) / 30, 1
        ),
        "expected_daily": dict(sorted(daily.items())),
        "expected_first_sweep": first,
    }


def cache_key(size: int) -> str:
    """Valid while the generator, the corpus and what a memory writes to disk and index
    (frontmatter, rows, schema) are unchanged."""
    h = hashlib.sha256(Path(corpus.__file__ or "").read_bytes())
    for fn in (settled, population, review_queue, frontmatter.render, Store._row, index.upsert_memory):
        h.update(inspect.getsource(fn).encode())
    for version, _name, script in migrations():
        h.update(f"{version}:{script}".encode())
    return f"gov-{size}-{SEED}-{h.hexdigest()[:10]}"


def build_home(size: int) -> tuple[Path, dict[str, Any]]:
    """The cached home for `size` memories and its manifest (what it holds, build time)."""
    home = c.OUT / cache_key(size)
    manifest = home / "bench-manifest.json"
    if manifest.exists():
        return home, {**json.loads(manifest.read_text(encoding="utf-8")), "cached": True}
    for old in c.OUT.glob(f"gov-{size}-*"):
        shutil.rmtree(old, ignore_errors=True)
    t0 = time.perf_counter()
    made: list[Made] = []
    store = Store.open(Layout(home))
    store.save_many(population(size, made), actor="bench", batch=1000)
    queue = review_queue(store, made, size)
    store.engine.dispose()
    info = {**describe(made), **queue, "generated_s": round(time.perf_counter() - t0, 1)}
    manifest.write_text(json.dumps(info, indent=2), encoding="utf-8")
    return home, {**info, "cached": False}


def unswept_home(home: Path) -> tuple[Path, float | None]:
    """The same store as if no sweep had ever run: every memory alive, files and index."""
    dst = home.with_name(home.name + "-unswept")
    done = dst / ".complete"
    if done.exists():
        return dst, None
    shutil.rmtree(dst, ignore_errors=True)
    t0 = time.perf_counter()
    c.clone(home, dst)
    store = Store.open(Layout(dst))
    with read_session(store.engine) as s:
        paths = [r[0] for r in s.exec(text("SELECT body_path FROM memories WHERE decay_state != 'alive'"))]
    for rel in paths:
        doc = store.files.read(store.files.absolute(rel))
        doc.meta.decay_state = DecayState.alive
        store.files.write(doc, sync=False)
    with write_session(store.engine) as s:
        s.exec(text("UPDATE memories SET decay_state = 'alive'"))
    store.engine.dispose()
    took = time.perf_counter() - t0
    done.write_text(f"{took:.1f} seconds to derive\n")
    return dst, took


# -- decay sweep -----------------------------------------------------------------------
@contextmanager
def phases() -> Iterator[dict[str, float]]:
    """Seconds spent in decay.due (the candidate query), _fade and _archive during a sweep."""
    spent = {"due": 0.0, "_fade": 0.0, "_archive": 0.0}
    originals = {name: getattr(decay, name) for name in spent}

    def timed(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[name] += time.perf_counter() - t0

        return run

    for name, fn in originals.items():
        setattr(decay, name, timed(name, fn))
    try:
        yield spent
    finally:
        for name, fn in originals.items():
            setattr(decay, name, fn)


def one_sweep(src: Path, *, dry_run: bool) -> dict[str, Any]:
    with c.fresh_copy(src, "gov") as (home, copy_s):
        app = Memoryd(layout=Layout(home), config=Config())
        app.store.counts()  # open the index (and apply any newer migration) before timing
        opened = [0]

        def count(*_: Any) -> None:
            opened[0] += 1

        event.listen(app.store.engine, "connect", count)
        with phases() as spent:
            t0 = time.perf_counter()
            rep = app.decay_sweep(dry_run=dry_run, actor="bench")
            wall = time.perf_counter() - t0
        event.remove(app.store.engine, "connect", count)
        session_ms = session_cost(app.store) if not dry_run else 0.0
        app.store.engine.dispose()
    counts = rep.counts()
    fades = sum(n for state, n in counts.items() if state != DecayState.forgotten.value)
    archives = counts.get(DecayState.forgotten.value, 0)
    return {
        "s": wall,
        "copy_s": copy_s,
        "transitions": sum(counts.values()),
        "counts": dict(sorted(counts.items())),
        "skipped": len(rep.skipped),
        "connections": opened[0],
        "session_ms": session_ms,
        "query_s": spent["due"],
        "fade_ms_each": 1000 * spent["_fade"] / fades if fades and not dry_run else 0.0,
        "archive_ms_each": 1000 * spent["_archive"] / archives if archives and not dry_run else 0.0,
    }


def session_cost(store: Store, n: int = 200) -> float:
    """Milliseconds one `read_session` running `SELECT 1` costs: the engine opens a new
    SQLite connection (and its PRAGMAs) per session, which every store call pays."""
    t0 = time.perf_counter()
    for _ in range(n):
        with read_session(store.engine) as s:
            s.exec(text("SELECT 1")).all()
    return (time.perf_counter() - t0) * 1000 / n


def sweep_summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Medians of the timings; counts from the first run (every run moves the same set)."""
    out = dict(runs[0])
    for key in ("s", "copy_s", "query_s", "fade_ms_each", "archive_ms_each", "session_ms"):
        out[key] = round(c.median(r[key] for r in runs), 3)
    out["runs"] = len(runs)
    out["same_transitions_every_run"] = len({r["transitions"] for r in runs}) == 1
    return out


def measure_sweep(home: Path, unswept: Path, runs: int, first_runs: int) -> dict[str, Any]:
    daily = [one_sweep(home, dry_run=False) for _ in range(runs)]
    dry = [one_sweep(home, dry_run=True) for _ in range(runs)]
    first = [one_sweep(unswept, dry_run=False) for _ in range(first_runs)]
    return {
        "target_s": TARGET_SWEEP_S,
        "daily": sweep_summary(daily),
        "dry_run": sweep_summary(dry),
        "first_sweep": sweep_summary(first),
    }


# -- digest ----------------------------------------------------------------------------
def measure_digest(home: Path, runs: int, cli_runs: int) -> dict[str, Any]:
    with c.fresh_copy(home, "gov") as (copy, _):
        app = Memoryd(layout=Layout(copy), config=Config())
        store = app.store
        store.counts()
        build_ms, render_ms = [], []
        d, rendered = None, ""
        for _ in range(runs + 1):  # the first is the process's first: reported apart
            t0 = time.perf_counter()
            d = digest.build(store, app.config)
            t1 = time.perf_counter()
            rendered = digest.render_text(d)
            build_ms.append((t1 - t0) * 1000)
            render_ms.append((time.perf_counter() - t1) * 1000)
        store.engine.dispose()
        assert d is not None
        env = c.isolated_env(copy, MEMORYD_NOW=clock.iso(NOW))
        script = Path(sysconfig.get_path("scripts")) / "memoryd"
        imports = [sys.executable, "-c", "import memoryd.cli.main, memoryd.app, memoryd.governance.digest"]
        cli, boot, size = [], [], 0
        for _ in range(cli_runs):  # interleaved with its floor: the interpreter and the imports
            t0 = time.perf_counter()
            out = subprocess.run([str(script), "digest", "--json"], env=env, check=True, capture_output=True)
            t1 = time.perf_counter()
            subprocess.run(imports, env=env, check=True, capture_output=True)
            cli.append((t1 - t0) * 1000)
            boot.append((time.perf_counter() - t1) * 1000)
            size = len(out.stdout)
    total = [b + r for b, r in zip(build_ms[1:], render_ms[1:], strict=True)]
    return {
        "target_s": TARGET_DIGEST_S,
        "runs": runs,
        "build_ms": round(c.median(build_ms[1:]), 1),
        "render_ms": round(c.median(render_ms[1:]), 1),
        "total_ms": round(c.median(total), 1),
        "first_in_process_ms": round(build_ms[0] + render_ms[0], 1),
        "cli_cold_ms": {
            "median": round(c.median(cli), 1),
            "runs": cli_runs,
            "json_kb": round(size / 1024),
            "start_and_imports": round(c.median(boot), 1),
        },
        "text_lines": rendered.count("\n"),
        "pending_promotions": len(d.pending_promotions),
        "duplicate_groups": len(d.duplicates),
        "ttl_reminders": len(d.ttl_reminders),
        "top_triggers": len(d.trends.top_triggers),
        "recall_hot": len(d.trends.recall_hot),
        "month_llm_calls": d.spend.month.calls,
    }


# -- DURA tokens -----------------------------------------------------------------------
# The project's long-term memories (type | title | triggers): what `Analyzer`
# lists as "existing" (the ones a session's title and triggers find, at most 15).
EXISTING = """
decision | Billing exports stream invoices in batches of 500 | billing export batch
decision | The finance CSV export header must not change | csv finance header
warning | Do not deploy billing on Fridays | billing deploy friday
fact | Billing tests need the fake payment gateway | billing tests gateway
decision | User sessions live in Redis with a 24h TTL | sessions redis ttl
fact | Redis runs as a three-node Sentinel cluster in production | redis sentinel failover
playbook | Run a Postgres migration without downtime | postgres migration downtime
decision | 订单服务使用 PostgreSQL 14，读写分离 | 订单 postgres 读写分离
warning | 大表加索引前先在预发环境验证 | 索引 预发 锁表
fact | CI runs on GitHub Actions with four pytest shards | ci github actions shards
preference | Use freezegun for anything that touches dates in tests | freezegun tests dates
playbook | Release checklist for the shop backend | release checklist
decision | HTTP calls go through src/common/http.py, not requests | http client requests
fact | Pydantic is pinned to v1 because of the legacy admin module | pydantic v1 admin
preference | Use uv, not pip, for dependency changes | uv pip dependencies
fact | Docker images are built with buildx on CI | docker buildx ci
warning | Invoice due dates are timezone sensitive | invoice due date timezone
fact | Coverage settings live in pyproject.toml | coverage pyproject
playbook | 排查慢查询：先 EXPLAIN ANALYZE，再看索引 | 慢查询 explain 索引
decision | Feature flags live in LaunchDarkly, not config files | feature flags launchdarkly
"""


def _clock(start: datetime, step: int = 9) -> Callable[[], str]:
    t = start

    def ts() -> str:
        nonlocal t
        t += timedelta(seconds=step)
        return t.isoformat().replace("+00:00", "Z")

    return ts


Maker = Callable[[c.Transcript, Callable[[], str], Path], None]


def s_quick_question(tr: c.Transcript, ts: Callable[[], str], p: Path) -> None:
    tr.user(
        "What's the command to run only the billing tests with coverage, and where does the report go?", ts()
    )
    tid = tr.tool_use("Bash", {"command": "grep -n -A6 'tool.coverage' pyproject.toml"}, ts())
    tr.tool_result(
        tid,
        '[tool.coverage.run]\nsource = ["src"]\nomit = ["src/*/migrations/*"]\n'
        '[tool.coverage.html]\ndirectory = "htmlcov"',
        ts(),
    )
    tr.assistant(
        "Run `pytest tests/billing --cov=src/billing --cov-report=html`. The HTML report lands in "
        "`htmlcov/index.html`; migrations are already omitted by `[tool.coverage.run]` in pyproject.toml.",
        ts(),
    )
    tr.user("thanks", ts())
    tr.assistant("You're welcome.", ts())


def s_design_decision(tr: c.Transcript, ts: Callable[[], str], p: Path) -> None:
    tr.user(
        "We keep user sessions in Redis with a 24h TTL, but twice this month a Sentinel failover logged "
        "everyone out. I'm thinking of moving sessions to Postgres. We have about 40k active users and "
        "peak at 600 logins a minute. Thoughts?",
        ts(),
    )
    tr.assistant(
        "Postgres can carry that easily: 600 logins a minute is 10 inserts a second, and session reads "
        "are primary-key lookups. What you gain is durability across failovers and one less system in "
        "the login path. What you pay is a read on every authenticated request: at your traffic that is "
        "roughly 2-3k reads a second at peak, which a primary handles but which adds latency (1-2 ms) "
        "compared with Redis. Expired rows need a cleanup job, e.g. a nightly DELETE with an index on "
        "expires_at. A middle ground is to keep Redis as a read-through cache in front of the table.",
        ts(),
    )
    tr.user("What happens on a Redis failover if Redis is only a cache?", ts())
    tr.assistant(
        "Only cache misses: requests fall through to Postgres for a few seconds until Redis is back, and "
        "nobody is logged out, because the session row is the truth. Keep the cache TTL short (5 minutes) "
        "so a revoked session stops working quickly, and delete the cache key on logout.",
        ts(),
    )
    tr.user(
        "OK, decided: Postgres is the source of truth for sessions, Redis only a read-through cache with a "
        "5 minute TTL. Write that down as an ADR.",
        ts(),
    )
    adr = p / "docs" / "adr" / "0012-sessions-in-postgres.md"
    tid = tr.tool_use("Write", {"file_path": str(adr), "content": "# 12. Sessions in Postgres\n..."}, ts())
    tr.tool_result(tid, f"File created successfully at: {adr}", ts())
    tr.assistant(
        "ADR 0012 is written: sessions move to a Postgres table (id, user_id, expires_at, data), Redis "
        "becomes a read-through cache with a 5 minute TTL, logout deletes both, and a nightly job purges "
        "expired rows. It supersedes the 2024 decision to keep sessions in Redis.",
        ts(),
    )


def s_zh_slow_query(tr: c.Transcript, ts: Callable[[], str], p: Path) -> None:
    tr.user("订单列表接口 /api/orders 在大客户账号下要 8 秒才返回，帮我查一下是不是慢查询。", ts())
    tid = tr.tool_use("Read", {"file_path": str(p / "src/orders/repository.py")}, ts(), "先看一下查询代码。")
    tr.tool_result(
        tid,
        "def list_orders(tenant_id, limit=50, offset=0):\n"
        "    return db.query(Order).filter(Order.tenant_id == "
        "tenant_id).order_by(Order.created_at.desc()).limit(limit).offset(offset).all()\n",
        ts(),
    )
    query = "SELECT * FROM orders WHERE tenant_id = 42 ORDER BY created_at DESC LIMIT 50"
    cmd = f'psql shop -c "EXPLAIN ANALYZE {query}"'
    tid = tr.tool_use("Bash", {"command": cmd}, ts())
    tr.tool_result(
        tid,
        "Limit  (cost=412337.10..412337.22 rows=50)\n  ->  Sort  (cost=412337.10..418012.55 rows=2270180)\n"
        "        Sort Key: created_at DESC\n        ->  Seq Scan on orders  (rows=2270180)\n"
        "              Filter: (tenant_id = 42)\nExecution Time: 8213.442 ms",
        ts(),
    )
    tr.assistant(
        "找到原因了：orders 表没有 (tenant_id, created_at) 的复合索引，按租户过滤再按时间排序时走了全表扫描，"
        "扫描了 227 万行，耗时 8.2 秒。建议加索引 (tenant_id, created_at DESC)。",
        ts(),
    )
    tr.user("加上索引，写成迁移，别锁表。", ts())
    mig = p / "migrations/versions/0042_orders_tenant_created_idx.py"
    tid = tr.tool_use(
        "Write",
        {"file_path": str(mig), "content": "op.create_index(..., postgresql_concurrently=True)"},
        ts(),
    )
    tr.tool_result(tid, f"File created successfully at: {mig}", ts())
    tid = tr.tool_use("Bash", {"command": "alembic upgrade head"}, ts())
    tr.tool_result(
        tid, "INFO  [alembic.runtime.migration] Running upgrade 0041 -> 0042, orders tenant index", ts()
    )
    tid = tr.tool_use("Bash", {"command": cmd}, ts())
    tr.tool_result(
        tid,
        "Limit  (rows=50)\n  ->  Index Scan using ix_orders_tenant_created on orders  (rows=50)\n"
        "Execution Time: 0.412 ms",
        ts(),
    )
    tr.assistant(
        "迁移已加好，用 CREATE INDEX CONCURRENTLY（迁移里 postgresql_concurrently=True，并放在事务外执行），"
        "不会锁表。大客户账号下接口从 8.2 秒降到 120 毫秒。",
        ts(),
    )
    tr.user("好，以后所有大表加索引都用 CONCURRENTLY，记住这一点。", ts())
    tr.assistant("记住了：大表加索引一律用 CREATE INDEX CONCURRENTLY，迁移要在事务外单独执行。", ts())


def s_ci_flake(tr: c.Transcript, ts: Callable[[], str], p: Path) -> None:
    tr.user(
        "test_invoice_due_dates fails on CI about one run in five but never locally. Can you find out why?",
        ts(),
    )
    tid = tr.tool_use("Bash", {"command": "gh run view 8812 --log-failed | tail -20"}, ts())
    tr.tool_result(
        tid,
        "tests/billing/test_due_dates.py::test_invoice_due_dates FAILED\n"
        "    assert invoice.due_date == date.today() + timedelta(days=30)\n"
        "E   AssertionError: assert datetime.date(2025, 7, 31) == datetime.date(2025, 8, 1)\n"
        "1 failed, 611 passed in 212.4s",
        ts(),
        is_error=True,
    )
    tid = tr.tool_use("Grep", {"pattern": "datetime.now|date.today", "path": str(p / "src/billing")}, ts())
    tr.tool_result(tid, "src/billing/invoices.py:88:    issued = datetime.now(UTC)\n", ts())
    tid = tr.tool_use("Read", {"file_path": str(p / "tests/billing/test_due_dates.py")}, ts())
    tr.tool_result(
        tid, "def test_invoice_due_dates(tenant):\n    invoice = issue(tenant)\n    assert ...\n", ts()
    )
    tr.assistant(
        "The code stamps invoices with datetime.now(UTC) while the test expects date.today() in local "
        "time. CI runs in UTC and the nightly job starts near midnight, so the two days differ whenever a "
        "run crosses midnight. Freezing the clock fixes the test for good.",
        ts(),
    )
    test = p / "tests/billing/test_due_dates.py"
    tid = tr.tool_use(
        "Edit",
        {"file_path": str(test), "old_string": "def test_invoice", "new_string": "@freeze_time(...)"},
        ts(),
    )
    tr.tool_result(tid, "The file has been updated.", ts())
    tid = tr.tool_use("Bash", {"command": "pytest tests/billing/test_due_dates.py --count 50 -q"}, ts())
    tr.tool_result(tid, "50 passed in 4.1s", ts())
    tr.assistant("Fixed with freeze_time('2025-07-31 23:59:30'); 50 runs in a row pass.", ts())
    tr.user("Add a line to CONTRIBUTING that tests must never read the wall clock.", ts())
    tid = tr.tool_use(
        "Edit", {"file_path": str(p / "CONTRIBUTING.md"), "old_string": "## Tests", "new_string": "..."}, ts()
    )
    tr.tool_result(tid, "The file has been updated.", ts())
    tr.assistant(
        "Added under Tests: never call datetime.now() or date.today() in a test; freeze the clock.", ts()
    )


def s_long_refactor(tr: c.Transcript, ts: Callable[[], str], p: Path) -> None:
    mods = [
        f"src/{a}/{b}.py"
        for a in ("billing", "orders", "users", "search", "notify")
        for b in ("client", "sync", "webhooks", "export", "jobs")
    ]
    tr.user(
        "Replace every direct use of requests with our http client in src/common/http.py, module by module, "
        "and keep the tests green after each one.",
        ts(),
    )
    for i, mod in enumerate(mods):
        tid = tr.tool_use("Grep", {"pattern": "requests\\.", "path": str(p / mod)}, ts())
        tr.tool_result(
            tid,
            f"{mod}:14:    resp = requests.get(url, timeout=5)\n{mod}:31:    requests.post(hook, json=body)",
            ts(),
        )
        tid = tr.tool_use(
            "Edit",
            {
                "file_path": str(p / mod),
                "old_string": "requests.get(url, timeout=5)",
                "new_string": "http.get(url)",
            },
            ts(),
        )
        tr.tool_result(tid, "The file has been updated.", ts())
        tid = tr.tool_use("Bash", {"command": f"pytest tests/{mod.split('/')[1]} -q"}, ts())
        broken = i % 7 == 3
        tr.tool_result(
            tid,
            "FAILED test_retry - TypeError: get() got an unexpected keyword argument 'timeout'"
            if broken
            else "38 passed in 2.2s",
            ts(),
            is_error=broken,
        )
        tr.assistant(
            f"{mod} now goes through http.get/http.post, which adds the retry policy and the trace header; "
            + (
                "the test passed a timeout keyword, so I moved it into the client's defaults."
                if broken
                else "tests pass."
            ),
            ts(),
        )
        if i % 6 == 5:
            tr.user(f"Looks good, continue. Don't touch {mods[i][:-3]}_legacy.py, it is going away.", ts())
    tid = tr.tool_use("Bash", {"command": "ruff check src && pytest -q"}, ts())
    tr.tool_result(tid, "All checks passed!\n1204 passed in 98.1s", ts())
    tr.assistant(
        "All 25 modules use src/common/http.py now; ruff is clean and the full suite passes (1204 tests).",
        ts(),
    )


def s_dependency_upgrade(tr: c.Transcript, ts: Callable[[], str], p: Path) -> None:
    tr.user("Upgrade pydantic to v2 now that the legacy admin module is gone.", ts())
    tid = tr.tool_use("Bash", {"command": "uv lock --upgrade-package pydantic && uv sync"}, ts())
    tr.tool_result(
        tid,
        "Resolved 84 packages in 1.2s\n - pydantic==1.10.17\n + pydantic==2.9.2\n + pydantic-core==2.23.4",
        ts(),
    )
    tid = tr.tool_use("Bash", {"command": "pytest -q -x"}, ts())
    tr.tool_result(
        tid,
        "ImportError while importing test module tests/users/test_models.py\n"
        "E   ImportError: cannot import name 'validator' from 'pydantic'\n1 error in 3.2s",
        ts(),
        is_error=True,
    )
    for f in ("src/users/models.py", "src/billing/schemas.py", "src/orders/schemas.py"):
        tid = tr.tool_use(
            "Edit",
            {"file_path": str(p / f), "old_string": "@validator", "new_string": "@field_validator"},
            ts(),
        )
        tr.tool_result(tid, "The file has been updated.", ts())
    tid = tr.tool_use("Bash", {"command": "pytest -q"}, ts())
    tr.tool_result(
        tid,
        "12 failed, 1192 passed\nE   AttributeError: 'Invoice' object has no attribute 'dict'",
        ts(),
        is_error=True,
    )
    tr.assistant(
        "Three modules used v1 validators and .dict(); moving them to field_validator and model_dump.", ts()
    )
    tid = tr.tool_use(
        "Bash",
        {"command": "rg -l '\\.dict\\(' src | xargs sed -i 's/\\.dict(/.model_dump(/g' && pytest -q"},
        ts(),
    )
    tr.tool_result(tid, "1204 passed in 97.5s", ts())
    tr.assistant(
        "pydantic is on 2.9.2: validators moved to field_validator, .dict() to model_dump(), and the whole "
        "suite passes. The pin comment in pyproject.toml about the admin module is gone too.",
        ts(),
    )


def s_mixed_ci_cache(tr: c.Transcript, ts: Callable[[], str], p: Path) -> None:
    tr.user("帮我把 CI 里的 docker build 加上缓存，现在每次都要 12 分钟。", ts())
    wf = p / ".github/workflows/ci.yml"
    tid = tr.tool_use("Read", {"file_path": str(wf)}, ts())
    tr.tool_result(
        tid,
        "      - name: Build image\n"
        "        run: docker buildx build -t ghcr.io/shop/backend:${{ github.sha }} .\n",
        ts(),
    )
    tr.assistant(
        "现在的构建没有用任何缓存，每次都从基础镜像重新装依赖。可以用 buildx 的 GitHub Actions 缓存后端。",
        ts(),
    )
    tid = tr.tool_use(
        "Edit",
        {
            "file_path": str(wf),
            "old_string": "docker buildx build",
            "new_string": "docker buildx build --cache-from type=gha --cache-to type=gha,mode=max",
        },
        ts(),
    )
    tr.tool_result(tid, "The file has been updated.", ts())
    tid = tr.tool_use("Bash", {"command": "gh workflow run ci.yml && gh run watch"}, ts())
    tr.tool_result(tid, "✓ build in 2m58s (cache hit: 31 of 34 layers)", ts())
    tr.user("Dockerfile 里依赖那一层也要放在拷代码之前吧？", ts())
    tid = tr.tool_use(
        "Edit",
        {
            "file_path": str(p / "Dockerfile"),
            "old_string": "COPY . .",
            "new_string": "COPY pyproject.toml uv.lock ./\nRUN uv sync\nCOPY . .",
        },
        ts(),
    )
    tr.tool_result(tid, "The file has been updated.", ts())
    tr.assistant(
        "对，已经把依赖安装挪到 COPY . . 之前。现在只改代码时构建 2 分 10 秒，改依赖时约 6 分钟。", ts()
    )


SESSIONS: dict[str, Maker | None] = {
    "bugfix with tools (hook_latency's transcript)": None,
    "one quick question": s_quick_question,
    "design decision, long answers": s_design_decision,
    "慢查询 (Chinese, tools)": s_zh_slow_query,
    "flaky CI test": s_ci_flake,
    "25-module refactor": s_long_refactor,
    "dependency upgrade with errors": s_dependency_upgrade,
    "mixed Chinese/English, CI cache": s_mixed_ci_cache,
}


def dura_prompt(store: Store, config: Config, doc: Document) -> Prompt:
    """What `Analyzer` sends for a session (its _existing and _prompt, through public calls;
    the real call below checks the request it sent is exactly this)."""
    hits = search.search(
        store,
        " ".join([doc.meta.title, *doc.meta.triggers]),
        scopes=[doc.meta.scope_hash],
        types=[t.value for t in LONG_TERM_TYPES],
        limit=analyze.EXISTING_LIMIT,
        include_forgotten=False,
    )
    return prompts.render(
        analyze.PROMPT,
        body=tokens.trim(doc.body, config.llm.max_input_tokens),
        existing="\n".join(f"{h.slug}: {h.title}" for h in hits) or "(none)",
    )


def measure_dura(work: Path) -> dict[str, Any]:
    project = work / "shop"
    project.mkdir(parents=True)
    app = Memoryd(layout=Layout(work / "home"), config=Config())
    existing = [line.split(" | ") for line in EXISTING.strip().splitlines()]
    for mtype, title, triggers in existing:
        app.record(mtype, title, f"{title}.", triggers=triggers.split(), scope_path=project, actor="bench")
    store, config = app.store, app.config
    start = NOW - timedelta(hours=6)
    captured: dict[str, str] = {}
    for i, (name, make) in enumerate(SESSIONS.items()):
        sid = f"dura-{i}"
        where = work / "transcripts" / sid
        if make is None:
            path = hook_latency.make_transcript(where, project, sid)
        else:
            tr = c.Transcript(where / "transcript.jsonl", sid, str(project))
            make(tr, _clock(start + timedelta(minutes=40 * i)), project)
            path = tr.write()
        captured[name] = process(store, config, c.capture_record(f"payload-{sid}", sid, path, project))

    recorded = json.loads(RECORDED.read_text(encoding="utf-8"))
    usage = recorded["body"]["usage"]
    out_tokens = int(usage["output_tokens"])
    rows, sent_prompts = [], {}
    for name, slug in captured.items():
        doc, path = store.read(slug)
        prompt = dura_prompt(store, config, doc)
        sent_prompts[name] = prompt
        est = tokens.estimate(prompt.system + prompt.user)
        rows.append(
            {
                "session": name,
                "turns": len(store.files.read_turns(path)),
                "body_tokens": tokens.estimate(doc.body),
                "trimmed": tokens.estimate(doc.body) > config.llm.max_input_tokens,
                "existing": 0
                if "(none)" in prompt.user
                else prompt.user.split("\n\nSession:")[0].count("\n"),
                "input_tokens_est": est,
                "output_tokens": out_tokens,
                "total": est + out_tokens,
                "ceiling": est + prompt.max_output_tokens,
            }
        )

    # One real call: Analyzer -> anthropic SDK -> httpx.MockTransport serving the recording.
    requests: list[dict[str, Any]] = []

    def serve(request: httpx.Request) -> httpx.Response:
        requests.append(json.loads(request.read()))
        body = json.dumps(recorded["body"]).encode()
        return httpx.Response(recorded["status"], headers=recorded["headers"], content=body)

    typical = next(iter(SESSIONS))
    analyzer = analyze.Analyzer(
        store,
        config,
        actor="bench",
        env={"ANTHROPIC_API_KEY": "sk-ant-bench-not-a-key"},
        transport=httpx.MockTransport(serve),
    )
    result = analyzer.session(captured[typical])
    ledger = spend.report(store, config.llm).today
    sent = sent_prompts[typical]
    request = requests[0] if requests else {}
    matches = (
        len(requests) == 1
        and request.get("system") == sent.system
        and request.get("messages") == [{"role": "user", "content": sent.user}]
    )
    store.engine.dispose()
    totals = [r["total"] for r in rows]
    return {
        "target_tokens": TARGET_DURA_TOKENS,
        "model": config.llm.model,
        "max_input_tokens": config.llm.max_input_tokens,
        "max_output_tokens": sent.max_output_tokens,
        "existing_memories": len(existing),
        "sessions": rows,
        "median_total": c.median(totals),
        "max_total": max(totals),
        "max_ceiling": max(r["ceiling"] for r in rows),
        "recorded_usage": {"input_tokens": int(usage["input_tokens"]), "output_tokens": out_tokens},
        "real_call": {
            "session": typical,
            "status": result.status,
            "by": result.by,
            "mean": result.mean,
            "promotion": result.promotion,
            "tokens": result.tokens,
            "request_is_rendered_prompt": matches,
            "ledger": {
                "calls": ledger.calls,
                "input_tokens": ledger.input_tokens,
                "output_tokens": ledger.output_tokens,
                "tokens": ledger.tokens,
                "cost_usd": ledger.cost_usd,
                "usd_per_1000_sessions": round(1000 * ledger.cost_usd, 2) if ledger.cost_usd else None,
            },
        },
    }


# -- driver ----------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="2,000 memories, one run of each")
    ap.add_argument("--size", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=3, help="sweeps of each kind (fresh copy each)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    size = 2000 if args.quick else args.size
    runs, first_runs, digest_runs, cli_n = (1, 1, 2, 2) if args.quick else (args.runs, 1, 5, 5)
    os.environ["MEMORYD_NOW"] = clock.iso(NOW)  # pins sweep, digest, spend and capture alike

    home, store_info = build_home(size)
    unswept, derive_s = unswept_home(home)
    store_info["unswept_derived_s"] = round(derive_s, 1) if derive_s is not None else None
    sweep = measure_sweep(home, unswept, runs, first_runs)
    dig = measure_digest(home, digest_runs, cli_n)
    work = c.temp_dir("dura")
    try:
        dura = measure_dura(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    result = {
        "benchmark": "governance",
        "quick": args.quick,
        "now": clock.iso(NOW),
        "store": store_info,
        "sweep": sweep,
        "digest": dig,
        "dura": dura,
    }
    return c.finish(result, args.json, lambda: print_text(result))


def print_text(r: dict[str, Any]) -> None:
    st, sw, dg, du = r["store"], r["sweep"], r["digest"], r["dura"]
    print(
        f"store: {st['memories']:,} memories ({st['sessions']:,} sessions, {st['long_term']:,} long-term, "
        f"{st['long_term_with_ttl']:,} of them with ttl_days); states {st['states']}; "
        f"{'cached' if st['cached'] else 'generated'} ({st['generated_s']} s to generate)"
    )
    for key, label in (("daily", "daily sweep"), ("dry_run", "dry run"), ("first_sweep", "first sweep ever")):
        s = sw[key]
        print(
            f"  {label:<17} {s['s']:>8.3f} s  {s['transitions']:>6,} transitions {s['counts']}  "
            f"query {s['query_s']:.3f} s, fade {s['fade_ms_each']:.2f} ms each, "
            f"archive {s['archive_ms_each']:.2f} ms each, {s['connections']} connections  "
            f"(median of {s['runs']})"
        )
    verdict = "ok" if sw["daily"]["s"] <= TARGET_SWEEP_S else "MISSED"
    print(f"  expected daily transitions {st['expected_daily']}; target daily sweep <= 3 s: {verdict}")
    print(
        f"digest: build {dg['build_ms']} ms + render {dg['render_ms']} ms = {dg['total_ms']} ms (median of "
        f"{dg['runs']}; first in process {dg['first_in_process_ms']} ms); cold CLI --json "
        f"{dg['cli_cold_ms']['median']} ms; {dg['pending_promotions']} pending, {dg['duplicate_groups']} "
        f"duplicate groups, {dg['ttl_reminders']} TTL reminders; target <= 1 s: "
        f"{'ok' if dg['total_ms'] <= 1000 * TARGET_DIGEST_S else 'MISSED'}"
    )
    for row in du["sessions"]:
        print(
            f"  {row['session']:<46} body {row['body_tokens']:>5} tok{' (cut)' if row['trimmed'] else '':<6} "
            f"input ~{row['input_tokens_est']:>5} + output {row['output_tokens']} = {row['total']}"
        )
    rc = du["real_call"]
    print(
        f"DURA per session: median {du['median_total']}, max {du['max_total']} tokens (target <= "
        f"{du['target_tokens']}); real call {rc['status']} by {rc['by']}, ledger {rc['ledger']}, "
        f"request == rendered prompt: {rc['request_is_rendered_prompt']}"
    )


if __name__ == "__main__":
    sys.exit(main())
