"""`memoryd setup openclaw`: the memoryd skill in OpenClaw's shared skills folder
(OPENCLAW_STATE_DIR honoured), with valid frontmatter and only memoryd commands that
exist; uninstall removes the file and its folder."""

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
    env = {"OPENCLAW_STATE_DIR": str(state)}
    assert cli("setup", "openclaw", env=env).returncode == 0
    out = cli("setup", "openclaw", "--uninstall", env=env)
    assert out.returncode == 0, out.stderr
    assert not _skill(state).exists()
    assert not _skill(state).parent.exists()
    assert (state / "skills").is_dir(), "OpenClaw's own skills folder stays"


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
