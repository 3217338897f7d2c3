"""`memoryd inject`: fit() cuts a snapshot to a real token budget, least important lines
first; identity_lines() reads the profile's gist; quick_scope() finds the same scope as
memoryd.scope.resolve without running git; the CLI fast path answers hooks and users."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from memoryd import inject, tokencount
from memoryd.app import Memoryd
from memoryd.scope import resolve
from tests.core.sensitive.support import one_line_error

Cli = Callable[..., subprocess.CompletedProcess[str]]

HEADER = [
    "# Memory for this project",
    "Updated 2026-11-22 10:00 UTC from 22 long-term memories and 5 sessions.",
]
WORDS = [
    "cache",
    "ledger",
    "billing",
    "postgres",
    "retry",
    "backoff",
    "jitter",
    "schema",
    "lockfile",
    "pnpm",
    "invoice",
    "webhook",
]


def _item(prefix: str, i: int, label: str) -> str:
    """A line of roughly 60 tokens, unique by its `prefix` and number."""
    filler = " ".join(WORDS[(i + k) % len(WORDS)] for k in range(50))
    return f"- {label}{prefix}{i:02d} {filler}."


SECTIONS: dict[str, list[str]] = {
    "## About the user": [_item("ABOUT", i, "") for i in range(3)],
    "## Constraints": [_item("CONS", i, "[warning] ") for i in range(12)],
    "## Key memories": [_item("KEY", i, "[fact] ") for i in range(10)],
    "## Recent sessions": [_item("SESS", i, "2026-11-20 (claude-code): ") for i in range(5)],
    "## More": [inject.MORE],
}


def _render(sections: dict[str, list[str]]) -> str:
    out = list(HEADER)
    for title, lines in sections.items():
        if lines:
            out += ["", title, *lines]
    return "\n".join(out) + "\n"


FULL = _render(SECTIONS)
TRIMMED = [t for t in SECTIONS if t != "## More"]


def _kept(text: str) -> dict[str, list[str]]:
    """The lines of each section that survived, by section title."""
    kept: dict[str, list[str]] = {t: [] for t in SECTIONS}
    current = None
    for line in text.splitlines():
        if line.startswith("## "):
            current = line
        elif current and line.strip():
            kept[current].append(line)
    return kept


def test_full_snapshot_is_over_the_default_budget() -> None:
    """The material must be big enough for the trimming tests below to mean anything."""
    assert tokencount.count(FULL) > inject.DEFAULT_BUDGET
    assert inject.fit(FULL, 10**6, max_chars=10**6) == FULL, "a text within budget is returned as is"


@pytest.mark.parametrize("budget", [1, 5, 20, 49, 50, 60, 75, 100, 150, 250, 400, 600, 900, 1300, 1700, 2000])
def test_fit_never_exceeds_the_budget(budget: int) -> None:
    """Counted with the real tokenizer, whatever the budget, down to nothing."""
    out = inject.fit(FULL, budget)
    assert tokencount.count(out) <= budget, (budget, out)
    assert len(out) <= inject.MAX_CHARS


def test_fit_keeps_within_max_chars() -> None:
    """A generous token budget does not excuse a text over the character cap (Claude Code
    cuts hook output at 10,000 characters)."""
    long_lines = {**SECTIONS, "## Key memories": [_item("KEY", i, "x" * 900) for i in range(10)]}
    text = _render(long_lines)
    assert len(text) > inject.MAX_CHARS
    out = inject.fit(text, 10**6)
    assert len(out) <= inject.MAX_CHARS
    assert inject.MORE in out
    out = inject.fit(FULL, 10**6, max_chars=1500)
    assert len(out) <= 1500 and inject.MORE in out


def test_fit_drops_least_important_lines_first() -> None:
    """Across budgets, each section keeps a prefix of its lines, and a section loses lines
    only once the less important ones are down to their floor: Recent sessions go before
    Key memories, which go before Constraints, which go before About the user."""
    seen_stages = set()
    for budget in range(60, tokencount.count(FULL) + 40, 40):
        out = inject.fit(FULL, budget)
        assert tokencount.count(out) <= budget
        kept = _kept(out)
        for title in SECTIONS:
            assert kept[title] == SECTIONS[title][: len(kept[title])], (budget, title, "not a prefix")
        n = {t: len(kept[t]) for t in TRIMMED}
        full = {t: len(SECTIONS[t]) for t in TRIMMED}
        if n["## Key memories"] < full["## Key memories"]:
            assert n["## Recent sessions"] <= 1, (budget, n)
        if n["## Constraints"] < full["## Constraints"]:
            assert n["## Key memories"] <= 3 and n["## Recent sessions"] <= 1, (budget, n)
        if n["## About the user"] < full["## About the user"]:
            assert n["## Constraints"] <= 3, (budget, n)
        if n["## Key memories"] < 3:
            assert n["## Recent sessions"] == 0, (budget, n)
        if n["## Constraints"] < 3:
            assert n["## Key memories"] == 0, (budget, n)
        seen_stages.add(tuple(n.values()))
    assert len(seen_stages) > 10, "the budgets should walk through many trimming stages"


def test_fit_keeps_the_closing_more_line_when_it_can() -> None:
    """The search hint is never traded for memories: at any budget that holds the header
    and the More section, the More section is there."""
    smallest = tokencount.count(_render({"## More": [inject.MORE]}))
    for budget in (smallest, smallest + 7, 300, 1000, 2000):
        out = inject.fit(FULL, budget)
        assert out.rstrip("\n").endswith("## More\n" + inject.MORE), (budget, out[-300:])
    only_more = inject.fit(FULL, tokencount.count("## More\n" + inject.MORE + "\n"))
    assert inject.MORE in only_more


# -- identity_lines ----------------------------------------------------------------------
def _identity(home: Path, text: str) -> None:
    (home / "profile").mkdir(parents=True, exist_ok=True)
    (home / "profile" / "identity.md").write_text(text, encoding="utf-8")


def test_identity_lines_read_the_summary_section(tmp_path: Path) -> None:
    """The Summary section only: no frontmatter, no other section, bullets kept as bullets."""
    _identity(
        tmp_path,
        "---\ntitle: Identity\nupdated_at: 2026-11-01T00:00:00Z\n---\n"
        "# Who the user is\nIntro line that is not the summary.\n\n"
        "## Summary\nBackend engineer in Berlin.\n- Prefers pnpm\n* Writes Go\n\n"
        "## Details\nLikes long walks.\n",
    )
    assert inject.identity_lines(str(tmp_path)) == [
        "- Backend engineer in Berlin.",
        "- Prefers pnpm",
        "- Writes Go",
    ]


def test_identity_lines_without_summary_take_the_first_lines(tmp_path: Path) -> None:
    """No Summary heading: the first lines of prose, headings and frontmatter skipped,
    up to `limit`."""
    body = "\n".join(f"Line {i} about the user." for i in range(20))
    _identity(tmp_path, f"---\ntitle: Identity\nsecret_key: frontmatter-only\n---\n# Profile\n{body}\n")
    got = inject.identity_lines(str(tmp_path), limit=4)
    assert got == [f"- Line {i} about the user." for i in range(4)]
    assert not any("frontmatter-only" in ln or "title" in ln for ln in inject.identity_lines(str(tmp_path)))


def test_identity_lines_without_a_profile(tmp_path: Path) -> None:
    assert inject.identity_lines(str(tmp_path)) == []


# -- quick_scope -------------------------------------------------------------------------
def _git(*args: str, cwd: Path) -> None:
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(cwd),
    }
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=env)


def test_quick_scope_matches_resolve(tmp_path: Path, project: Path) -> None:
    """The hook's git-free walk and the full resolver agree on every kind of directory."""
    repo = tmp_path / "repo"
    (repo / "src" / "deep").mkdir(parents=True)
    _git("init", "-q", cwd=repo)
    (repo / "f").write_text("x")
    _git("add", "f", cwd=repo)
    _git("commit", "-qm", "init", cwd=repo)
    wt = tmp_path / "wt"
    _git("worktree", "add", "-q", str(wt), cwd=repo)
    (wt / "pkg").mkdir()
    marked = tmp_path / "finance"
    (marked / "q3" / "reports").mkdir(parents=True)
    (marked / ".memoryd-sensitive").write_text("")
    link = tmp_path / "link"
    link.symlink_to(repo / "src")

    cases = {
        "plain dir": project,
        "git root": repo,
        "git subdir": repo / "src" / "deep",
        "a file in a repo": repo / "f",
        "linked worktree": wt,
        "worktree subdir": wt / "pkg",
        "under a sensitive marker": marked / "q3" / "reports",
        "symlink into a repo": link,
    }
    for name, path in cases.items():
        assert inject.quick_scope(str(path)) == resolve(path).hash, name
    assert inject.quick_scope(str(wt)) == inject.quick_scope(str(repo))
    assert inject.quick_scope(str(marked / "q3")) == resolve(marked).hash


# -- the CLI -----------------------------------------------------------------------------
def test_inject_with_no_memories_prints_the_empty_snapshot(
    cli: Cli, project: Path, isolated_home: Path
) -> None:
    out = cli("inject", cwd=project)
    assert out.returncode == 0, out.stderr
    assert out.stdout == inject.empty_snapshot(str(isolated_home))
    assert "No memories are stored for this project yet." in out.stdout
    assert out.stderr == ""


@pytest.mark.parametrize(
    ("args", "stdin", "word"),
    [
        (("--budget", "10"), None, "--budget"),
        (("--budget", "x"), None, "--budget"),
        (("--budget=-5",), None, "--budget"),
        (("--cwd", "/nonexistent"), None, "/nonexistent"),
        (("--format", "xml"), None, "--format"),
        # --format claude-hook with bad stdin is hook mode: exit 0 (tests/core/capture/test_hook_mode.py)
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    cli: Cli, project: Path, args: tuple[str, ...], stdin: str | bytes | None, word: str
) -> None:
    """A hook or a user gets one line saying what is wrong, never a traceback."""
    one_line_error(cli("inject", *args, stdin=stdin, cwd=project), 2, word)


def test_claude_hook_output_takes_cwd_from_stdin(cli: Cli, project: Path, tmp_path: Path) -> None:
    """SessionStart JSON: the context of the project named by the payload's cwd, not of
    the directory the hook happens to run in."""
    Memoryd().record("warning", "Never deploy on Friday", "The on-call rota is thin.", scope_path=project)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    payload = {
        "session_id": "3f0c2a7e-1111-4a2b-9c3d-0e1f2a3b4c5d",
        "transcript_path": str(tmp_path / "t.jsonl"),
        "cwd": str(project),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    out = cli("inject", "--format", "claude-hook", stdin=json.dumps(payload), cwd=elsewhere)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    ctx = data["hookSpecificOutput"]["additionalContext"]
    assert isinstance(ctx, str)
    assert "- warning, recorded by the user, manual, " in ctx
    assert ': "Never deploy on Friday: The on-call rota is thin."' in ctx
    assert tokencount.count(ctx) <= inject.DEFAULT_BUDGET

    here = cli("inject", "--format", "claude-hook", stdin="", cwd=elsewhere)
    assert here.returncode == 0, here.stderr
    assert "Never deploy" not in json.loads(here.stdout)["hookSpecificOutput"]["additionalContext"]

    via_env = cli(
        "inject", "--format", "claude-hook", stdin="", cwd=elsewhere, env={"CLAUDE_PROJECT_DIR": str(project)}
    )
    assert via_env.returncode == 0, via_env.stderr
    assert "Never deploy" in json.loads(via_env.stdout)["hookSpecificOutput"]["additionalContext"]
