"""With no API key at all, capture -> analyze -> digest -> promote works on the rules."""

from __future__ import annotations

import json
import time
from pathlib import Path

from memoryd.app import Memoryd
from memoryd.testing import claude_exchange, stop_payload, write_jsonl

from .sessions import REMEMBER, ROUTINE, capture


def _wait_for(pred, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = pred()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError("timed out waiting")


def test_capture_analyze_digest_promote_without_any_key(
    cli, project: Path, tmp_path: Path, isolated_home: Path
):
    # The hook spawns the real detached worker, which captures and then analyses.
    sid = "5a1f0c3e-7b2d-4e6f-8a9b-0c1d2e3f4a5b"
    lines = claude_exchange(*REMEMBER, session_id=sid, cwd=str(project))
    transcript = write_jsonl(tmp_path / "t.jsonl", lines)
    out = cli("capture", "--source=claude-code", stdin=stop_payload(sid, transcript, project), cwd=project)
    assert out.returncode == 0, out.stderr

    def queued():
        res = cli("digest", "--json")
        assert res.returncode == 0, res.stderr
        data = json.loads(res.stdout)
        return data if data["pending_promotions"] else None

    digest = _wait_for(queued)
    (pending,) = digest["pending_promotions"]
    assert pending["proposed_type"] == "preference"
    assert pending["mean"] >= 0.6
    assert pending["reasoning"].startswith(
        "rule-scored (no API key: ANTHROPIC_API_KEY is not set and none is in the OS keyring)"
    )
    assert "pnpm" in pending["body"]

    session_slug = pending["session_slug"]
    session = Memoryd().store.read(session_slug)[0].meta
    assert session.dura_score == {k: pending["dura"][k] for k in "DURA"}
    assert session.extras["analysis"]["by"] == "rules"

    assert json.loads(cli("stats", "--json").stdout)["promotions_pending"] == 1  # the tray's badge
    res = cli("promote", str(pending["id"]), "--json")
    assert res.returncode == 0, res.stderr
    assert json.loads(cli("stats", "--json").stdout)["promotions_pending"] == 0
    promoted = json.loads(res.stdout)
    assert promoted["slug"].startswith(f"promoted-{pending['id']}-")
    files = list(isolated_home.glob(f"scopes/*/preferences/{promoted['slug']}.md"))
    assert len(files) == 1
    text = files[0].read_text()
    assert f"promoted_from: {session_slug}" in text and "pnpm" in text

    # Searchable as long-term memory; queue and audit agree.
    hits = json.loads(
        cli("search", "pnpm lockfile", "--mode", "keyword", "--scope", str(project), "--json").stdout
    )
    assert hits[0]["slug"] == promoted["slug"] and hits[0]["type"] == "preference"
    assert json.loads(cli("promotions", "--status", "pending", "--json").stdout) == []
    (approved,) = json.loads(cli("promotions", "--status", "approved", "--json").stdout)
    assert approved["decided_at"]
    events = [e["event_type"] for e in json.loads(cli("audit", "--json").stdout)]
    assert events[:2] == ["capture", "promotion_queued"] or "promotion_queued" in events
    assert {"capture", "analyze", "promotion_queued", "promote"} <= set(events)
    assert cli("audit", "verify").returncode == 0
    # No LLM was called, and stats says so.
    stats = json.loads(cli("stats", "--json").stdout)
    assert stats["llm"]["today"]["tokens"] == 0 and stats["llm"]["today"]["calls"] == 0


def test_routine_session_is_scored_but_not_queued(cli, project: Path, tmp_path: Path):
    slug = capture(cli, project, tmp_path, "routine-1", [ROUTINE])
    res = cli("analyze-session", slug, "--json")
    assert res.returncode == 0, res.stderr
    a = json.loads(res.stdout)
    assert a["status"] == "scored" and a["mean"] < 0.6 and a["promotion_id"] is None
    assert json.loads(cli("promotions", "--json").stdout) == []
    # Analysing again changes nothing and says so.
    again = json.loads(cli("analyze-session", slug, "--json").stdout)
    assert again["status"] == "skipped"


def test_reanalysis_never_queues_a_second_promotion(cli, project: Path, tmp_path: Path):
    slug = capture(cli, project, tmp_path, "remember-1", [REMEMBER])
    first = json.loads(cli("analyze-session", slug, "--json").stdout)
    assert first["promotion"] == "queued"
    forced = json.loads(cli("analyze-session", slug, "--force", "--json").stdout)
    assert forced["promotion"] == "updated" and forced["promotion_id"] == first["promotion_id"]
    # A re-capture with more content is analysed again and refreshes the same promotion.
    capture(cli, project, tmp_path, "remember-1", [REMEMBER, ("also remember: node 22", "Noted.")])
    pending = json.loads(cli("analyze-pending", "--json").stdout)
    assert [p["slug"] for p in pending] == [slug] and pending[0]["promotion"] == "updated"
    assert len(json.loads(cli("promotions", "--json").stdout)) == 1
    # Once rejected, the session never comes back to the queue.
    assert cli("reject", str(first["promotion_id"]), "--reason", "already in README").returncode == 0
    redo = json.loads(cli("analyze-session", slug, "--force", "--json").stdout)
    assert redo["promotion"] == "decided"
    assert json.loads(cli("promotions", "--status", "pending", "--json").stdout) == []
    (reject_event,) = json.loads(cli("audit", "--event-type", "reject", "--json").stdout)
    assert json.loads(reject_event["details"])["reason"] == "already in README"


def test_reindex_keeps_scores_and_requeues_lost_proposals(
    cli, project: Path, tmp_path: Path, isolated_home: Path
):
    slug = capture(cli, project, tmp_path, "remember-2", [REMEMBER])
    routine = capture(cli, project, tmp_path, "routine-2", [ROUTINE])
    assert cli("analyze-pending").returncode == 0
    before = json.loads(cli("digest", "--json").stdout)["pending_promotions"]
    assert [p["session_slug"] for p in before] == [slug]
    (isolated_home / "index.db").unlink()
    for suffix in ("-wal", "-shm"):
        (isolated_home / f"index.db{suffix}").unlink(missing_ok=True)
    out = cli("reindex", "--json")
    assert out.returncode == 0 and json.loads(out.stdout)["requeued"] == 1
    # Scores came back from the frontmatter; only the session whose proposal was lost
    # with the index is analysed again, and its proposal is back in the queue.
    assert Memoryd().store.row(routine)["dura_mean"] is not None
    again = json.loads(cli("analyze-pending", "--json").stdout)
    assert [a["slug"] for a in again] == [slug] and again[0]["promotion"] == "queued", again
    after = json.loads(cli("digest", "--json").stdout)["pending_promotions"]
    assert [(p["session_slug"], p["mean"]) for p in after] == [(slug, before[0]["mean"])]
    # With the index intact, reindex re-queues nothing.
    assert json.loads(cli("reindex", "--json").stdout)["requeued"] == 0


def test_only_sessions_are_analysed(cli, project: Path):
    out = cli(
        "record", "--type", "fact", "--title", "A fact", "--scope", str(project), "--json", stdin="body"
    )
    slug = json.loads(out.stdout)["slug"]
    res = cli("analyze-session", slug)
    assert res.returncode == 2 and "only sessions are analysed" in res.stderr
    assert res.stderr.count("\n") == 1
