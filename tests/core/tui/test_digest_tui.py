"""`memoryd digest --tui`, driven with textual's pilot over a real temp store: sessions go
through the real hook and worker code and are scored by the rules analyser (no API key);
duplicates are recorded through the facade. Every action is checked where it lands:
memory files, the promotion queue and the audit log, and against what the CLI writes for
the same review."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
import unicodedata
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.pilot import Pilot
from textual.widgets import Input, Static

from memoryd.app import Memoryd
from memoryd.capture import hook
from memoryd.cli.parser import build_parser
from memoryd.errors import MemorydError, UsageError
from memoryd.store import dura_mean
from memoryd.testing import claude_exchange, stop_payload, write_jsonl
from memoryd.tui.digest_app import DigestApp
from memoryd.tui.review_screen import ReviewScreen
from memoryd.tui.screens import EditForm
from tests.conftest import run_cli
from tests.core.governance.sessions import REMEMBER, ROUTINE

PNPM = REMEMBER  # rules: preference, DURA mean 0.725
POSTGRES = ("We decided to use Postgres for the job queue instead of SQLite.", "OK, switched.")  # 0.655
BODY = "Staging lives on db-2; prod is db-1."
NOW = "2026-05-18T22:40:00Z"
LATER = "2026-05-18T22:41:00Z"  # the second duplicate is the newer one
SIZE = (100, 30)


@dataclass
class Home:
    pids: list[int]  # PNPM's promotion, then POSTGRES's
    older: str  # the duplicate pair, by age: "Staging on db-2", then "db-2 is staging"
    newer: str


def spool(root: Path, project: Path, sid: str, exchange: tuple[str, str]) -> None:
    """What the agent's Stop hook does, in this process and without a detached worker."""
    transcript = write_jsonl(
        root / f"{sid}.jsonl", claude_exchange(*exchange, session_id=sid, cwd=str(project))
    )
    hook.capture("claude-code", stop_payload(sid, transcript, project), spawn=False)


def build(root: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> Home:
    """A data folder (the env points at it from now on) with two pending promotions and
    one duplicate pair, made as users get them: the hook spools, the worker captures and
    the rules score."""
    monkeypatch.setenv("MEMORYD_HOME", str(root / "data"))
    monkeypatch.setenv("MEMORYD_CONFIG", str(root / "config.toml"))
    monkeypatch.setenv("MEMORYD_NOW", NOW)
    monkeypatch.setenv("MEMORYD_NO_FALLBACK", "1")  # no background consolidation from the CLI
    for i, exchange in enumerate((PNPM, POSTGRES)):
        spool(root, project, f"tui-{i}", exchange)
    facade = Memoryd()
    assert len(facade.drain_spool(wait=True).captured) == 2
    facade.analyze_pending(actor="worker")
    pids = [p["id"] for p in facade.promotions(status="pending")]
    assert len(pids) == 2
    older = facade.record("fact", "Staging on db-2", BODY, triggers=["staging"], scope_path=project)[0]
    monkeypatch.setenv("MEMORYD_NOW", LATER)
    newer = facade.record("fact", "db-2 is staging", BODY, triggers=["db-2"], scope_path=project)[0]
    return Home(pids, older.meta.slug, newer.meta.slug)


async def settle(pilot: Pilot[Any]) -> None:
    """Wait until every worker (action, digest fetch, body read) is done and shown."""
    app = pilot.app
    for _ in range(20):
        await app.workers.wait_for_complete()
        await pilot.pause()
        review = app.get_default_screen()
        if not any(w.is_running for w in app.workers) and not (
            isinstance(review, ReviewScreen) and review.busy
        ):
            return
    raise AssertionError("the review never settled")


def drive(
    facade: Memoryd, scenario: Callable[[Pilot[Any], ReviewScreen], Awaitable[None]], **kw: Any
) -> None:
    async def main() -> None:
        app = DigestApp(facade, **kw)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await scenario(pilot, app.review)
            assert app.is_running  # nothing above ended it: errors are lines, not crashes

    asyncio.run(main())


async def type_into(pilot: Pilot[Any], text: str) -> None:
    """Type like a terminal: pilot names ASCII keys; other characters (a Chinese comma)
    arrive as the terminal driver sends them, a key event carrying the character."""
    for run in re.findall(r"[\x00-\x7f]+|[^\x00-\x7f]", text):
        if run.isascii():
            await pilot.press(*run)
        else:
            key = run if run.isalnum() else unicodedata.name(run).lower().replace(" ", "_")
            pilot.app.post_message(events.Key(key, run))
            await pilot.pause()


def stored_dura_line(facade: Memoryd) -> str:
    """The DURA line of the first pending promotion, from the scores the store holds (the
    rules' values change as they are tuned; what is shown must be what is stored)."""
    s = facade.promotions(status="pending")[0]["dura_score"]
    mean = dura_mean(s)
    assert mean is not None and mean >= 0.6
    return f"DURA  D {s['D']:.2f}  U {s['U']:.2f}  R {s['R']:.2f}  A {s['A']:.2f}   mean {mean:.2f}"


def audit(facade: Memoryd, kind: str) -> list[Any]:
    return facade.audit_events(event_type=kind)


# -- the four actions ----------------------------------------------------------------------
def test_a_approves_the_selected_promotion(tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch):
    home = build(tmp_path / "h", project, monkeypatch)
    facade = Memoryd()

    async def scenario(pilot: Pilot[Any], review: ReviewScreen) -> None:
        assert [p.id for p in review.rows["promotions"]] == home.pids
        detail = str(review.query_one("#promotions-detail", Static).render())
        assert stored_dura_line(facade) in detail  # the rules' scores for PNPM, as stored
        assert "From session 2026-05-18-tui0-" in detail and "rule-scored" in detail
        await pilot.press("a")
        await settle(pilot)
        assert [p.id for p in review.rows["promotions"]] == home.pids[1:]
        assert review.status_text.startswith("Approved “") and not review.status_error

    drive(facade, scenario)
    (event,) = audit(facade, "promote")
    assert event.actor == "tui" and event.details_obj["promotion"] == home.pids[0]
    memory = facade.get(str(event.target_id), count_recall=False)
    assert memory.path.is_file() and memory.doc.meta.type.value == "preference"
    assert [r["id"] for r in facade.promotions(status="approved")] == home.pids[:1]


def test_r_rejects(tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch):
    home = build(tmp_path / "h", project, monkeypatch)
    facade = Memoryd()

    async def scenario(pilot: Pilot[Any], review: ReviewScreen) -> None:
        await pilot.press("j")  # the second promotion: POSTGRES
        assert review.current("promotions").id == home.pids[1]
        await pilot.press("r")
        await settle(pilot)
        assert [p.id for p in review.rows["promotions"]] == home.pids[:1]

    drive(facade, scenario)
    (event,) = audit(facade, "reject")
    assert (event.actor, event.target_id) == ("tui", str(home.pids[1]))
    assert [r["id"] for r in facade.promotions(status="rejected")] == home.pids[1:]
    assert audit(facade, "promote") == []


def test_u_undoes_a_reject_and_n_hides_a_duplicate_group(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
):
    home = build(tmp_path / "h", project, monkeypatch)
    facade = Memoryd()

    async def scenario(pilot: Pilot[Any], review: ReviewScreen) -> None:
        await pilot.press("r")
        await settle(pilot)
        assert [p.id for p in review.rows["promotions"]] == home.pids[1:]
        await pilot.press("u")
        await settle(pilot)
        assert [p.id for p in review.rows["promotions"]] == home.pids
        assert review.status_text == f"Undone: reject of promotion #{home.pids[0]}."
        await pilot.press("2")
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        assert (
            review.rows["duplicates"] == [] and review.status_text == "Marked 2 memories as not duplicates."
        )

    drive(facade, scenario)
    assert [e.details_obj["undid"] for e in audit(facade, "undo")] == ["reject"]
    assert (audit(facade, "not_duplicates")[0].actor, facade.digest().duplicates) == ("tui", [])
    assert facade.audit_verify().ok


def test_e_edits_then_approves(tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch):
    home = build(tmp_path / "h", project, monkeypatch)
    facade = Memoryd()

    async def scenario(pilot: Pilot[Any], review: ReviewScreen) -> None:
        await pilot.press("e")
        form = pilot.app.screen
        assert isinstance(form, EditForm) and form.proposal.id == home.pids[0]
        await pilot.press("shift+tab", "enter", "up", "enter")  # the type list: preference -> decision
        await pilot.press("tab", "ctrl+a", "ctrl+k")  # the title, emptied
        await type_into(pilot, "Use pnpm; no npm")
        await pilot.press("tab", "ctrl+a", "ctrl+k")
        await type_into(pilot, "pnpm, lock，包管理,pnpm")  # an ASCII and a Chinese comma
        await pilot.press("tab", "f7")  # the body, all selected: a paste replaces it
        pilot.app.post_message(events.Paste("npm breaks locks.\nSo: pnpm."))
        await pilot.pause()
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert pilot.app.screen is review and review.status_text == "Approved “Use pnpm; no npm” as decision."

    drive(facade, scenario)
    (event,) = audit(facade, "promote")
    assert event.actor == "tui" and event.target_id.startswith(f"promoted-{home.pids[0]}-use-pnpm-no-npm-")
    doc = facade.get(str(event.target_id), count_recall=False).doc
    assert doc.meta.type.value == "decision" and doc.meta.title == "Use pnpm; no npm"
    assert doc.meta.triggers == ["pnpm", "lock", "包管理"]
    assert doc.body == "npm breaks locks.\nSo: pnpm.\n"


def test_m_merges_the_group_into_the_chosen_memory(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
):
    home = build(tmp_path / "h", project, monkeypatch)
    facade = Memoryd()

    async def scenario(pilot: Pilot[Any], review: ReviewScreen) -> None:
        await pilot.press("2")
        await settle(pilot)  # the group's bodies are read once its tab shows
        assert review.active == "duplicates"
        (group,) = review.rows["duplicates"]
        assert [m.slug for m in group.memories] == [home.older, home.newer]
        detail = str(review.query_one("#duplicates-detail", Static).render())
        assert "▶ keep   Staging on db-2" in detail and detail.count(BODY) == 2
        await pilot.press("l")  # keep the newer one instead
        assert "▶ keep   db-2 is staging" in str(review.query_one("#duplicates-detail", Static).render())
        await pilot.press("m")
        await settle(pilot)
        assert review.rows["duplicates"] == [] and review.status_text == "Merged 1 into “db-2 is staging”."

    drive(facade, scenario)
    (event,) = audit(facade, "merge")
    assert (event.actor, event.target_id, event.details_obj["into"]) == ("tui", home.older, home.newer)
    with pytest.raises(MemorydError):
        facade.get(home.older, count_recall=False)
    assert not list((tmp_path / "h" / "data" / "scopes").rglob(f"{home.older}*"))  # in trash/ for undo
    assert set(facade.get(home.newer, count_recall=False).doc.meta.triggers) == {"staging", "db-2"}


def test_k_in_expiring_keeps_a_fading_memory(tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("MEMORYD_NOW", "2026-03-02T09:00:00Z")
    spool(tmp_path, project, "fading", ROUTINE)
    facade = Memoryd()
    facade.drain_spool(wait=True)
    slug = facade.store.slug_for_session("claude-code", "fading")
    later = "2026-05-26T09:00:00Z"  # sessions dim after 90 idle days: due in 5, within the 7 warned
    monkeypatch.setenv("MEMORYD_NOW", later)

    async def scenario(pilot: Pilot[Any], review: ReviewScreen) -> None:
        await pilot.press("3")
        reminder = review.current("expiring")
        assert (reminder.slug, reminder.next_state, reminder.idle_days) == (slug, "dim", 85)
        await pilot.press("K")
        await settle(pilot)
        assert review.rows["expiring"] == [] and review.status_text.startswith("Kept “")

    drive(facade, scenario)
    meta = facade.get(str(slug), count_recall=False).doc.meta
    assert meta.recall_count == 1 and meta.last_recalled_at.isoformat().startswith("2026-05-26T09:00")


# -- the same review through the CLI -------------------------------------------------------
def _normalised(facade: Memoryd, after: int, names: dict[str, str]) -> list[tuple[Any, ...]]:
    """The events after `after`, without who and when (actor, ts, seq, hashes), the random
    slugs of recorded memories replaced by their role."""

    def plain(text: str | None) -> str | None:
        for slug, name in names.items():
            text = text.replace(slug, name) if text else text
        return text

    return [
        (e.event_type, e.scope_hash, plain(e.target_id), plain(e.details))
        for e in facade.audit_events()
        if e.seq > after
    ]


def test_the_tui_writes_what_the_cli_writes(tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch):
    tui_home = build(tmp_path / "tui", project, monkeypatch)
    tui = Memoryd()
    start = tui.audit_events()[-1].seq

    async def scenario(pilot: Pilot[Any], review: ReviewScreen) -> None:
        await pilot.press("a")  # approves PNPM; the selection moves on to POSTGRES
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        await pilot.press("2", "m")  # the oldest is kept
        await settle(pilot)
        assert not review.status_error, review.status_text

    drive(tui, scenario)
    tui_events = _normalised(tui, start, {tui_home.older: "<older>", tui_home.newer: "<newer>"})

    cli_home = build(tmp_path / "cli", project, monkeypatch)
    cli = Memoryd()
    start = cli.audit_events()[-1].seq
    assert cli_home.pids == tui_home.pids
    for args in (
        ("promote", str(cli_home.pids[0])),
        ("reject", str(cli_home.pids[1])),
        ("merge", "--keep", cli_home.older, "--drop", cli_home.newer),
    ):
        out = run_cli(*args)
        assert out.returncode == 0, out.stderr
    cli_events = _normalised(cli, start, {cli_home.older: "<older>", cli_home.newer: "<newer>"})

    kinds = [e[0] for e in tui_events]
    assert {"promote", "reject", "merge"} <= set(kinds), kinds
    assert tui_events == cli_events
    assert {e.actor for e in tui.audit_events() if e.seq > start and e.event_type != "capture"} <= {"tui"}
    assert tui.audit_verify().ok and cli.audit_verify().ok


# -- keys and errors ------------------------------------------------------------------------
def test_letters_typed_into_the_edit_form_are_text(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
):
    home = build(tmp_path / "h", project, monkeypatch)
    facade = Memoryd()
    keys = "jkarRemcdKhlq?12"  # every review key, and the section numbers

    async def scenario(pilot: Pilot[Any], review: ReviewScreen) -> None:
        await pilot.press("e", "ctrl+a", "ctrl+k")
        await type_into(pilot, keys)
        await pilot.press("tab", "end")
        await type_into(pilot, "amq")  # the triggers
        await pilot.press("tab")
        await type_into(pilot, "rq?")  # the body
        await settle(pilot)
        form = pilot.app.screen
        assert isinstance(form, EditForm)  # q did not quit, ? opened no help, 2 switched nothing
        assert form.query_one("#title", Input).value == keys
        assert review.active == "promotions" and review.current("promotions").id == home.pids[0]
        assert audit(facade, "promote") == audit(facade, "reject") == audit(facade, "merge") == []
        await pilot.press("escape")
        assert pilot.app.screen is review and review.status_text == "Edit cancelled; nothing approved."
        await pilot.press("e")
        await type_into(pilot, "!")
        await pilot.press("ctrl+s")
        await settle(pilot)

    drive(facade, scenario)
    (event,) = audit(facade, "promote")
    doc = facade.get(str(event.target_id), count_recall=False).doc
    assert doc.meta.title.endswith("!") and event.details_obj["promotion"] == home.pids[0]


def test_an_action_refused_by_core_is_one_line_and_the_review_goes_on(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
):
    """Approved by the CLI while the review is open: rejecting it here is refused, the
    refusal is one red line, nothing crashes, and the reload drops the row."""
    home = build(tmp_path / "h", project, monkeypatch)
    facade = Memoryd()
    pid = home.pids[0]

    async def scenario(pilot: Pilot[Any], review: ReviewScreen) -> None:
        assert run_cli("promote", str(pid)).returncode == 0  # another process decides first
        assert review.current("promotions").id == pid  # the screen still shows it
        await pilot.press("r")
        await settle(pilot)
        assert review.status_error and review.status_text.startswith(f"promotion {pid} is already approved")
        status = review.query_one("#status", Static)
        assert "\n" not in str(status.render()) and status.has_class("error")
        assert [p.id for p in review.rows["promotions"]] == home.pids[1:]
        await pilot.press("a")  # the review goes on: the next one is approved
        await settle(pilot)
        assert not review.status_error and review.rows["promotions"] == []

    drive(facade, scenario)
    assert audit(facade, "reject") == []
    assert sorted(e.details_obj["promotion"] for e in audit(facade, "promote")) == home.pids


def test_scope_filter_holds_across_reloads(tmp_path: Path, project: Path):
    other = tmp_path / "other"
    other.mkdir()
    facade = Memoryd()
    for where in (project, other):
        facade.record("fact", "Staging on db-2", BODY, scope_path=where)
        facade.record("fact", "db-2 is staging", BODY, scope_path=where)
    mine = facade.scope(project).hash

    async def scenario(pilot: Pilot[Any], review: ReviewScreen) -> None:
        (group,) = review.rows["duplicates"]
        assert {m.scope_hash for m in group.memories} == {mine}
        await pilot.press("2", "m", "R")
        await settle(pilot)
        assert review.rows["duplicates"] == [] and review.digest.scopes == [mine]

    drive(facade, scenario, scopes=[mine])
    # Unfiltered, the kept memory and the other project's two still share the body.
    (left,) = facade.digest().duplicates
    theirs = facade.scope(other).hash
    assert sorted(m.scope_hash for m in left.memories) == sorted([mine, theirs, theirs])


# -- the command line -----------------------------------------------------------------------
@pytest.mark.parametrize("extra", ["--json", "--notify"])
def test_tui_refuses_json_and_notify(extra: str):
    args = build_parser().parse_args(["digest", "--tui", extra])
    with pytest.raises(UsageError, match="--tui is interactive") as refused:
        args.handler(args)
    assert refused.value.exit_code == 2
    assert Memoryd().audit_events() == []  # refused before anything was read or written


def test_tui_needs_a_terminal(cli):
    out = cli("digest", "--tui")  # stdout is a pipe here
    assert out.returncode == 2 and out.stdout == "" and out.stderr.count("\n") == 1, out
    assert "needs a terminal" in out.stderr and "Traceback" not in out.stderr


def test_other_commands_do_not_import_textual():
    code = (
        "import sys\n"
        "from memoryd.cli.parser import build_parser\n"
        "import memoryd.tui, memoryd.cli.commands.governance\n"
        "build_parser()\n"
        "print([m for m in sys.modules if m.split('.')[0] == 'textual'])\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert res.stdout.strip() == "[]", res.stdout + res.stderr
