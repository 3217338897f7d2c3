"""The decay state machine walked with MEMORYD_NOW through the real CLI."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from memoryd import clock
from memoryd.app import Memoryd
from memoryd.config import Config, DecayConfig
from memoryd.governance import decay

from .sessions import ROUTINE, capture

T0 = datetime(2026, 1, 1, 12, 0, 0, tzinfo=clock.UTC)


def at(days: float) -> dict[str, str]:
    return {"MEMORYD_NOW": clock.iso(T0 + timedelta(days=days))}


def _sweep(cli, days: float, *extra: str) -> dict:
    out = cli("decay-sweep", "--json", *extra, env=at(days))
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def _state(cli, slug: str) -> str | None:
    rows = json.loads(cli("list", "--all-scopes", "--include-forgotten", "--json").stdout)
    return next((r["decay_state"] for r in rows if r["slug"] == slug), None)


def _moves(report: dict) -> list[tuple[str, str, str]]:
    return [(t["slug"], t["from_state"], t["to_state"]) for t in report["transitions"]]


def test_session_walks_every_state_and_a_recall_resets_it(
    cli, project: Path, tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("MEMORYD_NOW", clock.iso(T0))
    slug = capture(cli, project, tmp_path, "decay-1", [("Deploy the staging box with ansible", "Done.")])
    fact, _ = Memoryd().record("fact", "Staging is on host db-2", "db-2", scope_path=project)
    monkeypatch.delenv("MEMORYD_NOW")

    assert _moves(_sweep(cli, 89)) == []
    assert _moves(_sweep(cli, 90)) == [(slug, "alive", "dim")]
    assert _moves(_sweep(cli, 90)) == []  # idempotent: the same day again changes nothing
    assert _state(cli, slug) == "dim"
    # dim stays searchable; a hit is a recall and brings it back to alive.
    hits = json.loads(
        cli(
            "search", "ansible deploy", "--mode", "keyword", "--scope", str(project), "--json", env=at(100)
        ).stdout
    )
    assert [h["slug"] for h in hits] == [slug] and hits[0]["decay_state"] == "dim"
    assert _state(cli, slug) == "alive"
    assert "decay_state: alive" in next(isolated_home.glob(f"scopes/*/sessions/{slug}.md")).read_text()

    # Counting again from the recall on day 100.
    assert _moves(_sweep(cli, 189)) == []
    assert _moves(_sweep(cli, 190)) == [(slug, "alive", "dim")]
    assert _moves(_sweep(cli, 220)) == [(slug, "dim", "soft-forgotten")]
    # soft-forgotten: hidden from search unless asked for.
    query = ("search", "ansible deploy", "--mode", "keyword", "--scope", str(project), "--json")
    assert json.loads(cli(*query, env=at(221)).stdout) == []
    assert _state(cli, slug) == "soft-forgotten"
    # dry run names the next step and changes nothing.
    dry = _sweep(cli, 310, "--dry-run")
    assert dry["dry_run"] and _moves(dry) == [(slug, "soft-forgotten", "forgotten")]
    assert _state(cli, slug) == "soft-forgotten"
    assert _moves(_sweep(cli, 310)) == [(slug, "soft-forgotten", "forgotten")]
    archived = list(isolated_home.glob(f"scopes/*/forgotten/{slug}.md"))
    assert archived and "decay_state: forgotten" in archived[0].read_text()
    assert list(isolated_home.glob(f"scopes/*/forgotten/{slug}.turns.jsonl"))
    assert not list(isolated_home.glob(f"scopes/*/sessions/{slug}*"))
    assert _state(cli, slug) is None  # the row is gone
    assert json.loads(cli(*query, "--include-forgotten", env=at(311)).stdout) == []
    # Long-term memory without a ttl never decays.
    assert _state(cli, fact.meta.slug) == "alive"
    assert _moves(_sweep(cli, 2000)) == []
    # Every move is audited and the chain holds; doctor and reindex agree.
    events = json.loads(cli("audit", "--event-type", "decay", "--json").stdout)
    moves = [json.loads(e["details"])["moves"] for e in events]
    assert [m[0][1:] for m in moves] == [
        ["alive", "dim"],
        ["alive", "dim"],
        ["dim", "soft-forgotten"],
        ["soft-forgotten", "forgotten"],
    ], moves
    assert cli("audit", "verify").returncode == 0
    assert cli("doctor").returncode == 0
    assert cli("reindex").returncode == 0 and _state(cli, slug) is None


def test_get_is_a_recall(cli, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("MEMORYD_NOW", clock.iso(T0))
    slug = capture(cli, project, tmp_path, "decay-2", [ROUTINE])
    monkeypatch.delenv("MEMORYD_NOW")
    _sweep(cli, 90)
    _sweep(cli, 120)
    assert _state(cli, slug) == "soft-forgotten"
    assert cli("get", slug, env=at(121)).returncode == 0
    assert _state(cli, slug) == "alive"


def test_long_term_with_ttl_decays_and_thresholds_come_from_config(
    cli, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    (tmp_path / "config.toml").write_text("[decay]\ndim_after_days = 10\nsoft_forget_after_days = 5\n")
    monkeypatch.setenv("MEMORYD_NOW", clock.iso(T0))
    slug = capture(cli, project, tmp_path, "decay-3", [ROUTINE])
    app = Memoryd()
    doc, _ = app.record("warning", "Flaky on CI", "flaky", scope_path=project)
    doc.meta.ttl_days = 30
    app.store.save(doc, event="update", actor="test")
    monkeypatch.delenv("MEMORYD_NOW")
    # The session's own frontmatter says ttl_days 90: the per-memory ttl wins over the default.
    assert Memoryd().store.row(slug)["ttl_days"] == 90
    assert _moves(_sweep(cli, 30)) == [(doc.meta.slug, "alive", "dim")]
    assert _moves(_sweep(cli, 35)) == [(doc.meta.slug, "dim", "soft-forgotten")]


def test_one_step_per_sweep_and_an_interrupted_sweep_finishes_next_time(
    project: Path, tmp_path: Path, cli, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("MEMORYD_NOW", clock.iso(T0))
    slugs = [capture(cli, project, tmp_path, f"decay-b{i}", [ROUTINE]) for i in range(3)]
    monkeypatch.setenv("MEMORYD_NOW", clock.iso(T0 + timedelta(days=400)))
    app = Memoryd(config=Config(decay=DecayConfig()))

    # The audit append fails after the files were written: nothing in the index changed.
    real = app.store.audit.append
    calls = {"n": 0}

    def failing(*a, **kw):
        calls["n"] += 1
        raise OSError("disk full")

    monkeypatch.setattr(app.store.audit, "append", failing)
    with pytest.raises(OSError):
        decay.sweep(app.store, app.config.decay)
    assert calls["n"] == 1
    assert {app.store.row(s)["decay_state"] for s in slugs} == {"alive"}
    monkeypatch.setattr(app.store.audit, "append", real)

    # Run again: every memory moves exactly one step, although 400 idle days is past them all.
    rep = decay.sweep(app.store, app.config.decay)
    assert sorted((t.slug, t.to_state) for t in rep.transitions) == sorted((s, "dim") for s in slugs)
    assert {app.store.row(s)["decay_state"] for s in slugs} == {"dim"}
    assert {app.store.read(s)[0].meta.decay_state.value for s in slugs} == {"dim"}
    assert app.audit_verify().ok
