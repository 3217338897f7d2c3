"""Shared plumbing for the benchmarks: where the external data is, throwaway memoryd homes,
Claude-Code-shaped transcripts, percentiles, and running the baseline scripts.

Kept in one place so every benchmark measures memoryd the same way (same transcript
shape, same environment isolation, same percentile definition).
"""

from __future__ import annotations

import importlib.util
import json
import os
import platform
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "bench" / ".out"


def compile_memoryd() -> None:
    """Bytecode for every memoryd module, as `pip install` writes it. A checkout has none
    for a module just edited, and with PYTHONDONTWRITEBYTECODE (set on these machines) a
    process timed on the hook path would otherwise compile it again on every run."""
    import compileall

    import memoryd

    compileall.compile_dir(str(Path(memoryd.__file__).resolve().parent), quiet=1)


def data_dir() -> Path:
    """External benchmark data: $MEMORYD_BENCH_DATA, else ../shared/bench next to the repo."""
    env = os.environ.get("MEMORYD_BENCH_DATA")
    return Path(env).expanduser() if env else (REPO.parent / "shared" / "bench").resolve()


def baseline_module(name: str) -> ModuleType:
    """Import a baseline script from the data directory as a module (never copied here)."""
    path = data_dir() / f"{name}.py"
    if str(path.parent) not in sys.path:  # longmemeval_retrieval imports locomo_retrieval
        sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(f"_bench_{name}", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot import baseline {path}")
    mod = importlib.util.module_from_spec(spec)
    sys.dont_write_bytecode = True
    spec.loader.exec_module(mod)
    return mod


def run_baseline(script: str, *args: str) -> dict[str, Any]:
    """Run a baseline script as its authors ship it, in this same benchmark run."""
    path = data_dir() / script
    out = subprocess.run(
        [sys.executable, "-B", str(path), "--json", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def isolated_env(home: Path, **extra: str) -> dict[str, str]:
    """Environment for a memoryd subprocess that never touches the user's real data."""
    env = dict(os.environ)
    env["MEMORYD_HOME"] = str(home)
    env["MEMORYD_CONFIG"] = str(home / "no-config.toml")
    env.update(extra)
    return env


def temp_dir(prefix: str) -> Path:
    """A fresh directory outside the repository (a git work tree would swallow scopes)."""
    return Path(tempfile.mkdtemp(prefix=f"memoryd-bench-{prefix}-"))


def pct(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100), the same rule the baseline scripts use."""
    s = sorted(values)
    idx = min(len(s) - 1, max(0, round(p / 100.0 * (len(s) - 1))))
    return s[idx]


def median(values: Iterable[float]) -> float:
    return statistics.median(list(values))


def machine() -> dict[str, str]:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "platform": platform.platform(terse=True),
        "cpu": cpu,
        "cores": str(os.cpu_count()),
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
    }


# -- Claude Code transcripts -----------------------------------------------------------------
class Transcript:
    """Writes a transcript JSONL the way Claude Code does: one JSON object per line with
    uuid / parentUuid / sessionId / timestamp / cwd and a message {role, content}."""

    def __init__(self, path: Path, session_id: str, cwd: str) -> None:
        self.path = path
        self.session_id = session_id
        self.cwd = cwd
        self.parent: str | None = None
        self.lines: list[str] = []

    def _add(self, kind: str, content: Any, ts: str, uid: str | None, **message: Any) -> str:
        uid = uid or str(uuid.uuid4())
        rec = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": "1.0.72",
            "gitBranch": "main",
            "type": kind,
            "message": {"role": kind, "content": content, **message},
            "uuid": uid,
            "timestamp": ts,
        }
        self.lines.append(json.dumps(rec, ensure_ascii=False))
        self.parent = uid
        return uid

    def user(self, text: str, ts: str, uid: str | None = None) -> str:
        return self._add("user", text, ts, uid)

    def assistant(self, text: str, ts: str, uid: str | None = None) -> str:
        content = [{"type": "text", "text": text}]
        return self._add(
            "assistant",
            content,
            ts,
            uid,
            id=f"msg_{uuid.uuid4().hex[:24]}",
            type="message",
            model="claude-sonnet-4-20250514",
            stop_reason="end_turn",
            usage={"input_tokens": 1200, "output_tokens": 240},
        )

    def tool_use(self, name: str, args: dict[str, Any], ts: str, text: str = "") -> str:
        tid = f"toolu_{uuid.uuid4().hex[:24]}"
        content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
        content.append({"type": "tool_use", "id": tid, "name": name, "input": args})
        self._add("assistant", content, ts, None, type="message", stop_reason="tool_use")
        return tid

    def tool_result(self, tool_id: str, output: str, ts: str, is_error: bool = False) -> str:
        block = {"type": "tool_result", "tool_use_id": tool_id, "content": output, "is_error": is_error}
        return self._add("user", [block], ts, None)

    def write(self) -> Path:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text("\n".join(self.lines) + "\n", encoding="utf-8")
        return self.path


def capture_record(payload_id: str, session_id: str, transcript: Path, cwd: Path) -> dict[str, Any]:
    """A spool record as the hook would write it for a Claude Code SessionEnd."""
    return {
        "payload_id": payload_id,
        "source": "claude-code",
        "payload": {
            "session_id": session_id,
            "transcript_path": str(transcript),
            "cwd": str(cwd),
            "hook_event_name": "SessionEnd",
        },
    }


def emit(result: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print(json.dumps(result, indent=2, ensure_ascii=False))


def finish(result: dict[str, Any], as_json: bool, print_text: Callable[[], None]) -> int:
    """End a benchmark: its result as JSON for run_all, or the text report for people."""
    if as_json:
        emit(result, True)
    else:
        print_text()
    return 0


def clone(src: Path, dst: Path) -> None:
    """Copy a cached home, hard-linking the memory files: memoryd replaces a file by rename
    and never writes one in place, so the clone's writes leave the cache's files alone, and
    a clone takes seconds instead of minutes of copying 100k+ small files. The index, the
    audit log (appended in place) and everything else are real copies."""
    shutil.copytree(src, dst, symlinks=True, ignore=shutil.ignore_patterns("scopes"))
    shutil.copytree(src / "scopes", dst / "scopes", symlinks=True, copy_function=os.link)


@contextmanager
def fresh_copy(src: Path, prefix: str) -> Iterator[tuple[Path, float]]:
    """A throwaway clone of a cached home (outside the repository), and seconds to make it."""
    work = temp_dir(prefix)
    t0 = time.perf_counter()
    clone(src, work / "home")
    try:
        yield work / "home", time.perf_counter() - t0
    finally:
        shutil.rmtree(work, ignore_errors=True)


def write_section(title: str, lines: Sequence[str], *, before: str | None = None) -> Path:
    """Put a benchmark's section (starting with the `## title` line) in docs/benchmarks.md:
    in place of the one there, else before the `before` heading, else at the end."""
    path = REPO / "docs" / "benchmarks.md"
    text = path.read_text(encoding="utf-8")
    new = "\n".join(lines)
    if title in text:
        start = text.index(title)
        nxt = text.find("\n## ", start + 1)
        text = text[:start] + new + ("\n" + text[nxt + 1 :] if nxt != -1 else "")
    elif before is not None and (anchor := text.find("\n" + before)) != -1:
        text = text[: anchor + 1] + new + "\n" + text[anchor + 1 :]
    else:
        text = text.rstrip("\n") + "\n\n" + new
    path.write_text(text, encoding="utf-8")
    return path
