"""CLI conventions hold for every command: --help, --json, one-line errors, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from memoryd.cli.parser import build_parser
from memoryd.db.engine import migrations

COMMANDS = sorted(build_parser()._subparsers._group_actions[0].choices)  # type: ignore[union-attr]


def test_every_command_is_listed():
    assert set(COMMANDS) >= {
        "capture",
        "worker",
        "scope",
        "record",
        "update",
        "get",
        "list",
        "forget",
        "search",
        "traces",
        "reindex",
        "doctor",
        "stats",
        "audit",
        "analyze-session",
        "analyze-pending",
        "promotions",
        "promote",
        "reject",
        "merge",
        "decay-sweep",
        "digest",
        "mark-sensitive",
        "unmark-sensitive",
        "rotate-key",
        "grant",
        "revoke",
        "grants",
        "key",
    }


# stdout is the MCP protocol channel (JSON-RPC) there: a --json switch would mean nothing.
NO_JSON = {"mcp"}


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help_with_an_example_and_json(command: str, cli):
    res = cli(command, "--help")
    assert res.returncode == 0
    assert "Example" in res.stdout
    assert ("--json" in res.stdout) is (command not in NO_JSON)


@pytest.mark.parametrize(
    "args",
    [
        ("nosuchcommand",),
        ("record",),
        ("record", "--type", "session", "--title", "t", "--body", "b"),
        ("list", "--type", "diary"),
        ("search",),
        ("get", "2026-01-01-missing-0000"),
        ("list", "--scope", "/definitely/not/here"),
        ("audit", "--since", "soon"),
        ("analyze-session", "2026-01-01-missing-0000"),
        ("analyze-session", "../../etc/passwd"),
        ("analyze-pending", "--limit", "0"),
        ("promote", "7"),
        ("promote", "-3"),
        ("reject", "x"),
        ("promotions", "--status", "maybe"),
        ("merge", "--keep", "a-1"),
        ("merge", "--keep", "2026-01-01-missing-0000", "--drop", "2026-01-01-gone-0000"),
        ("digest", "--since", "yesterday-ish"),
        ("mark-sensitive", "/definitely/not/here"),
        ("unmark-sensitive", "."),
        ("grant", ".", "--duration", "forever"),
        ("grant", ".", "--duration", "once"),
        ("revoke", ".", "--task", "nope"),
        ("key", "import", "/definitely/not/here.key"),
    ],
)
def test_errors_are_one_line_without_traceback(args: tuple[str, ...], cli):
    res = cli(*args)
    assert res.returncode in (1, 2)
    assert "Traceback" not in res.stderr
    assert res.stderr.count("\n") == 1 and res.stderr.startswith("memoryd: ")


def test_not_found_is_exit_1_usage_is_exit_2(cli):
    assert cli("get", "2026-01-01-missing-0000").returncode == 1
    assert cli("nosuchcommand").returncode == 2


def test_record_from_stdin_update_list_and_stats(cli, project: Path):
    res = cli(
        "record",
        "--type",
        "playbook",
        "--title",
        "Release",
        "--scope",
        str(project),
        stdin="1. tag\n2. push\n",
    )
    assert res.returncode == 0
    slug = res.stdout.strip()
    assert cli("record", "--type", "fact", "--title", "x", stdin=b"\xff\xfe").returncode == 2
    assert cli("record", "--type", "fact", "--title", "x", stdin="").returncode == 2
    upd = cli("update", slug, "--title", "Release steps", "--trigger", "release", "--json")
    assert json.loads(upd.stdout) == {"slug": slug, "changed": True}
    rows = json.loads(cli("list", "--scope", str(project), "--json").stdout)
    assert [(r["slug"], r["title"], r["type"]) for r in rows] == [(slug, "Release steps", "playbook")]
    stats = json.loads(cli("stats", "--json").stdout)
    assert stats["by_type"] == {"playbook": 1} and stats["schema_version"] == migrations()[-1][0]
    # record runs the knowledge-graph step (one `entities` save, none found in "Release"); the
    # new title names no entity either, so the update's step has nothing to rewrite.
    assert set(stats["last_runs"]) == {"record", "entities", "update"}
    events = json.loads(cli("audit", "--json").stdout)
    assert [(e["event_type"], e["target_id"]) for e in events] == [
        ("record", slug),
        ("entities", slug),
        ("update", slug),
    ]
    assert json.loads(events[1]["details"]) == {"by": "rules", "entities": 0}


def test_core_never_imports_qt():
    code = (
        "import sys, importlib, pkgutil\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('PySide6', 'shiboken6', 'PyQt5', 'PyQt6'):\n"
        "            raise ImportError('core must not import Qt: ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "import memoryd\n"
        "for m in pkgutil.walk_packages(memoryd.__path__, 'memoryd.'):\n"
        "    importlib.import_module(m.name)\n"
        "print('ok')\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert res.returncode == 0 and res.stdout.strip() == "ok", res.stderr


def test_hook_path_imports_nothing_heavy():
    code = (
        "import sys\n"
        "from memoryd.cli import main\n"
        "from memoryd.capture import hook\n"
        "heavy = [m for m in sys.modules if m.split('.')[0] in "
        "('sqlalchemy', 'sqlmodel', 'pydantic', 'anthropic', 'PySide6', 'yaml', 'argparse')]\n"
        "print(heavy)\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert res.stdout.strip() == "[]", res.stdout + res.stderr


def test_broken_config_is_one_clear_line(cli, tmp_path: Path):
    cfg = tmp_path / "config.toml"
    cfg.write_text("[capture\nmax_turns = 5\n")
    res = cli("stats")
    assert res.returncode == 2 and "not valid TOML" in res.stderr and res.stderr.count("\n") == 1
    cfg.write_text("[capture]\nmax_turnz = 5\n")
    res = cli("stats")
    assert res.returncode == 2 and "max_turnz" in res.stderr
    cfg.write_text("[capture]\nmax_turns = 5\n[search]\ndefault_limit = 3\n")
    assert cli("stats").returncode == 0
