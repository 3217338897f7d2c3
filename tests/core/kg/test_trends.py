"""The knowledge graph in the weekly digest: entities named more this week than last,
the supersedes decided this week, and the supersedes that wait for the user."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memoryd.app import Memoryd
from memoryd.governance import digest

NOW = "2026-11-08T09:00:00Z"  # the window is [2026-11-01T09:00, NOW)


def _at(monkeypatch: pytest.MonkeyPatch, when: str) -> None:
    monkeypatch.setenv("MEMORYD_NOW", when)


def _record(monkeypatch: pytest.MonkeyPatch, when: str, project: Path, mtype: str, title: str, body: str):
    _at(monkeypatch, when)
    app = Memoryd()
    doc, _ = app.record(mtype, title, body, scope_path=project)
    assert app.learned is not None and app.learned.by == "rules"
    return doc.meta.slug, app.learned


def _digest(cli, *args: str) -> dict[str, Any]:
    out = cli("digest", "--json", *args)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def _section(text: str, heading: str) -> list[str]:
    """The lines under a heading of the text digest, up to the next heading or blank line."""
    lines = text.splitlines()
    start = lines.index(heading) + 1
    out = []
    for line in lines[start:]:
        if not line.startswith("  "):
            break
        out.append(line)
    return out


# -- rising entities ----------------------------------------------------------------------
@pytest.fixture
def two_weeks(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Last week: Kafka 3, Redis 1. This week: Redis 3, Kafka 1, Grafana 1. Three weeks
    ago (outside both windows): Grafana 4."""
    _record(
        monkeypatch,
        "2026-10-14T09:00:00Z",
        project,
        "fact",
        "Dashboards",
        "Grafana boards. Grafana alerts. More Grafana panels. Grafana again.",
    )
    _record(
        monkeypatch,
        "2026-10-27T09:00:00Z",
        project,
        "fact",
        "Queue",
        "Kafka carries the events. Kafka topics are many. Redis caches them.",
    )
    _record(monkeypatch, "2026-10-28T09:00:00Z", project, "fact", "Queue retention", "Kafka keeps 7 days.")
    _record(
        monkeypatch,
        "2026-11-03T09:00:00Z",
        project,
        "fact",
        "Sessions",
        "Redis holds the sessions. Redis streams feed the search.",
    )
    _record(
        monkeypatch,
        "2026-11-05T09:00:00Z",
        project,
        "fact",
        "Rate limits",
        "Redis counts the requests. Kafka stays for the audit trail.",
    )
    _record(monkeypatch, "2026-11-06T09:00:00Z", project, "fact", "Queue board", "Grafana shows the lag.")
    _at(monkeypatch, NOW)


def test_rising_entities(cli, two_weeks: None):
    d = _digest(cli)
    assert d["since"] == "2026-11-01T09:00:00Z" and d["until"] == NOW
    rising = d["trends"]["rising_entities"]
    assert rising == [
        {"name": "Redis", "kind": "tool", "delta": 2, "id": "entity:tool:redis", "mentions": 3},
        {"name": "Grafana", "kind": "tool", "delta": 1, "id": "entity:tool:grafana", "mentions": 1},
    ]
    assert "entity:tool:kafka" not in {e["id"] for e in rising}  # it fell from 3 to 1

    text = cli("digest")
    assert text.returncode == 0, text.stderr
    lines = _section(text.stdout, "Top entities (rising):")
    assert [line.split() for line in lines] == [["Redis", "+2", "mentions"], ["Grafana", "+1", "mentions"]]


def test_rising_entities_follow_the_window_and_the_scope(
    cli, two_weeks: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    # A week earlier, Kafka was the one rising (3 against none the week before).
    _at(monkeypatch, "2026-11-01T09:00:00Z")
    earlier = _digest(cli)["trends"]["rising_entities"]
    assert [(e["id"], e["delta"], e["mentions"]) for e in earlier] == [
        ("entity:tool:kafka", 3, 3),
        ("entity:tool:redis", 1, 1),
    ]
    _at(monkeypatch, NOW)
    other = tmp_path / "other"
    other.mkdir()
    assert _digest(cli, "--scope", str(other))["trends"]["rising_entities"] == []
    text = cli("digest", "--scope", str(other))
    assert _section(text.stdout, "Top entities (rising):") == ["  none"]


# -- supersedes decided this week ---------------------------------------------------------
def test_recent_supersedes(cli, project: Path, monkeypatch: pytest.MonkeyPatch):
    # Decided two weeks ago: outside the window.
    early_old, _ = _record(
        monkeypatch,
        "2026-10-20T09:00:00Z",
        project,
        "decision",
        "Orders database",
        "We use MySQL for orders.",
    )
    early_new, _ = _record(
        monkeypatch,
        "2026-10-21T09:00:00Z",
        project,
        "decision",
        "Orders storage",
        "Orders live in Cassandra.",
    )
    assert cli("supersede", "link", early_new, early_old).returncode == 0
    # Decided this week, by the rules: an explicit replacement.
    old, _ = _record(
        monkeypatch,
        "2026-10-28T09:00:00Z",
        project,
        "preference",
        "Frontend",
        "I prefer React for the frontend.",
    )
    new, learned = _record(
        monkeypatch,
        "2026-11-04T09:00:00Z",
        project,
        "preference",
        "Frontend again",
        "We switched from React to Solid for the frontend.",
    )
    assert [(j["older"], j["outcome"]) for j in learned.judgements] == [(old, "superseded")]
    _at(monkeypatch, NOW)

    (line,) = _digest(cli)["trends"]["recent_supersedes"]
    assert line["old_slug"] == old and line["new_slug"] == new
    assert line["old_type"] == line["new_type"] == "preference"
    assert line["old_title"] == "Frontend" and line["new_title"] == "Frontend again"
    assert line["decided_by"] == "auto" and line["confidence"] == 0.9
    assert line["at"] == "2026-11-04T09:00:00Z"

    text = cli("digest").stdout
    assert _section(text, "Recent supersedes:") == [f"  preference#{old} → preference#{new}"]


# -- supersedes waiting for the user ------------------------------------------------------
def test_a_pending_supersede_is_in_the_digest(cli, project: Path, monkeypatch: pytest.MonkeyPatch):
    old, _ = _record(
        monkeypatch,
        "2026-11-02T09:00:00Z",
        project,
        "preference",
        "Frontend",
        "I prefer Vue for the frontend.",
    )
    new, learned = _record(
        monkeypatch,
        "2026-11-05T09:00:00Z",
        project,
        "preference",
        "Frontend choice",
        "I prefer Svelte for the frontend.",
    )
    (j,) = learned.judgements
    assert j["older"] == old and j["outcome"] == "pending" and j["confidence"] == 0.6
    _at(monkeypatch, NOW)

    d = _digest(cli)
    (p,) = d["pending_supersedes"]
    assert p["id"] == j["pending_id"]
    assert (p["new_slug"], p["old_slug"]) == (new, old)
    assert (p["new_title"], p["old_title"]) == ("Frontend choice", "Frontend")
    assert p["confidence"] == 0.6 and p["judged_by"] == "rules"
    assert p["reason"] == "both choose a frontend framework: Vue, now Svelte"
    assert d["trends"]["recent_supersedes"] == []  # waiting is not decided

    text = cli("digest").stdout
    assert "=== Supersedes to confirm (1) ===" in text
    section = _section(text, "=== Supersedes to confirm (1) ===")
    assert section[0] == f'  #{p["id"]} "Frontend choice" replaces "Frontend"? confidence 0.60 (rules)'
    assert section[1] == f"     {new} -> supersedes {old}"
    assert "memoryd supersede confirm ID" in section[-1]

    headline = digest.headline(Memoryd().digest())
    assert headline == "memoryd: 0 promotion(s) to review, 1 supersede(s) to confirm"

    # Confirmed: no longer waiting, and now a supersede the user decided this week.
    assert cli("supersede", "confirm", str(p["id"])).returncode == 0
    after = _digest(cli)
    assert after["pending_supersedes"] == []
    (line,) = after["trends"]["recent_supersedes"]
    assert (line["old_slug"], line["new_slug"], line["decided_by"]) == (old, new, "user")
    assert "=== Supersedes to confirm (0) ===" in cli("digest").stdout
    assert "supersede(s) to confirm" not in digest.headline(Memoryd().digest())
