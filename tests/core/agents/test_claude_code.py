"""`memoryd setup claude-code`: our hooks go into settings.json beside the user's own,
a rerun changes nothing, a backup keeps the original, `--uninstall` gives it back, the
MCP server is registered where `claude mcp add` puts it; bad files are left alone."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import memoryd
from tests.core.sensitive.support import one_line_error

Cli = Callable[..., subprocess.CompletedProcess[str]]

ORIGINAL: dict[str, Any] = {
    "model": "claude-opus-4-1",
    "permissions": {"allow": ["Bash(npm test:*)", "Read(~/.zshrc)"], "deny": ["Bash(rm -rf:*)"]},
    "env": {"NODE_ENV": "development"},
    "hooks": {
        "Stop": [{"hooks": [{"type": "command", "command": "echo hi"}]}],
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/guard.sh", "timeout": 5}]}
        ],
    },
    "statusLine": {"type": "command", "command": "~/bin/status.sh"},
}
# The user's own formatting, which setup may reflow but must parse to the same values.
ORIGINAL_TEXT = json.dumps(ORIGINAL, indent=4) + "\n"
OUR_EVENTS = {
    "SessionStart": (None, ["inject", "--format", "claude-hook"]),
    "Stop": (None, ["capture", "--source=claude-code"]),
    "PreCompact": (None, ["capture", "--source=claude-code"]),
    "SessionEnd": (None, ["capture", "--source=claude-code"]),
}


@pytest.fixture
def home() -> Path:
    """The HOME the autouse fixture made (tmp/userhome)."""
    return Path(os.environ["HOME"])


def _settings(home: Path) -> Path:
    return home / ".claude" / "settings.json"


def _write_original(home: Path) -> Path:
    path = _settings(home)
    path.parent.mkdir(parents=True)
    path.write_text(ORIGINAL_TEXT, encoding="utf-8")
    return path


def _backups(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if ".memoryd-backup-" in p.name)


def _is_memoryd(command: str, portable: bool = False) -> bool:
    """This interpreter, -S, on the installed memoryd package's hookrun.py (fast start-up);
    in a project's files, which teams commit, the bare `memoryd` instead."""
    argv = shlex.split(command)
    if portable:
        return argv[0] == "memoryd"
    hookrun = Path(memoryd.__file__).resolve().parent / "hookrun.py"
    return argv[:3] == [sys.executable, "-S", str(hookrun)]


def _check_ours_appended(before: dict[str, Any], after: dict[str, Any], portable: bool = False) -> None:
    """Every key but hooks unchanged; every event's groups start with the user's groups,
    untouched, and end with exactly one group of ours for each of our events."""
    assert {k: v for k, v in after.items() if k != "hooks"} == {
        k: v for k, v in before.items() if k != "hooks"
    }
    old_hooks, new_hooks = before.get("hooks", {}), after["hooks"]
    assert set(new_hooks) == set(old_hooks) | set(OUR_EVENTS)
    for event, groups in new_hooks.items():
        mine = old_hooks.get(event, [])
        assert groups[: len(mine)] == mine, event
        added = groups[len(mine) :]
        if event not in OUR_EVENTS:
            assert added == [], event
            continue
        matcher, args = OUR_EVENTS[event]
        assert len(added) == 1, (event, added)
        (group,) = added
        assert group.get("matcher") == matcher
        (handler,) = group["hooks"]
        assert handler["type"] == "command" and _is_memoryd(handler["command"], portable), handler
        assert shlex.split(handler["command"])[-len(args) :] == args
        if event == "SessionEnd":
            assert "timeout" not in handler, "a SessionEnd timeout raises every SessionEnd hook's budget"
        else:
            assert handler["timeout"] == 10


def test_setup_keeps_the_users_hooks_and_keys(cli: Cli, home: Path) -> None:
    path = _write_original(home)
    out = cli("setup", "claude-code")
    assert out.returncode == 0, out.stderr
    _check_ours_appended(ORIGINAL, json.loads(path.read_text(encoding="utf-8")))


def test_setup_twice_is_setup_once(cli: Cli, home: Path) -> None:
    """A rerun writes nothing: same bytes, no second backup."""
    path = _write_original(home)
    assert cli("setup", "claude-code").returncode == 0
    once = path.read_bytes()
    claude_json = (home / ".claude.json").read_bytes()
    backups = _backups(path.parent) + _backups(home)
    again = cli("setup", "claude-code", "--json")
    assert again.returncode == 0, again.stderr
    report = json.loads(again.stdout)
    assert report["changed"] == [] and report["backups"] == []
    assert path.read_bytes() == once
    assert (home / ".claude.json").read_bytes() == claude_json
    assert _backups(path.parent) + _backups(home) == backups


def test_a_rerun_replaces_an_older_memoryd_handler(cli: Cli, home: Path) -> None:
    """Handlers of an earlier install (say, another path to memoryd) are replaced, not
    doubled; the user's handler in the same group stays."""
    stale = dict(ORIGINAL)
    stale["hooks"] = {
        **ORIGINAL["hooks"],
        "Stop": [
            {
                "hooks": [
                    {"type": "command", "command": "echo hi"},
                    {"type": "command", "command": "/opt/old/bin/memoryd capture --source=claude-code"},
                ]
            }
        ],
    }
    path = _settings(home)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(stale), encoding="utf-8")
    assert cli("setup", "claude-code").returncode == 0
    after = json.loads(path.read_text(encoding="utf-8"))
    _check_ours_appended(ORIGINAL, after)
    assert "/opt/old" not in path.read_text(encoding="utf-8")


def test_backup_holds_the_original_and_uninstall_gives_it_back(cli: Cli, home: Path) -> None:
    path = _write_original(home)
    out = cli("setup", "claude-code", "--json")
    assert out.returncode == 0, out.stderr
    (backup,) = _backups(path.parent)
    assert backup.read_text(encoding="utf-8") == ORIGINAL_TEXT
    assert json.loads(out.stdout)["backups"] == [str(backup)]

    out = cli("setup", "claude-code", "--uninstall")
    assert out.returncode == 0, out.stderr
    assert json.loads(path.read_text(encoding="utf-8")) == ORIGINAL
    assert not (home / ".claude.json").exists(), "setup created ~/.claude.json, uninstall removes it"
    again = cli("setup", "claude-code", "--uninstall", "--json")
    assert again.returncode == 0 and json.loads(again.stdout)["changed"] == []


def test_uninstall_keeps_an_empty_hooks_object_the_user_had(cli: Cli, home: Path) -> None:
    """Exactly what setup added goes: a `"hooks": {}` or an empty event list that was
    there before setup is still there after uninstall."""
    original = {"model": "sonnet", "hooks": {"Stop": []}}
    path = _settings(home)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(original), encoding="utf-8")
    assert cli("setup", "claude-code").returncode == 0
    assert cli("setup", "claude-code", "--uninstall").returncode == 0
    assert json.loads(path.read_text(encoding="utf-8")) == original


def test_fresh_home_setup_then_uninstall_removes_what_it_created(cli: Cli, home: Path) -> None:
    """No settings.json and no ~/.claude.json before: setup creates both, and uninstall
    removes both rather than leaving `{}` behind."""
    assert cli("setup", "claude-code").returncode == 0
    after = json.loads(_settings(home).read_text(encoding="utf-8"))
    _check_ours_appended({}, after)
    assert (home / ".claude.json").is_file()
    assert cli("setup", "claude-code", "--uninstall").returncode == 0
    assert not _settings(home).exists()
    assert not (home / ".claude.json").exists()


def test_dry_run_writes_nothing_and_prints_a_diff(cli: Cli, home: Path, isolated_home: Path) -> None:
    path = _write_original(home)

    def tree() -> dict[str, bytes]:
        files = [p for root in (home, isolated_home) if root.exists() for p in root.rglob("*")]
        return {str(p): p.read_bytes() for p in files if p.is_file()}

    before = tree()
    out = cli("setup", "claude-code", "--dry-run")
    assert out.returncode == 0, out.stderr
    assert tree() == before
    assert f"--- {path} (now)" in out.stdout and f"+++ {path} (after)" in out.stdout
    assert "@@" in out.stdout
    added = [ln for ln in out.stdout.splitlines() if ln.startswith("+") and not ln.startswith("+++")]
    assert any("inject --format claude-hook" in ln for ln in added)
    assert any('"mcpServers"' in ln for ln in added)
    assert "would change" in out.stdout

    assert cli("setup", "claude-code").returncode == 0
    installed = tree()
    out = cli("setup", "claude-code", "--uninstall", "--dry-run")
    assert out.returncode == 0 and tree() == installed
    assert any(ln.startswith("-") and "capture --source=claude-code" in ln for ln in out.stdout.splitlines())


def test_project_setup_writes_the_projects_files(cli: Cli, home: Path, project: Path) -> None:
    """--project PATH: <project>/.claude/settings.json and <project>/.mcp.json; the user's
    own files are not touched. --project alone means the current directory."""
    out = cli("setup", "claude-code", "--project", str(project))
    assert out.returncode == 0, out.stderr
    settings = json.loads((project / ".claude" / "settings.json").read_text(encoding="utf-8"))
    _check_ours_appended({}, settings, portable=True)
    server = json.loads((project / ".mcp.json").read_text(encoding="utf-8"))["mcpServers"]["memoryd"]
    assert server["args"][-1] == "mcp"
    assert not _settings(home).exists() and not (home / ".claude.json").exists()

    out = cli("setup", "claude-code", "--project", "--uninstall", cwd=project)
    assert out.returncode == 0, out.stderr
    assert not (project / ".claude" / "settings.json").exists()
    assert not (project / ".mcp.json").exists()


@pytest.mark.parametrize("junk", ['{"model": "opus",', "not json at all", "[1, 2, 3]"])
def test_a_settings_file_that_is_not_a_json_object_is_left_alone(cli: Cli, home: Path, junk: str) -> None:
    path = _settings(home)
    path.parent.mkdir(parents=True)
    path.write_text(junk, encoding="utf-8")
    out = cli("setup", "claude-code")
    one_line_error(out, 2, str(path))
    assert path.read_text(encoding="utf-8") == junk
    assert _backups(path.parent) == []
    assert not (home / ".claude.json").exists(), "nothing at all is changed"


def test_mcp_server_is_registered_in_claude_json(cli: Cli, home: Path, isolated_home: Path) -> None:
    """~/.claude.json mcpServers.memoryd: stdio, an absolute program, args ending in `mcp`,
    the data directory passed on; the user's other servers and keys stay."""
    claude_json = home / ".claude.json"
    theirs = {
        "numStartups": 42,
        "projects": {"/src/app": {"allowedTools": []}},
        "mcpServers": {"github": {"type": "stdio", "command": "gh-mcp", "args": []}},
    }
    claude_json.write_text(json.dumps(theirs), encoding="utf-8")
    assert cli("setup", "claude-code").returncode == 0
    data = json.loads(claude_json.read_text(encoding="utf-8"))
    entry = data["mcpServers"]["memoryd"]
    assert entry["type"] == "stdio"
    assert Path(entry["command"]).is_absolute()
    assert entry["args"][-1] == "mcp"
    assert entry["env"] == {"MEMORYD_HOME": str(isolated_home)}
    assert {k: v for k, v in data.items() if k != "mcpServers"} == {
        k: v for k, v in theirs.items() if k != "mcpServers"
    }
    assert data["mcpServers"]["github"] == theirs["mcpServers"]["github"]

    assert cli("setup", "claude-code", "--uninstall").returncode == 0
    assert json.loads(claude_json.read_text(encoding="utf-8")) == theirs


def test_hooks_written_without_memoryd_on_path_still_run(cli: Cli, home: Path, project: Path) -> None:
    """memoryd reached as `python -m memoryd.cli.main` with no `memoryd` on PATH (a venv
    not activated): the command setup writes must still run."""
    out = cli("setup", "claude-code", env={"PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    settings = json.loads(_settings(home).read_text(encoding="utf-8"))
    command = settings["hooks"]["SessionStart"][-1]["hooks"][0]["command"]
    payload = {
        "session_id": "s1",
        "transcript_path": "",
        "cwd": str(project),
        "hook_event_name": "SessionStart",
    }
    run = subprocess.run(
        ["sh", "-c", command],
        input=json.dumps(payload).encode(),
        capture_output=True,
        cwd=project,
        env=os.environ,
        timeout=60,
        check=False,
    )
    assert run.returncode == 0, (command, run.stderr.decode())
    assert json.loads(run.stdout)["hookSpecificOutput"]["hookEventName"] == "SessionStart"


def _styles() -> dict[str, str]:
    pretty = ORIGINAL_TEXT
    jsonc = "// my Claude Code settings\n" + pretty.replace(
        '"model": "claude-opus-4-1",', '"model": "claude-opus-4-1", // pinned on purpose'
    ).replace('"env": {', '/* for the tests */ "env": {').replace(
        '"command": "echo hi"', '"command": "echo hi" /* mine */'
    )
    return {
        "pretty": pretty,
        "compact": json.dumps(ORIGINAL, separators=(",", ":")),
        "jsonc": jsonc,
        "crlf": pretty.replace("\n", "\r\n"),
    }


STYLES = _styles()


def _without_hooks(text: str) -> str:
    """The same file with no "hooks" key, so install creates the hooks object."""
    start = text.index('"hooks"')
    end = text.index('"statusLine"')
    return text[:start] + text[end:]


@pytest.mark.parametrize("style", sorted(STYLES))
@pytest.mark.parametrize("hooks", ["theirs", "none"])
def test_install_then_uninstall_gives_the_same_bytes(cli: Cli, home: Path, style: str, hooks: str) -> None:
    """The four styles, with the user's hooks or with none (install creates the hooks
    object, uninstall takes exactly it away): `cmp`-identical after uninstall, and every
    byte of the user's still there, in order, after install."""
    text = STYLES[style] if hooks == "theirs" else _without_hooks(STYLES[style])
    path = _settings(home)
    path.parent.mkdir(parents=True)
    path.write_bytes(text.encode("utf-8"))
    out = cli("setup", "claude-code")
    assert out.returncode == 0, out.stderr
    if style == "jsonc":  # kept, and the user told once that Claude Code refuses them
        assert out.stderr.count("\n") == 1 and "comments" in out.stderr and str(path) in out.stderr
    else:
        assert out.stderr == ""
    installed = path.read_bytes()
    it = iter(installed)
    assert all(b in it for b in text.encode("utf-8")), "the user's bytes are all kept, in order"
    if style == "crlf":
        assert b"\n" not in installed.replace(b"\r\n", b"")
    if style == "compact":
        assert b"\n" not in installed
    if style != "jsonc":
        original = json.loads(text)
        _check_ours_appended(original, json.loads(installed))
    out = cli("setup", "claude-code", "--uninstall")
    assert out.returncode == 0, out.stderr
    assert path.read_bytes() == text.encode("utf-8")


@pytest.mark.parametrize("bom", [True, False])
def test_a_bom_and_a_missing_final_newline_are_kept(cli: Cli, home: Path, bom: bool) -> None:
    text = ("\ufeff" if bom else "") + ORIGINAL_TEXT.rstrip("\n")
    path = _settings(home)
    path.parent.mkdir(parents=True)
    path.write_bytes(text.encode("utf-8"))
    assert cli("setup", "claude-code").returncode == 0
    installed = path.read_bytes()
    assert installed.startswith(b"\xef\xbb\xbf{" if bom else b"{") and not installed.endswith(b"\n")
    assert cli("setup", "claude-code", "--uninstall").returncode == 0
    assert path.read_bytes() == text.encode("utf-8")


def test_notes_only_when_something_changed(cli: Cli, home: Path) -> None:
    """The restart note follows a change: not on --dry-run, not on a rerun that changed
    nothing; the dry run still prints its diff."""
    _write_original(home)
    dry = cli("setup", "claude-code", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "@@" in dry.stdout and "note:" not in dry.stdout, dry.stdout
    assert json.loads(cli("setup", "claude-code", "--dry-run", "--json").stdout)["notes"] == []
    first = cli("setup", "claude-code")
    assert first.returncode == 0 and "note: restart Claude Code" in first.stdout, first.stdout
    once = _settings(home).read_bytes()
    again = cli("setup", "claude-code")
    assert again.returncode == 0, again.stderr
    assert "note:" not in again.stdout, again.stdout
    assert _settings(home).read_bytes() == once


def test_project_files_hold_no_path_of_this_machine(cli: Cli, home: Path, project: Path) -> None:
    """.claude/settings.json and .mcp.json are committed: the bare `memoryd`, no venv or
    temporary path, no home, no data directory of this machine."""
    out = cli("setup", "claude-code", "--project", str(project))
    assert out.returncode == 0, out.stderr
    for path in (project / ".claude" / "settings.json", project / ".mcp.json"):
        text = path.read_text(encoding="utf-8")
        for local in (str(project.parent), sys.executable, str(Path(sys.executable).parent), str(home)):
            assert local not in text, (path, local)
        assert '"/' not in text and "/home/" not in text and "hookrun.py" not in text, text
    server = json.loads((project / ".mcp.json").read_text(encoding="utf-8"))["mcpServers"]["memoryd"]
    assert server["command"] == "memoryd" and server["args"] == ["mcp"]


def test_project_setup_warns_when_memoryd_is_not_on_path(cli: Cli, project: Path) -> None:
    out = cli("setup", "claude-code", "--project", str(project), env={"PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    warnings = [ln for ln in out.stderr.splitlines() if "PATH" in ln]
    assert len(warnings) == 1 and "memoryd" in warnings[0], out.stderr


# Shapes the red team tried on the merged issue 23: each hung setup (the first two), lost
# the user's empty mcpServers, or came back with bytes changed. (An empty container holding
# only a line break comes back as `{}`: its line break cannot be told from the one an
# install adds, see test_jsonedit.py.)
COMMENTED_EMPTY = {
    "line-comment-in-compact-list": ("settings", '{"hooks": {"Stop": [ // none yet\n]}}\n'),
    "line-comment-in-compact-servers": ("claude", '{"numStartups": 3, "mcpServers": { // mine\n}}\n'),
    "block-comment-in-pretty-list": ("settings", '{\n  "hooks": {\n    "Stop": [ /* none yet */ ]\n  }\n}\n'),
    "block-comment-only": ("settings", "{ /* c */ }"),
    "block-comment-in-hooks": ("settings", '{\n  "hooks": { /* mine later */ }\n}\n'),
    "empty-servers": ("claude", '{"numStartups": 3, "mcpServers": {}}\n'),
}


@pytest.mark.parametrize("case", sorted(COMMENTED_EMPTY))
def test_empty_containers_with_comments_round_trip(cli: Cli, home: Path, case: str) -> None:
    which, text = COMMENTED_EMPTY[case]
    path = _settings(home) if which == "settings" else home / ".claude.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="")
    out = cli("setup", "claude-code", timeout=30)
    assert out.returncode == 0, out.stderr
    assert "memoryd" in path.read_text(encoding="utf-8")
    out = cli("setup", "claude-code", "--uninstall", timeout=30)
    assert out.returncode == 0, out.stderr
    assert path.read_bytes() == text.encode("utf-8")


def test_a_symlinked_settings_file_keeps_the_users_empty_shapes(cli: Cli, home: Path, tmp_path: Path) -> None:
    """A dotfile manager's link: the ledger entry is found through the link on uninstall."""
    target = tmp_path / "dotfiles" / "settings.json"
    target.parent.mkdir()
    text = '{"hooks": {"Stop": []}}'
    target.write_text(text, encoding="utf-8")
    link = _settings(home)
    link.parent.mkdir(parents=True)
    link.symlink_to(target)
    assert cli("setup", "claude-code").returncode == 0
    assert cli("setup", "claude-code", "--uninstall").returncode == 0
    assert link.is_symlink() and target.read_text(encoding="utf-8") == text
