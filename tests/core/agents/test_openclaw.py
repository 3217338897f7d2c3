"""`memoryd setup openclaw`: the memoryd skill in OpenClaw's shared skills folder
(OPENCLAW_STATE_DIR honoured), with frontmatter every OpenClaw parser reads (metadata as
one line of JSON, the `memoryd` binary declared) and only memoryd commands that exist; a
warning when `memoryd` is not on PATH; uninstall removes the file and every folder setup
created, never one that was there before."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from memoryd.agents import openclaw

Cli = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def state(tmp_path: Path) -> Path:
    return tmp_path / "oc-state"


def _skill(state: Path) -> Path:
    return state / "skills" / "memoryd" / "SKILL.md"


def _frontmatter(text: str) -> dict[str, object]:
    assert text.startswith("---\n")
    head = text[4 : text.index("\n---\n", 4)]
    data = yaml.safe_load(head)
    assert isinstance(data, dict)
    return data


def _commands(text: str) -> list[list[str]]:
    """Every memoryd command line the skill shows: indented code lines and inline code
    spans that start with `memoryd `."""
    found = [ln.strip() for ln in text.splitlines() if ln.startswith("    memoryd ")]
    found += re.findall(r"`(memoryd [^`]+)`", text)
    return [shlex.split(c) for c in found]


def test_setup_installs_the_skill_where_openclaw_state_dir_says(cli: Cli, state: Path) -> None:
    out = cli("setup", "openclaw", env={"OPENCLAW_STATE_DIR": str(state)})
    assert out.returncode == 0, out.stderr
    skill = _skill(state)
    text = skill.read_text(encoding="utf-8")
    assert text == openclaw.skill_text()
    meta = _frontmatter(text)
    assert meta["name"] == "memoryd"
    assert isinstance(meta["description"], str) and len(meta["description"]) > 40
    assert not (Path(os.environ["HOME"]) / ".openclaw").exists()

    again = cli("setup", "openclaw", "--json", env={"OPENCLAW_STATE_DIR": str(state)})
    assert again.returncode == 0 and json.loads(again.stdout)["changed"] == []
    assert sorted(p.name for p in skill.parent.iterdir()) == ["SKILL.md"], "no backups of our own file"


def test_default_state_dir_is_dot_openclaw(cli: Cli) -> None:
    assert cli("setup", "openclaw").returncode == 0
    assert _skill(Path(os.environ["HOME"]) / ".openclaw").is_file()


def test_every_command_the_skill_mentions_exists(cli: Cli) -> None:
    """An agent follows the skill literally: each `memoryd <sub>` must exist, and each
    option shown must be one the subcommand takes."""
    commands = _commands(openclaw.skill_text())
    subs = {argv[1] for argv in commands}
    assert {"inject", "search", "get", "traces", "record", "grant"} <= subs, subs
    for sub in sorted(subs):
        out = cli(sub, "--help")
        assert out.returncode == 0, (sub, out.stderr)
        helps = out.stdout
        for argv in (a for a in commands if a[1] == sub):
            for word in argv[2:]:
                if word.startswith("--"):
                    assert word.split("=")[0] in helps, (sub, word)
            if sub == "import":
                assert argv[2] in helps, (sub, argv[2])


def test_the_skills_example_commands_run(cli: Cli, project: Path) -> None:
    """The examples without placeholders, run as written in a fresh home: they work and
    their --json output is JSON."""
    ran = 0
    for argv in _commands(openclaw.skill_text()):
        if any(w.isupper() or w.startswith("~") for w in argv[2:]):
            continue  # SLUG, PATH, ~/.openclaw: for the agent to fill in
        out = cli(*argv[1:], cwd=project)
        assert out.returncode == 0, (argv, out.stderr)
        if "--json" in argv:
            json.loads(out.stdout)
        ran += 1
    assert ran >= 5


def test_uninstall_removes_the_file_and_the_folder(cli: Cli, state: Path) -> None:
    (state / "skills").mkdir(parents=True)
    env = {"OPENCLAW_STATE_DIR": str(state)}
    assert cli("setup", "openclaw", env=env).returncode == 0
    out = cli("setup", "openclaw", "--uninstall", env=env)
    assert out.returncode == 0, out.stderr
    assert not _skill(state).exists()
    assert not _skill(state).parent.exists()
    assert (state / "skills").is_dir(), "OpenClaw's own skills folder, there before setup, stays"


@pytest.mark.parametrize("existed", ["nothing", "state dir"])
def test_uninstall_removes_the_folders_setup_created(cli: Cli, state: Path, existed: str) -> None:
    """A first setup creates `skills/` (and the state dir, before OpenClaw ever ran):
    uninstall takes away what it created and leaves what was there."""
    if existed == "state dir":
        state.mkdir()
    env = {"OPENCLAW_STATE_DIR": str(state)}
    assert cli("setup", "openclaw", env=env).returncode == 0
    assert cli("setup", "openclaw", env=env).returncode == 0  # a rerun changes nothing
    assert cli("setup", "openclaw", "--uninstall", env=env).returncode == 0
    assert not (state / "skills").exists()
    assert state.exists() == (existed == "state dir")


def test_uninstall_keeps_a_created_folder_that_now_holds_the_users_skill(cli: Cli, state: Path) -> None:
    env = {"OPENCLAW_STATE_DIR": str(state)}
    assert cli("setup", "openclaw", env=env).returncode == 0
    theirs = state / "skills" / "theirs" / "SKILL.md"
    theirs.parent.mkdir()
    theirs.write_text("---\nname: theirs\ndescription: mine\n---\n", encoding="utf-8")
    assert cli("setup", "openclaw", "--uninstall", env=env).returncode == 0
    assert not _skill(state).parent.exists()
    assert theirs.is_file()


def test_frontmatter_reads_in_every_openclaw_parser() -> None:
    """OpenClaw parses frontmatter as YAML and falls back to a single-line-only parser
    (older releases had only that one): each key on one line, `metadata` one line of JSON
    declaring the `memoryd` binary, so OpenClaw offers the skill only where it can run."""
    text = openclaw.skill_text()
    head = text[4 : text.index("\n---\n", 4)].splitlines()
    assert all(re.match(r"[a-z][a-z-]*: \S", ln) for ln in head), head
    keys = dict(ln.split(": ", 1) for ln in head)
    assert keys["name"] == "memoryd" == _frontmatter(text)["name"]
    meta = json.loads(keys["metadata"])
    assert meta == _frontmatter(text)["metadata"]
    assert meta["openclaw"]["requires"] == {"bins": ["memoryd"]}
    assert 0 < len(_frontmatter(text)["description"]) <= 1024  # the AgentSkills limit


def _warnings(out: subprocess.CompletedProcess[str]) -> list[str]:
    assert out.returncode == 0, out.stderr
    lines = (out.stdout + out.stderr).splitlines()
    return [ln for ln in lines if "PATH" in ln]


def test_setup_warns_when_memoryd_is_not_on_path(cli: Cli, state: Path, tmp_path: Path) -> None:
    """OpenClaw loads the skill only when `memoryd` is on PATH (requires.bins): a venv
    install is not, and setup says so in one line, with the fix."""
    bare = tmp_path / "bare-bin"
    bare.mkdir()
    env = {"OPENCLAW_STATE_DIR": str(state), "PATH": str(bare)}
    (warning,) = _warnings(cli("setup", "openclaw", env=env))
    assert "memoryd" in warning and "OpenClaw" in warning, warning
    out = cli("setup", "openclaw", "--json", "--dry-run", env=env)  # a rerun or dry run says it too
    (warning,) = json.loads(out.stdout)["warnings"]
    assert "memoryd" in warning and "OpenClaw" in warning, warning

    found = tmp_path / "with-memoryd"
    found.mkdir()
    script = found / "memoryd"
    script.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    script.chmod(0o755)
    assert _warnings(cli("setup", "openclaw", env={**env, "PATH": str(found)})) == []
    assert _warnings(cli("setup", "openclaw", "--uninstall", env=env)) == []


def test_uninstall_keeps_a_folder_with_the_users_files(cli: Cli, state: Path) -> None:
    env = {"OPENCLAW_STATE_DIR": str(state)}
    assert cli("setup", "openclaw", env=env).returncode == 0
    notes = _skill(state).parent / "NOTES.md"
    notes.write_text("mine\n", encoding="utf-8")
    assert cli("setup", "openclaw", "--uninstall", env=env).returncode == 0
    assert not _skill(state).exists()
    assert notes.read_text(encoding="utf-8") == "mine\n"


def test_dry_run_installs_nothing(cli: Cli, state: Path) -> None:
    out = cli("setup", "openclaw", "--dry-run", env={"OPENCLAW_STATE_DIR": str(state)})
    assert out.returncode == 0, out.stderr
    assert not state.exists()
    assert "+name: memoryd" in out.stdout
