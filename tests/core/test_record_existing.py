"""`record` of the text of an existing memory (issue 21): the same type, title and body in
the same scope give back the memory already there, through the CLI, MCP `mem_record` and
the facade alike; a near-duplicate is still written and shows in the digest as before."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from memoryd.app import Memoryd
from memoryd.governance.digest import Digest

from .sensitive.support import CANARY, PIN, audit_events, enc_files, grant_pin, leaks, set_pin
from .test_mcpserver import ok, session

BODY = "Jobs go through the Postgres queue table, not Redis: one database to back up."
TITLE = "Use Postgres for the job queue"


def _record(cli, project: Path, *extra: str, title: str = TITLE, body: str = BODY, mtype: str = "decision"):
    out = cli("record", "--type", mtype, "--title", title, "--scope", str(project), *extra, stdin=body)
    assert out.returncode == 0, out.stderr
    return out


def _slugs(cli, project: Path) -> list[str]:
    return [r["slug"] for r in json.loads(cli("list", "--scope", str(project), "--json").stdout)]


def test_cli_record_twice_gives_the_existing_memory(cli, project: Path):
    first = json.loads(_record(cli, project, "--json").stdout)
    assert first["existing"] is False
    again = _record(cli, project, title=f"  {TITLE}\t", body=BODY + "\n")
    assert again.stdout == f"already recorded as {first['slug']}\n", again.stdout
    as_json = json.loads(_record(cli, project, "--json").stdout)
    assert as_json["slug"] == first["slug"] and as_json["existing"] is True
    assert as_json["type"] == "decision" and as_json["knowledge"] is None
    assert _slugs(cli, project) == [first["slug"]]
    # One memory, one `record` event: a repeat writes nothing and logs no write.
    assert [e["target_id"] for e in audit_events(cli, "record")] == [first["slug"]]
    assert cli("audit", "verify").returncode == 0


def test_spacing_of_the_title_and_trailing_blank_lines_do_not_count(cli, project: Path):
    slug = json.loads(_record(cli, project, "--json").stdout)["slug"]
    for title, body in ((TITLE.replace(" ", "  "), BODY), (TITLE, BODY + "\n\n  \n")):
        again = json.loads(_record(cli, project, "--json", title=title, body=body).stdout)
        assert (again["slug"], again["existing"]) == (slug, True), (title, body)


LONG = BODY + "\n" + "z" * 500 + "\nthe end: "


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ({}, {"title": "Postgres for the job queue"}),
        ({}, {"mtype": "fact"}),
        ({"body": LONG + "one"}, {"body": LONG + "two"}),  # the same first 500 characters
    ],
    ids=["title", "type", "after-500"],
)
def test_near_duplicates_are_written_and_shown_in_the_digest(cli, project: Path, first: dict, second: dict):
    a = json.loads(_record(cli, project, "--json", **first).stdout)["slug"]
    b = json.loads(_record(cli, project, "--json", **{**first, **second}).stdout)
    assert b["existing"] is False and b["slug"] != a
    d = Digest.model_validate_json(cli("digest", "--json").stdout)
    (group,) = d.duplicates
    assert {m.slug for m in group.memories} == {a, b["slug"]}


def test_another_scope_is_another_memory(cli, project: Path, tmp_path: Path):
    other = tmp_path / "other"
    other.mkdir()
    a = json.loads(_record(cli, project, "--json").stdout)
    b = json.loads(_record(cli, other, "--json").stdout)
    assert b["existing"] is False and b["slug"] != a["slug"]


def test_a_forgotten_memory_is_recorded_anew(cli, project: Path):
    slug = json.loads(_record(cli, project, "--json").stdout)["slug"]
    assert cli("forget", slug).returncode == 0
    again = json.loads(_record(cli, project, "--json").stdout)
    assert again["existing"] is False and again["slug"] != slug


def test_facade_reports_the_existing_one(project: Path):
    app = Memoryd()
    doc, changes = app.record(
        "warning", "Careful with prod", "Never migrate prod by hand.", scope_path=project
    )
    assert changes.created == (doc.meta.slug,) and changes.existing == ()
    again, repeat = app.record(
        "warning", "Careful with prod", "Never migrate prod by hand.", scope_path=project
    )
    assert again.meta.slug == doc.meta.slug and again.meta.title == "Careful with prod"
    assert repeat.created == () and repeat.existing == (doc.meta.slug,) and app.learned is None


def test_mcp_record_twice_gives_the_existing_memory(cli, project: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    args = {"type": "decision", "title": TITLE, "body": BODY, "triggers": ["postgres"]}

    async def go(c: Client) -> tuple[dict[str, Any], dict[str, Any]]:
        return await ok(c, "mem_record", args), await ok(c, "mem_record", args)

    first, second = session(go, client="claude-code")
    assert first["existing"] is False and "note" not in first
    assert second["slug"] == first["slug"] and second["existing"] is True
    assert first["slug"] in second["note"] and "already recorded" in second["note"].lower()
    assert _slugs(cli, project) == [first["slug"]]
    assert len(audit_events(cli, "record")) == 1


def test_two_records_at_once_make_one_memory(cli, project: Path, tmp_path: Path):
    """A holds the write lock between its check and its save (paused there); B, let go
    just before it takes the lock, waits for A and then finds A's memory. Without the lock
    B would check, find nothing and write a second one while A is paused."""
    argv = [sys.executable, "-m", "memoryd.cli.main", "record", "--type", "decision", "--title", TITLE]
    argv += ["--scope", str(project), "--body", BODY, "--json"]

    def start(point: str) -> tuple[subprocess.Popen[bytes], Path]:
        folder = tmp_path / point.replace(":", "-")
        folder.mkdir()
        env = {**os.environ, "MEMORYD_PAUSE_AT": point, "MEMORYD_PAUSE_DIR": str(folder)}
        proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 90
        while not (folder / f"{point}.reached").exists():
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.02)
        return proc, folder / f"{point}.go"

    a, a_go = start("record:checked")
    b, b_go = start("record:start")
    b_go.touch()
    with contextlib.suppress(subprocess.TimeoutExpired):
        b.wait(timeout=5)  # without the lock B would be done by now
    a_go.touch()
    outs = [p.communicate(timeout=120) for p in (a, b)]
    assert a.returncode == b.returncode == 0, outs
    results = [json.loads(o[0]) for o in outs]
    assert results[0]["slug"] == results[1]["slug"], results
    assert [r["existing"] for r in results] == [False, True]
    assert len(_slugs(cli, project)) == 1


# -- sensitive scopes ----------------------------------------------------------------------
@pytest.fixture
def sensitive(cli, secret_service: str, project: Path) -> Path:
    set_pin(cli)
    out = cli("mark-sensitive", str(project), stdin=PIN + "\n")
    assert out.returncode == 0, out.stderr
    return project


def test_sensitive_scope_with_a_grant(cli, sensitive: Path, isolated_home: Path):
    body = f"The payroll export goes to {CANARY} only."
    grant_pin(cli, sensitive, "session")
    first = json.loads(_record(cli, sensitive, "--json", title=f"Payroll {CANARY}", body=body).stdout)
    again = json.loads(_record(cli, sensitive, "--json", title=f"Payroll {CANARY}", body=body).stdout)
    assert again["slug"] == first["slug"] and again["existing"] is True
    assert len(enc_files(isolated_home)) == 1
    reads = [e for e in audit_events(cli, "sensitive_read") if e["target_id"] == first["slug"]]
    assert reads and json.loads(reads[-1]["details"])["what"] == "record"
    # Found through the keyed fingerprint the index already held: nothing in the clear.
    assert leaks(isolated_home) == []


def test_sensitive_scope_without_a_grant_says_nothing_of_what_it_holds(
    cli, sensitive: Path, isolated_home: Path
):
    """Writing needs no grant there, reading does: telling "already recorded" would let a
    writer confirm a guess of a memory's text, so without a grant the record is written."""
    body = f"The payroll export goes to {CANARY} only."
    first = json.loads(_record(cli, sensitive, "--json", title="Payroll", body=body).stdout)
    again = json.loads(_record(cli, sensitive, "--json", title="Payroll", body=body).stdout)
    assert again["existing"] is False and again["slug"] != first["slug"]
    assert len(enc_files(isolated_home)) == 2 and leaks(isolated_home) == []


def test_the_same_words_in_another_unicode_form_or_with_blank_lines_are_the_same_memory(
    cli, project: Path, isolated_home: Path
):
    """Red team: 'Café' typed on Linux (NFC) and pasted from macOS (NFD) made two memories,
    and so did a body with a blank line before it."""
    first = cli(
        "record", "--type", "fact", "--title", "Caf\u00e9 port", "--body", "Caf\u00e9 on port 1", cwd=project
    )
    slug = first.stdout.strip()
    again = cli(
        "record",
        "--type",
        "fact",
        "--title",
        "Cafe\u0301 port",
        "--body",
        "Cafe\u0301 on port 1",
        cwd=project,
    )
    assert again.stdout.strip() == f"already recorded as {slug}", again.stdout
    blank = cli(
        "record",
        "--type",
        "fact",
        "--title",
        "Caf\u00e9 port",
        "--body",
        "\n\nCaf\u00e9 on port 1\n\n",
        cwd=project,
    )
    assert blank.stdout.strip() == f"already recorded as {slug}", blank.stdout


def test_a_repeat_says_which_triggers_and_tags_it_did_not_add(cli, project: Path, isolated_home: Path):
    """Red team: a repeat with new --trigger/--tag dropped them without a word."""
    slug = cli("record", "--type", "decision", "--title", "T", "--body", "B", "--trigger", "old", cwd=project)
    slug = slug.stdout.strip()
    again = cli(
        "record",
        "--type",
        "decision",
        "--title",
        "T",
        "--body",
        "B",
        "--trigger",
        "old",
        "--trigger",
        "newtrig",
        "--tag",
        "t1",
        cwd=project,
    )
    assert again.returncode == 0
    line = again.stdout.strip()
    assert line.startswith(f"already recorded as {slug}") and "not added: newtrig, t1" in line, line


def test_a_name_drawn_twice_does_not_replace_the_first_memory(isolated_home, tmp_path, monkeypatch):
    """Names are the title's words, the date and two random bytes: CI (2026-11-28) recorded
    40 titles alike but for a last number on one day, two drew the same bytes, and the
    second memory was written over the first. The draw is pinned here to repeat once."""
    from memoryd import slugs
    from memoryd.app import Memoryd

    project = tmp_path / "proj"
    project.mkdir()
    import secrets

    real = secrets.token_hex
    draws = iter(["abcd", "abcd", "abce"])
    monkeypatch.setattr(slugs.secrets, "token_hex", lambda n=None: next(draws) if n == 2 else real(n))
    app = Memoryd()
    first = app.record("fact", "Deploy note", "first body", scope_path=project)[0].meta.slug
    second = app.record("fact", "Deploy note", "second body", scope_path=project)[0].meta.slug
    assert first != second
    assert app.get(first).doc.body.strip() == "first body"
    assert app.get(second).doc.body.strip() == "second body"
