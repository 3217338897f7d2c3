"""Projects by name (issue 22): the write paths note a scope's folder, and the CLI shows
"api (work/acme)" where it showed 113042906cf7, through the real CLI on a real store."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import anyio
from mcp import Client
from mcp.types import Implementation

from memoryd import projects
from memoryd.app import Memoryd
from memoryd.mcpserver import build
from memoryd.scope import resolve

from .governance.sessions import capture


def _record(cli, where: Path, title: str) -> str:
    out = cli("record", "--type", "fact", "--title", title, "--json", cwd=where, stdin=f"{title}, noted.")
    assert out.returncode == 0, out.stderr
    return str(json.loads(out.stdout)["slug"])


def _listed(cli) -> dict[str, dict]:
    out = cli("list", "--all-scopes", "--json")
    assert out.returncode == 0, out.stderr
    return {r["slug"]: r for r in json.loads(out.stdout)}


def _git(*args: str, cwd: Path) -> None:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t"}
    env |= {"GIT_COMMITTER_EMAIL": "t@t", "PATH": "/usr/bin:/bin:/usr/local/bin", "HOME": str(cwd)}
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=env)


def test_two_projects_of_one_name_are_told_apart_in_list_and_scope(cli, tmp_path: Path):
    work, personal = tmp_path / "work" / "acme" / "api", tmp_path / "personal" / "api"
    work.mkdir(parents=True)
    personal.mkdir(parents=True)
    a = _record(cli, work, "Use pnpm")
    b = _record(cli, personal, "Tabs not spaces")

    rows = _listed(cli)
    assert rows[a]["project"] == "api (work/acme)" and rows[b]["project"] == "api (personal)"
    keys = list(rows[a])
    assert keys[keys.index("scope_hash") + 1] == "project"  # next to scope_hash; the rest kept
    assert {"slug", "title", "type", "scope_hash", "decay_state", "created_at"} <= set(keys)

    text = cli("list", "--all-scopes")
    assert text.returncode == 0 and "project" in text.stdout.splitlines()[0]
    line = next(x for x in text.stdout.splitlines() if a in x)
    assert "api (work/acme)" in line and "Use pnpm" in line
    assert resolve(work).hash not in text.stdout  # the hash gave way to the name

    shown = cli("scope", str(work), "--json")
    assert json.loads(shown.stdout) == {
        "scope_hash": resolve(work).hash,
        "project": "api (work/acme)",
        "root": str(work.resolve()),
        "kind": "dir",
    }
    plain = cli("scope", cwd=personal)
    assert plain.returncode == 0
    assert plain.stdout == f"{resolve(personal).hash}  api (personal)  {personal.resolve()}  (dir)\n"


def test_scope_run_in_a_folder_names_it_and_a_third_namesake_renames_the_others(cli, tmp_path: Path):
    first, second = tmp_path / "a" / "web", tmp_path / "b" / "web"
    first.mkdir(parents=True)
    second.mkdir(parents=True)
    assert cli("scope", cwd=first).stdout.split("  ")[1] == "web"  # alone: just its name
    assert cli("scope", cwd=second).returncode == 0
    assert cli("scope", cwd=first).stdout.split("  ")[1] == "web (a)"
    names = Memoryd().project_names([resolve(first).hash, resolve(second).hash])
    assert [p.label for p in names.values()] == ["web (a)", "web (b)"]
    assert [p.root for p in names.values()] == [str(first.resolve()), str(second.resolve())]


def test_a_captured_session_is_listed_under_its_folder(cli, tmp_path: Path):
    shop = tmp_path / "shop-frontend"
    shop.mkdir()
    slug = capture(
        cli, shop, tmp_path, "sess-names-1", [("Fix the cart badge", "Fixed: the count was stale.")]
    )
    assert slug
    assert _listed(cli)[slug]["project"] == "shop-frontend"


def test_a_worktree_is_named_after_its_repository(cli, tmp_path: Path):
    repo = tmp_path / "billing"
    repo.mkdir()
    _git("init", "-q", cwd=repo)
    (repo / "f").write_text("x")
    _git("add", "f", cwd=repo)
    _git("commit", "-qm", "init", cwd=repo)
    tree = tmp_path / "billing-fix-rounding"
    _git("worktree", "add", "-q", str(tree), cwd=repo)
    slug = _record(cli, tree, "Round half to even")
    assert _listed(cli)[slug]["project"] == "billing"
    shown = json.loads(cli("scope", "--json", cwd=tree).stdout)
    assert shown["project"] == "billing" and shown["kind"] == "git"


def test_a_hash_never_seen_shows_as_itself(cli, project: Path):
    _record(cli, project, "Something")
    unknown = "0123456789ab"
    got = Memoryd().project_names([unknown, resolve(project).hash])
    assert got[unknown].label == unknown and got[unknown].root is None and not got[unknown].withheld
    assert got[resolve(project).hash].label == "proj"


def test_a_record_through_mcp_names_its_project(tmp_path: Path, monkeypatch):
    """mem_record over the real MCP client, in process: its scope is noted too."""
    where = tmp_path / "mcp-project"
    where.mkdir()
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(where))
    args = {"type": "fact", "title": "Ports", "body": "The API listens on 8080."}

    async def go() -> bool:
        async with Client(build(), client_info=Implementation(name="pytest", version="1.0")) as c:
            return bool((await c.call_tool("mem_record", args)).is_error)

    assert anyio.run(go) is False
    h = resolve(where).hash
    assert Memoryd().project_names([h])[h].label == "mcp-project"


def test_digest_json_and_text_name_the_project(cli, tmp_path: Path):
    app_dir = tmp_path / "invoicing"
    app_dir.mkdir()
    remember = (
        "Remember: in this repo always run the migrations before the tests. This is important.",
        "Understood: migrations first, then tests.",
    )
    session = capture(cli, app_dir, tmp_path, "sess-names-digest", [remember])
    assert json.loads(cli("analyze-session", session, "--json").stdout)["promotion_id"]
    d = json.loads(cli("digest", "--json").stdout)
    (p,) = d["pending_promotions"]
    assert p["project"] == "invoicing" and p["scope_hash"] == resolve(app_dir).hash
    keys = list(p)
    assert keys[keys.index("scope_hash") + 1] == "project"
    text = cli("digest").stdout
    assert f"from {session} [invoicing]" in text, text


def test_names_are_worked_out_when_read():
    """The naming rule alone: a folder's name, and the differing part of the parents."""
    rows = [
        projects.Row("a" * 12, "api", "/home/u/work/acme/api", "git", None),
        projects.Row("b" * 12, "api", "/home/u/personal/api", "dir", None),
        projects.Row("c" * 12, "api", "/home/u/api", "dir", None),
        projects.Row("d" * 12, "docs", "/srv/docs", "dir", None),
        projects.Row("e" * 12, None, None, "dir", "enc:..."),
    ]
    got = projects.describe(rows, ["a" * 12, "b" * 12, "c" * 12, "d" * 12, "e" * 12, "f" * 12])
    assert [p.label for p in got.values()] == [
        "api (work/acme)",
        "api (personal)",
        "api (u)",
        "docs",
        f"sensitive project {'e' * 12}",
        "f" * 12,
    ]


def test_a_row_below_a_sensitive_root_is_withheld_and_names_no_namesake():
    """Marking withholds the rows below its root: they show as withheld and no longer
    make a plain namesake show its parents."""
    import sqlite3

    con = sqlite3.connect(":memory:")
    con.execute(
        "CREATE TABLE project_names (scope_hash TEXT PRIMARY KEY, name TEXT, root TEXT, "
        "kind TEXT NOT NULL DEFAULT 'dir', sealed TEXT, seen_at TEXT NOT NULL)"
    )
    now = "2026-01-01T00:00:00Z"
    projects.put_clear(con, "a" * 12, "/w/acme", "dir", now)
    projects.put_clear(con, "b" * 12, "/w/acme/docs", "dir", now)
    projects.put_clear(con, "c" * 12, "/w/acme-other/docs", "dir", now)  # a prefix, not below
    projects.put_clear(con, "d" * 12, "/w/plain/docs", "dir", now)
    assert projects.withhold_below(con, "/w/acme", "a" * 12) == 1
    got = projects.describe(projects.rows(con), ["b" * 12, "c" * 12, "d" * 12])
    assert got["b" * 12].withheld and got["b" * 12].root is None
    assert got["c" * 12].label == "docs (acme-other)" and got["d" * 12].label == "docs (plain)"
    assert not projects.is_within("/w/acmeX", "/w/acme") and projects.is_within("/w/acme", "/w/acme/")
