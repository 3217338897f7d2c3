"""Several data directories ("devices") in one test: each its own MEMORYD_HOME, all with
the same config, HOME and project folders, as one user's laptop and desktop would have.
In-process calls switch MEMORYD_HOME before building a fresh `Memoryd()`; `Home.cli`
runs the real CLI in a subprocess against that home."""

from __future__ import annotations

import difflib
import gc
import io
import json
import os
import shutil
import subprocess
from collections.abc import Iterable
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memoryd import clock
from memoryd.app import Memoryd
from memoryd.testing import claude_exchange, stop_payload, write_jsonl
from tests.conftest import run_cli

T0 = datetime(2026, 4, 6, 9, 0, 0, tzinfo=clock.UTC)
# Files that say what the store holds: memories and their turns sidecars, plain or sealed.
MEMORY_SUFFIXES = (".md", ".md.enc", ".turns.jsonl", ".turns.jsonl.enc")
NOT_MEMORIES = {"snapshot.md"}


def at(minutes: float) -> str:
    return clock.iso(T0 + timedelta(minutes=minutes))


class Clock:
    """MEMORYD_NOW, pinned and moved forward a minute per tick (here and in subprocesses)."""

    def __init__(self, mp: pytest.MonkeyPatch, start: float = 0) -> None:
        self.mp = mp
        self.minutes = start
        self.set(start)

    def set(self, minutes: float) -> str:
        self.minutes = minutes
        self.mp.setenv("MEMORYD_NOW", at(minutes))
        return at(minutes)

    def tick(self, minutes: float = 1) -> str:
        return self.set(self.minutes + minutes)


@dataclass
class Home:
    name: str
    path: Path
    mp: pytest.MonkeyPatch

    def use(self) -> None:
        self.mp.setenv("MEMORYD_HOME", str(self.path))

    def app(self) -> Memoryd:
        """A fresh facade on this home (never keep one across a switch of home)."""
        self.use()
        return Memoryd()

    def cli(self, *args: str, **kw: Any) -> subprocess.CompletedProcess[str]:
        env = {"MEMORYD_HOME": str(self.path), **kw.pop("env", {})}
        return run_cli(*args, env=env, **kw)

    def main(self, *args: str) -> tuple[int, str, str]:
        """The real CLI entry point, in this process (no interpreter start-up): exit code,
        stdout, stderr."""
        from memoryd.cli.main import main
        from memoryd.sensitive import broker

        self.use()
        out, err = io.StringIO(), io.StringIO()
        umask = os.umask(0o077)
        os.umask(umask)
        try:
            with redirect_stdout(out), redirect_stderr(err):
                code = main(list(args))
        finally:
            broker.uninstall()  # main() points the gate at this home's tray
            os.umask(umask)
        return code, out.getvalue(), err.getvalue()

    def main_json(self, *args: str) -> Any:
        code, out, err = self.main(*args, "--json")
        assert code == 0, (self.name, args, err)
        return json.loads(out)

    def cli_json(self, *args: str) -> Any:
        out = self.cli(*args, "--json")
        assert out.returncode == 0, (self.name, args, out.stderr)
        return json.loads(out.stdout)

    def sync(self, folder: Path) -> Any:
        return self.app().sync(folder)

    def files(self) -> dict[str, bytes]:
        return memory_files(self.path)

    def slugs(self, *, forgotten: bool = False) -> set[str]:
        """The indexed memories (soft-forgotten too with `forgotten`; forgotten ones have
        left the index and are only files)."""
        rows = self.app().list(scopes=None, include_forgotten=forgotten)
        return {r["slug"] for r in rows}

    def audit_types(self) -> list[str]:
        return [e.event_type for e in self.app().audit_events()]


def make_homes(root: Path, mp: pytest.MonkeyPatch, *names: str) -> list[Home]:
    return [Home(n, root / f"home-{n}", mp) for n in names]


def copy_world(src: Path, dst: Path) -> None:
    """A copy of a whole world (homes and the shared folder) to run another way from the
    same start. The facades of this process are let go first: closing a file descriptor
    drops every POSIX lock the process holds on that file, so copying a SQLite file under
    live connections would leave them unlocked while another process writes."""
    gc.collect()
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst, symlinks=True)


def memory_files(home: Path) -> dict[str, bytes]:
    """relative path -> bytes of every memory file and turns sidecar under scopes/."""
    out = {}
    scopes = home / "scopes"
    if not scopes.is_dir():
        return out
    for p in sorted(scopes.rglob("*")):
        if not p.is_file() or p.name in NOT_MEMORIES or p.name.startswith("."):
            continue
        if p.name.endswith(MEMORY_SUFFIXES):
            out[str(p.relative_to(home))] = p.read_bytes()
    return out


def diff(a: dict[str, bytes], b: dict[str, bytes]) -> dict[str, Any]:
    """A readable account of how two file maps differ (for assertion messages): the paths
    on one side only, and the changed lines of the files on both."""
    changed = {}
    for k in sorted(set(a) & set(b)):
        if a[k] != b[k]:
            left = a[k].decode("utf-8", "replace").splitlines()
            right = b[k].decode("utf-8", "replace").splitlines()
            lines = difflib.unified_diff(left, right, lineterm="", n=0)
            changed[k] = [x for x in lines if x[:1] in "+-" and x[:3] not in ("+++", "---")][:10]
    return {"only_left": sorted(set(a) - set(b)), "only_right": sorted(set(b) - set(a)), "differ": changed}


def capture(
    home: Home, project: Path, transcripts: Path, sid: str, exchanges: Iterable[tuple[str, str]]
) -> str:
    """A Claude Code Stop hook (the real hook code, no detached worker) with a real
    transcript, then the spool drained as the worker does: the new session's slug."""
    from memoryd.capture.hook import capture as hook

    home.use()
    lines: list[dict[str, Any]] = []
    for prompt, answer in exchanges:
        lines += claude_exchange(prompt, answer, session_id=sid, cwd=str(project))
    transcript = write_jsonl(transcripts / f"{home.name}-{sid}.jsonl", lines)
    name, warnings = hook("claude-code", stop_payload(sid, transcript, project), spawn=False)
    assert name and not warnings, warnings
    app = home.app()
    report = app.drain_spool(wait=True)
    assert report.captured, report
    slug = app.store.slug_for_session("claude-code", sid)
    assert slug
    return slug


def sync_round(homes: Iterable[Home], folder: Path, clk: Clock | None = None) -> list[Any]:
    out = []
    for h in homes:
        if clk is not None:
            clk.tick()
        out.append(h.sync(folder))
    return out


def sync_until_stable(homes: list[Home], folder: Path, clk: Clock | None = None, rounds: int = 4) -> int:
    """Sync every home in the given order, again and again, until a whole round changes no
    file anywhere; the number of rounds it took (fails past `rounds`)."""
    before = [h.files() for h in homes]
    for n in range(1, rounds + 1):
        sync_round(homes, folder, clk)
        after = [h.files() for h in homes]
        if after == before and n > 1:
            return n
        before = after
    raise AssertionError(f"not stable after {rounds} rounds of sync")


def record(home: Home, project: Path, title: str, body: str, mtype: str = "fact") -> str:
    doc, _ = home.app().record(mtype, title, body, scope_path=project)
    return doc.meta.slug
