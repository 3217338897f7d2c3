"""Which decisions replace which (seed 001 section 5), end to end: the React -> Solid story
judged by the real anthropic SDK against recorded answers and by the rules, the digest's
queue and `memoryd supersede confirm|dismiss|link`, `memoryd history`, and a superseded
memory ranked under its successor in search and left out of the snapshot's Constraints."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from memoryd.app import Memoryd
from memoryd.config import Config, LLMConfig
from memoryd.db.engine import write_session
from memoryd.scope import resolve
from memoryd.store import governance as gsql
from tests.core.governance.sessions import capture
from tests.core.llm.replay import Recorded, Replay, recorded
from tests.core.sensitive.support import one_line_error

MODEL = "claude-haiku-4-5-20251001"
LLM_ENV = {"ANTHROPIC_API_KEY": "sk-test-0123456789"}
BY_LLM = f"anthropic:{MODEL}"

REWRITE = (
    "The frontend rewrite is done, remember that the old UI code is gone for good.",
    "Noted: the rewrite is finished and the old UI code was deleted.",
)
MAY, NOV = "2026-05-01T09:00:00Z", "2026-11-01T09:00:00Z"
REACT = ("Prefer React for the frontend framework", "Use React for the frontend framework of the web app.")
SOLID = (
    "Prefer Solid for the frontend framework",
    "We switched from React to Solid for the frontend framework: smaller bundles.",
)


# -- helpers ------------------------------------------------------------------------------
def _at(monkeypatch, when: str) -> None:
    monkeypatch.setenv("MEMORYD_NOW", when)


def _llm_app(replay: Replay, *, max_retries: int | None = None) -> Memoryd:
    llm = LLMConfig(provider="anthropic", model=MODEL)
    if max_retries is not None:
        llm = LLMConfig(provider="anthropic", model=MODEL, max_retries=max_retries)
    return Memoryd(config=Config(llm=llm), llm_env=LLM_ENV, llm_transport=replay.transport)


def _judge(name: str, old_slug: str) -> Recorded:
    """A recorded judge_supersedes answer about `old_slug` (slugs end in random hex, so the
    recorded file holds a placeholder; confidence and reasoning are the file's)."""
    r = recorded("anthropic", name)
    assert b"{{old_slug}}" in r.content
    return Recorded(r.status, r.headers, r.content.replace(b"{{old_slug}}", old_slug.encode()))


def _record(app: Memoryd, project: Path, memory_type: str, title: str, body: str) -> str:
    doc, _ = app.record(memory_type, title, body, scope_path=project)
    return doc.meta.slug


def _react_then_solid(monkeypatch, project: Path, judge: str) -> tuple[str, str, Memoryd, Replay]:
    """React on 2026-05-01, Solid on 2026-11-01, both with the LLM."""
    _at(monkeypatch, MAY)
    first = Replay(recorded("anthropic", "kg_extract_react"))
    app = _llm_app(first)
    react = _record(app, project, "preference", *REACT)
    assert len(first.requests) == 1  # nothing older to compare with: no judge call
    assert app.learned is not None and app.learned.by == BY_LLM and app.learned.judgements == []
    assert [e["name"] for e in app.learned.entities] == ["React"]

    _at(monkeypatch, NOV)
    second = Replay(recorded("anthropic", "kg_extract_solid"), _judge(judge, react))
    app = _llm_app(second)
    solid = _record(app, project, "preference", *SOLID)
    assert len(second.requests) == 2, [r.url for r in second.requests]
    return react, solid, app, second


def _meta(slug: str) -> Any:
    return Memoryd().store.read(slug)[0].meta


def _file_text(slug: str) -> str:
    return Memoryd().store.read(slug)[1].read_text(encoding="utf-8")


def _chain_rows(home: Path) -> list[dict[str, Any]]:
    with sqlite3.connect(home / "index.db") as db:
        db.row_factory = sqlite3.Row
        return [dict(r) for r in db.execute("SELECT * FROM supersedes_chain ORDER BY decided_at")]


def _json(out) -> Any:
    assert out.returncode == 0, (out.returncode, out.stdout, out.stderr)
    return json.loads(out.stdout)


def _events(cli, event_type: str) -> list[dict[str, Any]]:
    return _json(cli("audit", "--event-type", event_type, "--json"))


def _pending(cli) -> list[dict[str, Any]]:
    return _json(cli("supersede", "list", "--json"))


def _section(snapshot: str, title: str) -> str:
    if f"## {title}\n" not in snapshot:
        return ""
    return snapshot.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def _solid_wins(cli, project: Path, react: str, solid: str) -> None:
    """(c) and (d) of the acceptance: search puts Solid first and marks React; the
    start-up snapshot keeps Solid as a constraint and React out of the Constraints."""
    hits = _json(cli("search", "frontend framework", "--scope", str(project), "--json"))
    assert hits[0]["slug"] == solid and hits[0]["superseded_by"] is None, hits
    (old,) = [h for h in hits if h["slug"] == react]
    assert old["superseded_by"] == solid
    text = cli("search", "frontend framework", "--scope", str(project))
    assert text.returncode == 0 and f"(superseded by {solid})" in text.stdout, text.stdout

    out = cli("inject", "--cwd", str(project))
    assert out.returncode == 0, out.stderr
    constraints = _section(out.stdout, "Constraints")
    assert SOLID[0] in constraints, out.stdout
    assert REACT[0] not in constraints, out.stdout
    for line in out.stdout.splitlines():
        if REACT[0] in line:
            assert "superseded" in line, out.stdout


def _superseded(home: Path, react: str, solid: str, decided_by: str, confidence: float) -> None:
    assert _meta(react).superseded_by == solid
    assert _meta(solid).supersedes == [react]
    assert f"superseded_by: {solid}" in _file_text(react)
    assert react in _file_text(solid).split("supersedes:", 1)[1].split("\n---", 1)[0]
    (row,) = _chain_rows(home)
    assert (row["newer_memory_id"], row["older_memory_id"]) == (solid, react)
    assert row["decided_by"] == decided_by and row["confidence"] == confidence


def _current(*slugs: str) -> None:
    for slug in slugs:
        meta = _meta(slug)
        assert meta.superseded_by is None, (slug, meta.superseded_by)


# -- 1. the React -> Solid story with the recorded LLM -------------------------------------
def test_acceptance_llm_confidence_0_9_supersedes_react_automatically(
    cli, project: Path, monkeypatch, isolated_home: Path
):
    react, solid, app, replay = _react_then_solid(monkeypatch, project, "kg_judge_supersede")

    learned = app.learned
    assert learned is not None and learned.by == BY_LLM and learned.judged_by == BY_LLM
    (j,) = learned.judgements
    assert j["older"] == react and j["confidence"] == 0.9 and j["outcome"] == "superseded"
    assert j["pending_id"] is None and "React to Solid" in j["reason"]

    extract, judge = replay.bodies()
    assert "named things a memory is about" in json.dumps(extract["system"])
    sent = json.dumps(judge, ensure_ascii=False)
    assert "You decide whether a new memory replaces older ones" in json.dumps(judge["system"])
    asked = json.dumps(judge["messages"], ensure_ascii=False)
    assert react in asked and REACT[0] in asked and SOLID[0] in asked
    assert "2026-05-01" in asked and solid not in sent.split("Older memories", 1)[1]

    _superseded(isolated_home, react, solid, "auto", 0.9)
    (newer,) = [e for e in _events(cli, "supersede") if e["target_id"] == solid]
    assert json.loads(newer["details"])["older"] == [react]
    assert json.loads(newer["details"])["decided_by"] == "auto"
    (older,) = [e for e in _events(cli, "superseded") if e["target_id"] == react]
    assert json.loads(older["details"])["newer"] == solid
    assert _pending(cli) == []
    today = app.spend().today  # November: Solid's extraction and the judgement, on the ledger
    assert today.calls == 2 and today.tokens == 327 + 61 + 402 + 52

    _solid_wins(cli, project, react, solid)


def test_acceptance_llm_confidence_0_7_waits_for_the_user_then_confirm(
    cli, project: Path, monkeypatch, isolated_home: Path
):
    react, solid, app, _ = _react_then_solid(monkeypatch, project, "kg_judge_review")
    assert app.learned is not None
    (j,) = app.learned.judgements
    assert j["older"] == react and j["confidence"] == 0.7 and j["outcome"] == "pending"
    pid = j["pending_id"]
    assert isinstance(pid, int)

    _current(react, solid)
    assert _meta(solid).supersedes == [] and _chain_rows(isolated_home) == []
    (proposed,) = _events(cli, "supersede_proposed")
    assert proposed["target_id"] == solid and json.loads(proposed["details"])["older"] == react

    digest = _json(cli("digest", "--json"))
    (waiting,) = digest["pending_supersedes"]
    assert waiting["id"] == pid and (waiting["new_slug"], waiting["old_slug"]) == (solid, react)
    assert (waiting["new_title"], waiting["old_title"]) == (SOLID[0], REACT[0])
    assert waiting["confidence"] == 0.7 and waiting["judged_by"] == BY_LLM
    text = cli("digest")
    assert text.returncode == 0 and "memoryd supersede confirm" in text.stdout, text.stdout

    listed = cli("supersede", "list")
    assert listed.returncode == 0, listed.stderr
    assert f"#{pid} [pending] 0.70 {solid} -> supersedes {react}" in listed.stdout
    assert f'"{SOLID[0]}" replaces "{REACT[0]}"' in listed.stdout
    assert "why: Both pick the frontend framework" in listed.stdout

    done = cli("supersede", "confirm", str(pid))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"#{pid}: {solid} supersedes {react}"
    _superseded(isolated_home, react, solid, "user", 0.7)
    assert _pending(cli) == []
    (row,) = _json(cli("supersede", "list", "--status", "confirmed", "--json"))
    assert row["id"] == pid and row["decided_at"].startswith("2026-11-01")
    assert _json(cli("digest", "--json"))["pending_supersedes"] == []

    one_line_error(cli("supersede", "confirm", str(pid)), 2, "already confirmed")
    _superseded(isolated_home, react, solid, "user", 0.7)  # unchanged

    _solid_wins(cli, project, react, solid)


def test_acceptance_llm_confidence_0_3_is_ignored(cli, project: Path, monkeypatch, isolated_home: Path):
    react, solid, app, _ = _react_then_solid(monkeypatch, project, "kg_judge_unrelated")
    assert app.learned is not None and app.learned.judged_by == BY_LLM
    (j,) = app.learned.judgements
    assert j["older"] == react and j["confidence"] <= 0.3 and j["outcome"] == "ignored"
    assert j["pending_id"] is None
    _current(react, solid)
    assert _chain_rows(isolated_home) == [] and _pending(cli) == []
    assert _json(cli("digest", "--json"))["pending_supersedes"] == []
    assert _events(cli, "supersede_proposed") == [] and _events(cli, "superseded") == []
    assert "no pending supersedes" in cli("supersede", "list").stdout
    constraints = _section(cli("inject", "--cwd", str(project)).stdout, "Constraints")
    assert REACT[0] in constraints and SOLID[0] in constraints


def test_acceptance_llm_failure_falls_back_to_the_rules_judge(
    cli, project: Path, monkeypatch, isolated_home: Path
):
    _at(monkeypatch, MAY)
    failing = Replay(recorded("anthropic", "server_error"))
    app = _llm_app(failing, max_retries=0)
    react = _record(app, project, "preference", *REACT)
    assert app.learned is not None and app.learned.by == "rules"
    assert any("entities by the rules" in n and "LLM failed" in n for n in app.learned.notes)

    _at(monkeypatch, NOV)
    app = _llm_app(failing, max_retries=0)
    solid = _record(app, project, "preference", *SOLID)
    assert len(failing.requests) == 3  # each call tried once: extract, extract, judge
    learned = app.learned
    assert learned is not None and learned.judged_by == "rules"
    assert any(n.startswith("supersedes judged by the rules: the LLM failed") for n in learned.notes), learned
    (j,) = learned.judgements
    assert j["older"] == react and j["confidence"] == 0.9 and j["outcome"] == "superseded"
    _superseded(isolated_home, react, solid, "auto", 0.9)


def test_acceptance_a_promotion_s_proposed_supersedes_reach_the_judge(
    cli, project: Path, monkeypatch, tmp_path: Path
):
    """The DURA analysis names the memory a session replaces; promote passes it on, so it is
    judged even though the promoted memory names no entity in common with it."""
    _at(monkeypatch, MAY)
    react = _record(Memoryd(), project, "preference", *REACT)
    _at(monkeypatch, NOV)
    session = capture(cli, project, tmp_path, "frontend-rewrite", [REWRITE])
    app = Memoryd()
    with write_session(app.store.engine) as s:
        pid, action = gsql.queue_promotion(
            s,
            {
                "source_session_slug": session,
                "proposed_type": "decision",
                "proposed_title": "Frontend rewrite finished",
                "proposed_body": "The frontend rewrite is finished; the old UI code is gone.",
                "proposed_triggers": ["frontend"],
                "dura_score": {"D": 0.9, "U": 0.8, "R": 0.7, "A": 0.9},
                "reasoning": "a durable decision",
                "proposed_supersedes": [react],
                "scope_hash": resolve(project).hash,
                "created_at": NOV,
            },
        )
    assert action in ("queued", "updated")

    replay = Replay(recorded("anthropic", "kg_extract_none"), _judge("kg_judge_hint", react))
    app = _llm_app(replay)
    doc, changes = app.promote(pid)
    assert len(replay.requests) == 2
    assert react in json.dumps(replay.bodies()[1]["messages"], ensure_ascii=False)
    assert app.learned is not None and app.learned.entities == []
    (j,) = app.learned.judgements
    assert j["older"] == react and j["confidence"] == 0.88 and j["outcome"] == "superseded"
    assert changes.updated == (react,)
    assert _meta(react).superseded_by == doc.meta.slug


# -- 2. the same story by the rules (no LLM key) -------------------------------------------
def _cli_record(cli, project: Path, memory_type: str, title: str, body: str) -> dict[str, Any]:
    out = cli(
        "record", "--type", memory_type, "--title", title, "--scope", str(project), "--json", stdin=body
    )
    return _json(out)


def test_acceptance_rules_english_switch_supersedes(cli, project: Path, monkeypatch, isolated_home: Path):
    _at(monkeypatch, MAY)
    first = _cli_record(cli, project, "preference", REACT[0], "Prefer React for the frontend framework.")
    assert first["knowledge"]["by"] == "rules" and first["knowledge"]["judgements"] == []
    _at(monkeypatch, NOV)
    second = _cli_record(
        cli, project, "preference", SOLID[0], "We switched from React to Solid for the frontend framework."
    )
    react, solid = first["slug"], second["slug"]
    k = second["knowledge"]
    assert k["judged_by"] == "rules"
    (j,) = k["judgements"]
    assert (j["older"], j["confidence"], j["outcome"]) == (react, 0.9, "superseded")
    assert j["entity"] == "entity:library:react"
    _superseded(isolated_home, react, solid, "auto", 0.9)
    _solid_wins(cli, project, react, solid)


def test_acceptance_rules_chinese_switch_supersedes(cli, project: Path, monkeypatch, isolated_home: Path):
    _at(monkeypatch, MAY)
    react = _cli_record(cli, project, "preference", "前端框架用 React", "前端框架用 React")["slug"]
    _at(monkeypatch, NOV)
    second = _cli_record(cli, project, "preference", "前端框架改用 Solid", "不再用 React,改用 Solid")
    solid = second["slug"]
    (j,) = second["knowledge"]["judgements"]
    assert (j["older"], j["confidence"], j["outcome"]) == (react, 0.9, "superseded")
    assert second["knowledge"]["judged_by"] == "rules"
    _superseded(isolated_home, react, solid, "auto", 0.9)


def test_acceptance_rules_same_slot_waits_and_a_dismissal_sticks(
    cli, project: Path, monkeypatch, isolated_home: Path
):
    _at(monkeypatch, MAY)
    vue = _cli_record(cli, project, "preference", "Vue for the frontend", "I prefer Vue for the frontend.")[
        "slug"
    ]
    _at(monkeypatch, NOV)
    rec = _cli_record(
        cli, project, "preference", "Svelte for the frontend", "I prefer Svelte for the frontend."
    )
    svelte = rec["slug"]
    (j,) = rec["knowledge"]["judgements"]
    assert (j["older"], j["confidence"], j["outcome"]) == (vue, 0.6, "pending")
    assert "frontend framework" in j["reason"]
    pid = j["pending_id"]
    (row,) = _pending(cli)
    assert row["id"] == pid and row["judged_by"] == "rules"

    out = cli("supersede", "dismiss", str(pid))
    assert out.returncode == 0 and out.stdout.strip() == f"#{pid} dismissed: both stay current", out.stderr
    _current(vue, svelte)
    assert _pending(cli) == [] and _chain_rows(isolated_home) == []
    (d,) = _events(cli, "supersede_dismissed")
    assert d["target_id"] == svelte and json.loads(d["details"]) == {"id": pid, "older": vue}
    one_line_error(cli("supersede", "dismiss", str(pid)), 2, "already dismissed")
    one_line_error(cli("supersede", "confirm", str(pid)), 2, "already dismissed")

    # Learned again (the newer memory updated, twice): the pair is not asked about again.
    _at(monkeypatch, "2026-11-02T09:00:00Z")
    again = cli("update", svelte, "--body", "-", stdin="I prefer Svelte for the frontend. Really.")
    assert again.returncode == 0, again.stderr
    app = Memoryd()
    app.update(svelte, body="I prefer Svelte for the frontend, SvelteKit for routing.")
    assert _pending(cli) == []
    assert len(_events(cli, "supersede_proposed")) == 1
    (still,) = _json(cli("supersede", "list", "--status", "dismissed", "--json"))
    assert still["id"] == pid
    _current(vue, svelte)
    constraints = _section(cli("inject", "--cwd", str(project)).stdout, "Constraints")
    assert "Vue for the frontend" in constraints and "Svelte for the frontend" in constraints
    # What the update reports must not offer the dismissed pair as waiting either (the CLI
    # of record / promote prints a "pending" judgement as `memoryd supersede confirm ID`).
    assert app.learned is not None and app.learned.judged_by == "rules"
    (j,) = app.learned.judgements
    assert j["older"] == vue and j["outcome"] != "pending", app.learned.judgements


def test_acceptance_rules_a_memory_that_replaces_nothing_changes_nothing(
    cli, project: Path, monkeypatch, isolated_home: Path
):
    _at(monkeypatch, MAY)
    react = _cli_record(cli, project, "preference", REACT[0], "Prefer React for the frontend framework.")[
        "slug"
    ]
    _at(monkeypatch, NOV)
    tip = _cli_record(cli, project, "fact", "React hooks tip", "Call React hooks only at the top level.")
    assert all(j["outcome"] == "ignored" for j in tip["knowledge"]["judgements"]), tip
    _current(react, tip["slug"])
    assert _pending(cli) == [] and _chain_rows(isolated_home) == []
    assert _events(cli, "supersede") == [] and _events(cli, "supersede_proposed") == []


# -- 3. history ---------------------------------------------------------------------------
def test_acceptance_history_of_a_chain_of_three(cli, project: Path, monkeypatch, isolated_home: Path):
    steps = [
        ("2026-05-01T09:00:00Z", "Prefer React for the frontend framework", "Prefer React for the UI."),
        (
            "2026-08-01T09:00:00Z",
            "Vue for the frontend framework",
            "We switched from React to Vue for the UI.",
        ),
        (
            "2026-11-01T09:00:00Z",
            "Solid for the frontend framework",
            "We switched from Vue to Solid for the UI.",
        ),
    ]
    slugs = []
    for when, title, body in steps:
        _at(monkeypatch, when)
        slugs.append(_cli_record(cli, project, "preference", title, body)["slug"])
    react, vue, solid = slugs
    assert _meta(react).superseded_by == vue and _meta(vue).superseded_by == solid
    _current(solid)

    for member in slugs:
        h = _json(cli("history", member, "--json"))
        assert h["slug"] == member
        assert [m["slug"] for m in h["chain"]] == [react, vue, solid]
        assert [m["title"] for m in h["chain"]] == [s[1] for s in steps]
        assert [m["superseded_by"] for m in h["chain"]] == [vue, solid, None]
        links = {(x["newer_memory_id"], x["older_memory_id"]): x for x in h["links"]}
        assert set(links) == {(vue, react), (solid, vue)}
        assert all(x["decided_by"] == "auto" and x["confidence"] == 0.9 for x in links.values())
        assert links[(vue, react)]["decided_at"].startswith("2026-08-01")
        assert h["pending"] == []

        out = cli("history", member)
        assert out.returncode == 0, out.stderr
        lines = out.stdout.splitlines()
        order = [next(i for i, ln in enumerate(lines) if s in ln) for s in slugs]
        assert order == sorted(order), out.stdout
        assert any(member in ln and "<- this one" in ln for ln in lines), out.stdout
        assert f"[superseded by {vue}]" in out.stdout and f"[superseded by {solid}]" in out.stdout
        assert "[current]" in out.stdout
        assert out.stdout.count("replaced (auto, confidence 0.90") == 2, out.stdout
        assert "replaced (auto, confidence 0.90, 2026-08-01)" in out.stdout


def test_acceptance_history_of_a_memory_without_supersedes_and_of_an_unknown_slug(cli, project: Path):
    slug = _cli_record(cli, project, "fact", "CI runs on Fridays", "The nightly CI also runs on Fridays.")[
        "slug"
    ]
    out = cli("history", slug)
    assert out.returncode == 0, out.stderr
    assert f"{slug}: no supersedes" in out.stdout
    h = _json(cli("history", slug, "--json"))
    assert h["links"] == [] and h["pending"] == [] and [m["slug"] for m in h["chain"]] == [slug]
    one_line_error(cli("history", "2026-01-01-no-such-memory-0000"), 1, "2026-01-01-no-such-memory-0000")
    one_line_error(cli("history", "2026-01-01-no-such-memory-0000", "--json"), 1)


# -- 4. link, and bad ids -------------------------------------------------------------------
def _staging(project: Path, *dbs: str) -> list[str]:
    """Facts that share no entity (so nothing links them but the user)."""
    app = Memoryd()
    return [_record(app, project, "fact", f"Staging on {db}", f"The staging database is {db}.") for db in dbs]


def _refused(cli, home: Path, args: tuple[str, ...], *words: str) -> None:
    """A one-line error, non-zero, and no file, chain row or audit event changed."""
    rows = Memoryd().list(scopes=None)
    files = {r["slug"]: _file_text(r["slug"]) for r in rows}
    chain = _chain_rows(home)
    events = len(_json(cli("audit", "--json")))
    out = cli(*args)
    assert out.returncode != 0, (args, out.stdout)
    one_line_error(out, out.returncode, *words)
    assert {slug: _file_text(slug) for slug in files} == files, args
    assert _chain_rows(home) == chain, args
    audit = _json(cli("audit", "--json"))[events:]
    assert [e for e in audit if e["event_type"] in ("supersede", "superseded")] == [], args


def test_acceptance_link_by_hand_and_what_it_refuses(cli, project: Path, tmp_path: Path, isolated_home: Path):
    old, new, third = _staging(project, "db-2", "db-7", "db-8")
    other_dir = tmp_path / "other"
    other_dir.mkdir()
    (other,) = _staging(other_dir, "db-9")
    assert _chain_rows(isolated_home) == []

    out = cli("supersede", "link", new, old)
    assert out.returncode == 0 and out.stdout.strip() == f"{new} supersedes {old}", out.stderr
    assert _meta(old).superseded_by == new and _meta(new).supersedes == [old]
    (row,) = _chain_rows(isolated_home)
    assert row["decided_by"] == "user" and row["confidence"] == 1.0
    (ev,) = _events(cli, "superseded")
    assert ev["target_id"] == old and json.loads(ev["details"])["decided_by"] == "user"
    h = _json(cli("history", old, "--json"))
    assert [m["slug"] for m in h["chain"]] == [old, new]
    assert "replaced (user, confidence 1.00" in cli("history", new).stdout
    assert _json(cli("supersede", "link", new, old, "--json")) == {"newer": new, "older": old}  # again: no-op
    assert len(_chain_rows(isolated_home)) == 1 and _meta(new).supersedes == [old]

    _refused(cli, isolated_home, ("supersede", "link", other, new), "different scopes")
    _refused(cli, isolated_home, ("supersede", "link", new, other), "different scopes")
    _refused(cli, isolated_home, ("supersede", "link", new, new), "itself")
    _refused(cli, isolated_home, ("supersede", "link", third, old), "already superseded")
    _refused(cli, isolated_home, ("supersede", "link", new, "2026-01-01-no-such-memory-0000"))
    _refused(cli, isolated_home, ("supersede", "link", new, "../escape"))


def test_acceptance_link_refuses_a_loop_of_two(cli, project: Path, isolated_home: Path):
    old, new = _staging(project, "db-2", "db-7")
    assert cli("supersede", "link", new, old).returncode == 0
    _refused(cli, isolated_home, ("supersede", "link", old, new))
    assert _meta(new).superseded_by is None and _meta(old).supersedes == []


def test_acceptance_link_refuses_a_longer_loop(cli, project: Path, isolated_home: Path):
    a, b, c = _staging(project, "db-2", "db-7", "db-8")
    assert cli("supersede", "link", b, a).returncode == 0
    assert cli("supersede", "link", c, b).returncode == 0
    _refused(cli, isolated_home, ("supersede", "link", a, c))
    assert _meta(c).superseded_by is None and _meta(a).supersedes == []


def test_acceptance_bad_pending_ids_are_one_line_errors(cli):
    for action in ("confirm", "dismiss"):
        one_line_error(cli("supersede", action, "abc"), 2)
        one_line_error(cli("supersede", action, "999"), 1, "999")
    one_line_error(cli("supersede", "list", "--status", "maybe"), 2, "--status")
