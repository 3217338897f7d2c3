"""Tray app: cold start to the tray icon, idle memory, and the digest window on a long queue.

Why: the tray starts at every login and then sits in the background all day, so how fast
its icon appears and how much memory it holds while idle are what every user pays; the
digest window is the weekly review, and it must open at once even when the queue is long.

  * Cold start: `python -m memoryd_desktop.main` spawned as a fresh process on a real small
    desktop (Xvfb, a private session bus, dunst, trayer: the commands of tests/delivery.py),
    `QT_QPA_PLATFORM=xcb`, over a small real home (50 memories, started once before so its
    first-start chores are done); the time from the spawn to the line
    "memoryd-tray ready (tray)" in <MEMORYD_HOME>/logs/tray.log, polled every 5 ms; then
    SIGTERM. A start whose log says "(window)" (no tray host found) fails the benchmark.
    Also: the first start of the fresh home, and starts after the Python, Qt and system
    library files were dropped from the page cache (posix_fadvise DONTNEED; pages other
    processes have mapped stay).
  * Idle memory: three trays at once on their own desktop, each with its own copy of that
    home; VmRSS from /proc/<pid>/status 10 s after they were all ready and after 600 s
    (MEMORYD_BENCH_IDLE_SECONDS shortens the wait for a quick check; only a 600 s run is
    judged against the target).
  * Digest window: a home with 500 pending promotions, each written by the analyser's own
    path (`Analyzer._write`: the promotion row, its audit event, the session's DURA
    frontmatter) from DURA outputs an LLM could give, cached under bench/.out/. In a fresh
    offscreen process per run (QApplication, `Memoryd()`, the tray's first `tray_state.load`
    so the store is open as in a running tray): the time from `DigestWindow(facade, ops)`
    through `load()` and `show()` (the order `Windows.open` uses) until `loaded` is emitted
    and the promotions list has painted once more; then reopened (`load()` again, as a
    second click does) in the same process.

    python bench/tray.py [--quick] [--json] [--part cold --part idle --part digest]
"""

from __future__ import annotations

import argparse
import compileall
import hashlib
import importlib
import inspect
import json
import os
import random
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import _common as c
import corpus

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository: tests.desktop_session
from memoryd import clock, frontmatter, slugs
from memoryd.config import Config
from memoryd.db.engine import migrations
from memoryd.frontmatter import Document
from memoryd.governance import analyze
from memoryd.llm import prompts
from memoryd.llm.schemas import DuraOutput
from memoryd.models import Frontmatter, MemoryType, default_ttl
from memoryd.paths import Layout
from memoryd.scope import hash_root
from memoryd.store import Store, Turn, fingerprint, index
from memoryd.store import governance as sql
from tests import desktop_session as ds

TARGET_COLD_S, TARGET_RSS_MB, TARGET_DIGEST_MS = 1.5, 150.0, 300.0
SEED = 20261122
SMALL_MEMORIES = 50
PENDING = 500
LONG_TERM = 400  # the digest home's long-term memories, beside the 500 sessions
SCOPES = 6
SCOPE_BASE = Path(tempfile.gettempdir()) / "memoryd-bench-scopes"
NOW = datetime(2026, 5, 18, 9, 0, tzinfo=UTC)  # the digest home's clock (MEMORYD_NOW)
POLL_S = 0.005
READY = "memoryd-tray ready ("
IDLE_FULL_S = 600
IDLE_SAMPLES = (10, 60, 120, 300, 600)
PROPOSE = ("decision", "preference", "fact", "playbook", "warning")
# Libraries of the tray's process: what a cold page cache must read again.
EVICT_ROOTS = (
    Path(sys.base_prefix) / "lib",
    c.REPO / "core" / "memoryd",
    c.REPO / "desktop" / "memoryd_desktop",
    Path("/usr/lib/x86_64-linux-gnu"),
    Path("/usr/share/fonts"),
)


def loadavg() -> list[float]:
    return [float(x) for x in Path("/proc/loadavg").read_text().split()[:3]]


def compile_desktop() -> None:
    """Bytecode for memoryd and memoryd_desktop, as an install has it: with
    PYTHONDONTWRITEBYTECODE (set here) a start would otherwise compile them every time."""
    import memoryd_desktop

    c.compile_memoryd()
    compileall.compile_dir(str(Path(memoryd_desktop.__file__).resolve().parent), quiet=1)


# -- a small real desktop: the programs tests/delivery.py's fixtures start, started the same way --
# What a tray process must not inherit from this shell (a real session, a pinned clock, keys).
DROP_ENV = (
    "WAYLAND_DISPLAY",
    "MEMORYD_NOW",
    "MEMORYD_NO_WORKER",
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "MEMORYD_SMTP_PASSWORD",
)


@dataclass
class Desktop(ds.Desktop):
    """The shared desktop, with the bench's own environment (its home, nothing inherited)."""

    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def env(self, home: Path | None = None, userhome: Path | None = None) -> dict[str, str]:  # type: ignore[override]
        env = {k: v for k, v in os.environ.items() if k not in DROP_ENV and not k.startswith("XDG_")}
        env.update(DISPLAY=self.display, DBUS_SESSION_BUS_ADDRESS=self.bus, QT_QPA_PLATFORM="xcb")
        env.update(LANG="C.UTF-8", LC_ALL="C.UTF-8")
        if home is not None:
            env.update(MEMORYD_HOME=str(home), MEMORYD_CONFIG=str(home / "no-config.toml"))
            # A login's start, not the first: the welcome was done then (its window would
            # otherwise open on every timed start, as config.toml never says so here).
            env["MEMORYD_NO_WELCOME"] = "1"
        if userhome is not None:
            env["HOME"] = str(userhome)
        return env

    def notifications(self) -> int:
        return self.shown.read_bytes().count(b"\0") // 3 if self.shown.exists() else 0


@contextmanager
def desktop(work: Path) -> Iterator[Desktop]:
    """Xvfb + a private session bus + dunst + trayer, stopped afterwards."""
    missing = [t for t in ("Xvfb", "dbus-daemon", "dunst", "trayer") if shutil.which(t) is None]
    if missing:
        raise SystemExit(f"needs {', '.join(missing)} (Debian: apt-get install xvfb dbus-x11 dunst trayer)")
    work.mkdir(parents=True, exist_ok=True)
    procs: list[subprocess.Popen[bytes]] = []
    try:
        xvfb, display = ds.start_xvfb()
        procs.append(xvfb)
        bus_proc, bus = ds.start_bus(work)
        procs.append(bus_proc)
        d = Desktop(display, bus, work / "shown.bin", procs)
        env = d.env()
        daemon, d.shown = ds.start_dunst(env, work)
        procs += [daemon, ds.start_trayer(env)]
        ds.wait_for_owner(bus, "org.freedesktop.Notifications")
        ds.wait_for_tray(env)
        yield d
    except ds.StartError as exc:
        raise SystemExit(str(exc)) from None
    finally:
        for proc in reversed(procs):
            ds.stop(proc, timeout=20)


# -- the tray process -----------------------------------------------------------------
def small_home(home: Path, now: datetime) -> None:
    """A small real home: 50 memories of six types (bilingual, sessions with turns) made
    in the last two weeks, written by `Store.save_many` (files, index, audit log)."""
    gen = corpus.Generator(SEED, SCOPES)
    scopes = [hash_root(corpus.scope_root(i, SCOPE_BASE)) for i in range(SCOPES)]
    start = now - timedelta(days=14)
    docs = []
    for n in range(SMALL_MEMORIES):
        doc, turns = gen.memory(n, scopes, start)
        when = start + timedelta(hours=6 * n + 1)
        doc.meta.created_at = doc.meta.updated_at = doc.meta.last_recalled_at = when
        docs.append((doc, turns))
    store = Store.open(Layout(home))
    store.save_many(docs, actor="bench")
    store.engine.dispose()


@dataclass
class Tray:
    proc: subprocess.Popen[bytes]
    home: Path
    spawned: float  # perf_counter at the spawn
    spawned_wall: float
    offset: int  # tray.log's size before the spawn


def tray_log(home: Path) -> Path:
    return home / "logs" / "tray.log"


def spawn(d: Desktop, home: Path, userhome: Path, stderr: Path | None = None, **extra: str) -> Tray:
    log = tray_log(home)
    offset = log.stat().st_size if log.exists() else 0
    err = (stderr or home.parent / f"{home.name}-stderr.txt").open("ab")
    wall, t0 = time.time(), time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "memoryd_desktop.main"],
        env={**d.env(home, userhome), **extra},
        stdout=subprocess.DEVNULL,
        stderr=err,
    )
    err.close()
    return Tray(proc, home, t0, wall, offset)


def wait_ready(t: Tray, timeout: float = 60) -> dict[str, Any]:
    """Poll tray.log every 5 ms until the ready line: seconds since the spawn, and the mode."""
    log = tray_log(t.home)
    deadline = t.spawned + timeout
    text = ""
    while True:
        now = time.perf_counter()
        try:
            with log.open("rb") as f:
                f.seek(t.offset)
                text = f.read().decode("utf-8", "replace")
        except FileNotFoundError:
            text = ""
        if READY in text:
            break
        if t.proc.poll() is not None:
            raise SystemExit(f"memoryd-tray exited ({t.proc.returncode}) before it was ready:\n{text}")
        if now > deadline:
            raise SystemExit(f"memoryd-tray not ready after {timeout:.0f} s:\n{text}")
        time.sleep(POLL_S)
    seconds = now - t.spawned
    line = next(x for x in text.splitlines() if READY in x)
    mode = line.split(READY, 1)[1].split(")", 1)[0]
    if mode != "tray":
        raise SystemExit(f"FAIL: the tray app found no system tray (trayer): {line}")
    stamp = datetime.strptime(line[:23], "%Y-%m-%d %H:%M:%S,%f").timestamp()
    cpu = proc_status(t.proc.pid)["cpu_s"]  # the tray's own CPU seconds to get there
    return {"s": seconds, "logged_s": stamp - t.spawned_wall, "mode": mode, "cpu_s": cpu}


def quit_tray(t: Tray) -> int:
    t.proc.send_signal(signal.SIGTERM)
    try:
        return t.proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        t.proc.kill()
        t.proc.wait()
        return -9


def one_start(d: Desktop, home: Path, userhome: Path) -> dict[str, Any]:
    t = spawn(d, home, userhome)
    try:
        ready = wait_ready(t)
    finally:
        rc = quit_tray(t)
    if rc != 0:
        raise SystemExit(f"memoryd-tray exited {rc} on SIGTERM")
    return ready


def import_profile(d: Desktop, home: Path, userhome: Path) -> dict[str, Any]:
    """One more start (untimed) under `-X importtime`: what the imports cost up to ready,
    by top-level package (self times summed; the profiling itself adds a little)."""
    path = home.parent / "importtime.txt"
    t = spawn(d, home, userhome, stderr=path, PYTHONPROFILEIMPORTTIME="1")
    try:
        wait_ready(t)
    finally:
        quit_tray(t)
    by_root: dict[str, int] = {}
    modules = 0
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        parts = line.split("|")
        if not line.startswith("import time:") or len(parts) != 3 or not parts[0][12:].strip().isdigit():
            continue
        modules += 1
        root = parts[2].strip().split(".")[0]
        by_root[root] = by_root.get(root, 0) + int(parts[0][12:].strip())
    path.unlink()
    top = sorted(by_root.items(), key=lambda kv: -kv[1])
    return {
        "modules": modules,
        "total_ms": round(sum(by_root.values()) / 1000),
        "top_ms": {k: round(v / 1000) for k, v in top[:10]},
    }


# The floor: a bare PySide6 tray icon (QApplication, one QSystemTrayIcon shown), nothing else.
BARE_TRAY = """import sys
from PySide6.QtWidgets import QApplication, QStyle, QSystemTrayIcon
app = QApplication(sys.argv)
icon = QSystemTrayIcon(app.style().standardIcon(QStyle.StandardPixmap.SP_ComputerIcon))
icon.show()
print("ready", flush=True)
if sys.argv[1:] == ["stay"]:
    app.exec()
"""


def spawn_bare(d: Desktop, userhome: Path, stay: bool) -> tuple[subprocess.Popen[bytes], float]:
    """The bare tray icon, started as the tray is; (process, seconds until it said ready)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", BARE_TRAY, *(["stay"] if stay else [])],
        env=d.env(userhome=userhome),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdout is not None
    if ds.read_line(proc.stdout.fileno(), 60, "the bare tray icon") != "ready":
        raise SystemExit("the bare tray icon did not start")
    return proc, time.perf_counter() - t0


def bare_start(d: Desktop, userhome: Path) -> float:
    proc, seconds = spawn_bare(d, userhome, stay=False)
    proc.wait(timeout=20)
    return seconds


def evict_page_cache() -> int:
    """Drop the files the tray's process reads from the page cache (pages another process
    has mapped stay): the Python install, memoryd, Qt (inside PySide6), system libraries, fonts."""
    n = 0
    for root in EVICT_ROOTS:
        for dirpath, _dirs, files in os.walk(root):
            for name in files:
                path = os.path.join(dirpath, name)
                try:
                    if not stat.S_ISREG(os.lstat(path).st_mode):
                        continue
                    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
                except OSError:
                    continue
                try:
                    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                    n += 1
                finally:
                    os.close(fd)
    return n


def resident_kb(path: Path) -> int:
    """How much of a file is in the page cache (fincore), in KB."""
    out = subprocess.run(
        ["fincore", "--bytes", "--noheadings", "--output", "RES", str(path)], capture_output=True, text=True
    )
    return int(out.stdout.split()[0]) // 1024 if out.returncode == 0 and out.stdout.strip() else -1


def measure_cold(d: Desktop, home: Path, userhome: Path, runs: int, evicted_runs: int) -> dict[str, Any]:
    import PySide6

    qtgui = Path(PySide6.__file__).parent / "Qt" / "lib" / "libQt6Gui.so.6"
    evicted, files, left = [], 0, []
    for _ in range(evicted_runs):
        files = evict_page_cache()
        left.append(resident_kb(qtgui))
        evicted.append(one_start(d, home, userhome))
    profile = import_profile(d, home, userhome)
    load = loadavg()
    timed, floor = [], []
    for _ in range(runs):  # interleaved with the floor, so both meet the same machine
        timed.append(one_start(d, home, userhome))
        floor.append(bare_start(d, userhome))
    secs = [r["s"] for r in timed]
    return {
        "target_s": TARGET_COLD_S,
        "runs": runs,
        "memories": SMALL_MEMORIES,
        "s": [round(x, 3) for x in secs],
        "median_s": round(c.median(secs), 3),
        "max_s": round(max(secs), 3),
        "logged_median_s": round(c.median(r["logged_s"] for r in timed), 3),
        "cpu_s": [r["cpu_s"] for r in timed],
        "cpu_median_s": round(c.median(r["cpu_s"] for r in timed), 3),
        "bare_tray_s": [round(x, 3) for x in floor],
        "bare_tray_median_s": round(c.median(floor), 3),
        "imports": profile,
        "mode": sorted({r["mode"] for r in timed}),
        "loadavg_before": load,
        "cache_evicted": {
            "runs": evicted_runs,
            "s": [round(r["s"], 3) for r in evicted],
            "cpu_s": [r["cpu_s"] for r in evicted],
            "median_s": round(c.median(r["s"] for r in evicted), 3) if evicted else None,
            "files_dropped": files,
            "qtgui_resident_kb_after_drop": left,
            "qtgui_kb": round(qtgui.stat().st_size / 1024),
        },
    }


# -- idle memory -----------------------------------------------------------------------
def proc_status(pid: int) -> dict[str, float]:
    """VmRSS and its parts (MB) from /proc/<pid>/status; CPU seconds from /proc/<pid>/stat."""
    out: dict[str, float] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "RssAnon", "RssFile", "RssShmem", "VmHWM"):
            out[key] = round(int(value.split()[0]) / 1024, 1)
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    out["cpu_s"] = round((int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"), 2)
    return out


class Idle:
    """Three trays started together; a thread reads their status at the sample times."""

    def __init__(self, d: Desktop, homes: list[Path], userhome: Path, idle_s: int) -> None:
        self.d, self.idle_s = d, idle_s
        self.loadavg = loadavg()
        self.trays = [spawn(d, h, userhome) for h in homes]
        self.ready = [wait_ready(t) for t in self.trays]
        self.bare, _ = spawn_bare(d, userhome, stay=True)
        self.t0 = time.monotonic()
        self.samples: dict[int, list[dict[str, float]]] = {}
        self.bare_samples: dict[int, dict[str, float]] = {}
        self.at = sorted({s for s in IDLE_SAMPLES if s < idle_s} | {idle_s})
        self.thread = threading.Thread(target=self._sample, daemon=True)
        self.thread.start()

    def _sample(self) -> None:
        for at in self.at:
            time.sleep(max(0.0, self.t0 + at - time.monotonic()))
            self.samples[at] = [proc_status(t.proc.pid) for t in self.trays]
            self.bare_samples[at] = proc_status(self.bare.pid)

    def kill(self) -> None:
        """After a failure elsewhere: no tray outlives the benchmark."""
        for proc in [t.proc for t in self.trays] + [self.bare]:
            if proc.poll() is None:
                ds.stop(proc, timeout=20)

    def left_s(self) -> float:
        return max(0.0, self.t0 + self.idle_s - time.monotonic())

    def finish(self) -> dict[str, Any]:
        self.thread.join()
        alive = [t.proc.poll() is None for t in self.trays]
        codes = [quit_tray(t) for t in self.trays]
        ds.stop(self.bare, timeout=20)
        if not all(alive) or any(codes):
            raise SystemExit(f"an idle tray died or quit badly: alive {alive}, exit codes {codes}")
        first, last = self.samples[self.at[0]], self.samples[self.idle_s]

        def mb(sample: list[dict[str, float]], key: str = "VmRSS") -> list[float]:
            return [s[key] for s in sample]

        rss = mb(last)
        return {
            "target_mb": TARGET_RSS_MB,
            "trays": len(self.trays),
            "idle_s": self.idle_s,
            "judged": self.idle_s >= IDLE_FULL_S,
            "memories": SMALL_MEMORIES,
            "loadavg_before": self.loadavg,
            "ready_s": [round(r["s"], 3) for r in self.ready],
            "rss_mb": rss,
            "median_mb": round(c.median(rss), 1),
            "max_mb": max(rss),
            "at_10s_mb": mb(first),
            "at_10s_median_mb": round(c.median(mb(first)), 1),
            "median_by_s": {str(at): round(c.median(mb(self.samples[at])), 1) for at in self.at},
            "anon_median_mb": round(c.median(mb(last, "RssAnon")), 1),
            "file_median_mb": round(c.median(mb(last, "RssFile")), 1),
            "shmem_median_mb": round(c.median(mb(last, "RssShmem")), 1),
            "hwm_max_mb": max(mb(last, "VmHWM")),
            "cpu_s_idle": [round(b["cpu_s"] - a["cpu_s"], 2) for a, b in zip(first, last, strict=True)],
            "notifications_shown": self.d.notifications(),
            "bare_tray_mb": self.bare_samples[self.idle_s]["VmRSS"],
            "bare_tray_anon_mb": self.bare_samples[self.idle_s]["RssAnon"],
        }


# -- the digest home: 500 pending promotions written by the analyser --------------------
def _session_body(gen: corpus.Generator, lang: str, rng: random.Random) -> str:
    """A session body laid out as capture writes it (capture/episode.py)."""
    done = "\n".join(f"- {gen.sentence(lang)}" for _ in range(rng.randint(2, 6)))
    files = "\n".join(f"- `src/{gen.word('nouns')}/{gen.word('nouns')}.py`" for _ in range(rng.randint(1, 5)))
    cmds = "\n".join(f"- `pytest tests/{gen.word('nouns')} -q`" for _ in range(rng.randint(1, 3)))
    sections = [
        ("Goal", gen.sentence(lang)),
        ("What was done", done + "\n- Tools used: Read ×4, Edit ×3, Bash ×2"),
        ("Files touched", files),
        ("Commands run", cmds),
        ("Outcome", " ".join(gen.sentence(lang) for _ in range(rng.randint(1, 3)))),
    ]
    return "\n\n".join(f"## {name}\n{text}" for name, text in sections) + "\n"


def digest_population(made: dict[str, list[tuple[str, str]]]) -> Iterator[tuple[Document, list[Turn] | None]]:
    """500 sessions of the last week and 400 long-term memories of the last half year, in
    six projects; `made` gets (slug, scope) of each, by kind."""
    gen = corpus.Generator(SEED, SCOPES)
    rng = gen.rng
    scopes = [hash_root(corpus.scope_root(i, SCOPE_BASE)) for i in range(SCOPES)]
    kinds = [MemoryType.decision, MemoryType.fact, MemoryType.playbook, MemoryType.preference]
    for n in range(PENDING + LONG_TERM):
        session = n < PENDING
        gen.scope = rng.randrange(SCOPES)
        lang = rng.choices(("en", "zh", "mixed"), weights=(60, 28, 12))[0]
        mtype = MemoryType.session if session else rng.choice(kinds)
        span = 7 if session else 180
        when = NOW - timedelta(seconds=rng.randrange(span * 86400))
        title = gen.title(lang)
        if session:
            body = _session_body(gen, lang, rng)
        else:
            body = " ".join(gen.sentence(lang) for _ in range(rng.randint(2, 5))) + "\n"
        meta = Frontmatter(
            title=title,
            slug=f"{slugs.for_title(title, when)[:-5]}-{n:04x}",
            type=mtype,
            scope_hash=scopes[gen.scope],
            source="claude-code" if session else "manual",
            created_at=when,
            updated_at=when,
            tags=list(dict.fromkeys([gen.word("tech"), gen.word("nouns")])),
            triggers=list(dict.fromkeys(gen.word("zh" if lang == "zh" else "nouns") for _ in range(3))),
            ttl_days=default_ttl(mtype),
            last_recalled_at=when,
            session_id=f"tray-{n}" if session else None,
        )
        turns = None
        if session:
            stamp = clock.iso(when)
            turns = [
                Turn(i, "user" if i % 2 == 0 else "assistant", gen.sentence(lang), stamp, None)
                for i in range(rng.randint(4, 14))
            ]
        made["session" if session else "long_term"].append((meta.slug, meta.scope_hash))
        yield Document(meta=meta, body=body), turns


def dura_outputs(made: dict[str, list[tuple[str, str]]]) -> Iterator[DuraOutput]:
    """What an LLM answers for each session: DURA at or above the promote threshold, a
    proposed long-term memory (title, body, triggers, reasoning), now and then a
    supersede of a long-term memory of the same project."""
    gen = corpus.Generator(SEED + 1, SCOPES)
    rng = gen.rng
    scope_of = {hash_root(corpus.scope_root(i, SCOPE_BASE)): i for i in range(SCOPES)}
    for _slug, scope in made["session"]:
        gen.scope = scope_of[scope]
        while True:
            score = {k: round(rng.uniform(0.45, 0.97), 2) for k in "DURA"}
            if sum(score.values()) / 4 >= 0.62:
                break
        lang = rng.choices(("en", "zh"), weights=(70, 30))[0]
        same = [s for s, h in made["long_term"] if h == scope]
        yield DuraOutput(
            **score,
            type=rng.choice(PROPOSE),
            title=gen.title(lang)[:80],
            body=" ".join(gen.sentence(lang) for _ in range(rng.randint(1, 4))),
            triggers=list(dict.fromkeys(gen.word(rng.choice(("nouns", "tech", "zh"))) for _ in range(6))),
            reasoning=gen.sentence(lang),
            supersedes=[rng.choice(same)] if same and rng.random() < 0.1 else [],
        )


def digest_key() -> str:
    """Valid while the generator, what a memory writes and what the analyser writes are unchanged."""
    h = hashlib.sha256(Path(corpus.__file__ or "").read_bytes())
    for fn in (
        _session_body,
        digest_population,
        dura_outputs,
        build_digest_home,
        analyze.Analyzer._write,
        sql.queue_promotion,
        frontmatter.render,
        Store._row,
        index.upsert_memory,
    ):
        h.update(inspect.getsource(fn).encode())
    for version, _name, script in migrations():
        h.update(f"{version}:{script}".encode())
    return f"tray-digest-{PENDING}-{SEED}-{h.hexdigest()[:10]}"


def build_digest_home() -> tuple[Path, dict[str, Any]]:
    home = c.OUT / digest_key()
    manifest = home / "bench-manifest.json"
    if manifest.exists():
        return home, {**json.loads(manifest.read_text(encoding="utf-8")), "cached": True}
    for old in c.OUT.glob(f"tray-digest-{PENDING}-*"):
        shutil.rmtree(old, ignore_errors=True)
    before = os.environ.get("MEMORYD_NOW")
    os.environ["MEMORYD_NOW"] = clock.iso(NOW)  # the proposals' created_at, the audit stamps
    try:
        t0 = time.perf_counter()
        made: dict[str, list[tuple[str, str]]] = {"session": [], "long_term": []}
        store = Store.open(Layout(home))
        store.save_many(digest_population(made), actor="bench", batch=500)
        config = Config()
        analyzer = analyze.Analyzer(store, config, actor="worker")
        sample = prompts.render(analyze.PROMPT, body="", existing="(none)")
        by, version = f"anthropic:{config.llm.model}", f"{sample.name}.v{sample.version}"
        actions: dict[str, int] = {}
        for (slug, _), out in zip(made["session"], dura_outputs(made), strict=True):
            doc, _path = store.read(slug)
            scored = analyze.Scored(out, by, "", 1100, version)
            result = analyzer._write(doc, fingerprint(doc.body), scored)
            actions[str(result.promotion)] = actions.get(str(result.promotion), 0) + 1
        store.engine.dispose()
    finally:
        if before is None:
            os.environ.pop("MEMORYD_NOW", None)
        else:
            os.environ["MEMORYD_NOW"] = before
    info = {
        "sessions": len(made["session"]),
        "long_term": len(made["long_term"]),
        "promotions": actions,
        "generated_s": round(time.perf_counter() - t0, 1),
    }
    manifest.write_text(json.dumps(info, indent=2), encoding="utf-8")
    return home, {**info, "cached": False}


# -- the digest window, in a fresh offscreen process ------------------------------------
def digest_child(warm: int) -> dict[str, Any]:
    """Run inside the child: open the window once (cold), then reopen it `warm` times."""
    t_start = time.perf_counter()
    from PySide6.QtCore import QEvent, QEventLoop, QObject, QTimer
    from PySide6.QtWidgets import QApplication

    from memoryd.app import Memoryd
    from memoryd_desktop import tray_state
    from memoryd_desktop.ops import Ops

    app = QApplication([sys.argv[0]])
    facade = Memoryd()
    tray_state.load(facade)  # what the tray does at start: the store is open when a window opens
    base_ms = (time.perf_counter() - t_start) * 1000
    t = time.perf_counter()
    mod = importlib.import_module("memoryd_desktop.digest_window")
    import_ms = (time.perf_counter() - t) * 1000

    fetch: list[float] = []
    fetch_digest = facade.digest

    def timed_digest(*args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return fetch_digest(*args, **kwargs)
        finally:
            fetch.append((time.perf_counter() - t0) * 1000)

    facade.digest = timed_digest  # type: ignore[method-assign]

    class Paints(QObject):
        n = 0

        def eventFilter(self, obj: Any, event: Any) -> bool:
            if event.type() == QEvent.Type.Paint:
                self.n += 1
            return False

    errors: list[str] = []
    ops = Ops(on_error=lambda exc: errors.append(repr(exc)))
    paints = Paints()

    def open_once(window: Any) -> dict[str, float]:
        """load() + show() as Windows.open does; until loaded, then until one more paint."""
        loop = QEventLoop()
        window.loaded.connect(loop.quit)
        t0 = time.perf_counter()
        window.load()
        window.show()
        window.raise_()
        window.activateWindow()
        QTimer.singleShot(30_000, loop.quit)
        loop.exec()
        t_loaded = time.perf_counter()
        window.loaded.disconnect(loop.quit)
        before = paints.n
        while paints.n == before and time.perf_counter() - t_loaded < 5:
            app.processEvents()
        t1 = time.perf_counter()
        if paints.n == before:
            errors.append("no paint after loaded")
        return {"loaded_ms": (t_loaded - t0) * 1000, "open_ms": (t1 - t0) * 1000}

    t0, cpu0 = time.perf_counter(), time.process_time()
    window = mod.DigestWindow(facade, ops)
    construct_ms = (time.perf_counter() - t0) * 1000
    promotions = window.views[mod.Tab.PROMOTIONS]
    promotions.viewport().installEventFilter(paints)
    first = open_once(window)
    cold_ms = construct_ms + first["open_ms"]
    cpu_ms = (time.process_time() - cpu0) * 1000  # every thread of the process: GUI and Ops
    rows = promotions.rows.rowCount()
    warm_runs = [open_once(window) for _ in range(warm)]
    d = window.digest
    window.close()
    ops.wait(10_000)
    return {
        "base_ms": round(base_ms, 1),
        "import_ms": round(import_ms, 1),
        "construct_ms": round(construct_ms, 1),
        "fetch_ms": round(fetch[0], 1) if fetch else None,
        "loaded_ms": round(construct_ms + first["loaded_ms"], 1),
        "cold_ms": round(cold_ms, 1),
        "cold_cpu_ms": round(cpu_ms, 1),
        "warm_ms": [round(r["open_ms"], 1) for r in warm_runs],
        "warm_fetch_ms": [round(x, 1) for x in fetch[1:]],
        "rows_shown": rows,
        "pending": len(d.pending_promotions) if d else 0,
        "duplicates": len(d.duplicates) if d else 0,
        "ttl_reminders": len(d.ttl_reminders) if d else 0,
        "paints": paints.n,
        "size": [window.width(), window.height()],
        "errors": errors,
    }


def measure_digest(runs: int, warm: int) -> dict[str, Any]:
    src, info = build_digest_home()
    userhome = c.temp_dir("tray-digest-home")
    try:
        with c.fresh_copy(src, "tray-digest") as (home, _):
            env = c.isolated_env(home, MEMORYD_NOW=clock.iso(NOW), QT_QPA_PLATFORM="offscreen")
            env.update(HOME=str(userhome), LANG="C.UTF-8", LC_ALL="C.UTF-8")
            for var in DROP_ENV[2:]:
                env.pop(var, None)
            load = loadavg()
            children = []
            for _ in range(runs):
                out = subprocess.run(
                    [sys.executable, str(Path(__file__).resolve()), "--digest-child", str(warm)],
                    env=env,
                    capture_output=True,
                    text=True,
                    check=False,
                )
                if out.returncode != 0:
                    sys.stderr.write(out.stderr)
                    raise SystemExit(f"the digest window child failed (exit {out.returncode})")
                child = json.loads(out.stdout.strip().splitlines()[-1])
                if child["errors"] or child["rows_shown"] != PENDING:
                    raise SystemExit(f"the digest window did not show {PENDING} promotions: {child}")
                children.append(child)
    finally:
        shutil.rmtree(userhome, ignore_errors=True)
    cold = [ch["cold_ms"] for ch in children]
    with_import = [ch["cold_ms"] + ch["import_ms"] for ch in children]
    warm_all = [x for ch in children for x in ch["warm_ms"]]

    def med(key: str) -> float:
        return round(c.median(ch[key] for ch in children), 1)

    return {
        "target_ms": TARGET_DIGEST_MS,
        "runs": runs,
        "warm_reopens": warm,
        "home": info,
        "now": clock.iso(NOW),
        "loadavg_before": load,
        "pending": children[0]["pending"],
        "duplicates": children[0]["duplicates"],
        "ttl_reminders": children[0]["ttl_reminders"],
        "rows_shown": children[0]["rows_shown"],
        "window_size": children[0]["size"],
        "cold_ms": cold,
        "cold_median_ms": round(c.median(cold), 1),
        "cold_p95_ms": round(c.pct(cold, 95), 1),
        "cold_with_import_ms": [round(x, 1) for x in with_import],
        "cold_with_import_median_ms": round(c.median(with_import), 1),
        "cold_with_import_p95_ms": round(c.pct(with_import, 95), 1),
        "import_median_ms": med("import_ms"),
        "cold_cpu_median_ms": med("cold_cpu_ms"),
        "construct_median_ms": med("construct_ms"),
        "fetch_median_ms": med("fetch_ms"),
        "loaded_median_ms": med("loaded_ms"),
        "warm_ms": warm_all,
        "warm_median_ms": round(c.median(warm_all), 1) if warm_all else None,
        "warm_p95_ms": round(c.pct(warm_all, 95), 1) if warm_all else None,
        "warm_fetch_median_ms": round(c.median(x for ch in children for x in ch["warm_fetch_ms"]), 1)
        if warm_all
        else None,
    }


# -- driver ----------------------------------------------------------------------------
def idle_seconds(quick: bool) -> int:
    env = os.environ.get("MEMORYD_BENCH_IDLE_SECONDS")
    if env:
        return max(11, int(env))
    return 20 if quick else IDLE_FULL_S


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="2 runs of each, idle 20 s")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--part", action="append", choices=("cold", "idle", "digest"), help="default: all")
    ap.add_argument("--digest-child", type=int, metavar="WARM", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.digest_child is not None:
        print(json.dumps(digest_child(args.digest_child)))
        return 0
    parts = args.part or ["cold", "idle", "digest"]
    cold_runs, evicted_runs, digest_runs, warm = (2, 1, 2, 2) if args.quick else (7, 3, 7, 5)
    idle_s = idle_seconds(args.quick)
    compile_desktop()
    t_all = time.perf_counter()
    work = c.temp_dir("tray")
    result: dict[str, Any] = {"benchmark": "tray", "quick": args.quick}
    try:
        home, userhome = work / "home", work / "userhome"
        userhome.mkdir()
        with ExitStack() as stack:
            desk = "cold" in parts or "idle" in parts
            d_cold = stack.enter_context(desktop(work / "desktop-cold")) if desk else None
            d_idle = stack.enter_context(desktop(work / "desktop-idle")) if "idle" in parts else None
            idle: Idle | None = None
            stack.callback(lambda: idle.kill() if idle is not None else None)
            if d_cold is not None:
                small_home(home, clock.now())
                # The home's first start (its logs and lock made): apart from the medians;
                # every later start is a login's start.
                result["first_start_s"] = round(one_start(d_cold, home, userhome)["s"], 3)
            if d_idle is not None:
                homes = []
                for i in range(3):
                    homes.append(work / f"idle-{i}" / "home")
                    shutil.copytree(home, homes[-1], ignore=shutil.ignore_patterns("*.lock"))
                idle = Idle(d_idle, homes, userhome, idle_s)
                print(f"idle: 3 trays up, {idle_s} s to wait", file=sys.stderr, flush=True)
            if "digest" in parts:
                result["digest"] = measure_digest(digest_runs, warm)
                print(f"digest: {result['digest']['cold_median_ms']} ms", file=sys.stderr, flush=True)
            if d_cold is not None and "cold" in parts:
                time.sleep(2)  # let the digest children's exit settle
                result["cold_start"] = measure_cold(d_cold, home, userhome, cold_runs, evicted_runs)
                result["cold_start"]["notifications_shown"] = d_cold.notifications()
                print(f"cold start: {result['cold_start']['median_s']} s", file=sys.stderr, flush=True)
            if idle is not None:
                print(f"idle: {idle.left_s():.0f} s left", file=sys.stderr, flush=True)
                result["idle"] = idle.finish()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    result["took_s"] = round(time.perf_counter() - t_all)
    result["machine"] = c.machine()
    return c.finish(result, args.json, lambda: print_text(result))


def verdict(ok: bool) -> str:
    return "met" if ok else "MISSED"


def print_text(r: dict[str, Any]) -> None:
    if "cold_start" in r:
        cs = r["cold_start"]
        ev = cs["cache_evicted"]
        print(
            f"cold start to tray icon ({cs['memories']} memories): median {cs['median_s']} s, max "
            f"{cs['max_s']} s over {cs['runs']} (log stamps: {cs['logged_median_s']} s; the tray's CPU "
            f"{cs['cpu_median_s']} s; a bare PySide6 tray icon {cs['bare_tray_median_s']} s); first start of "
            f"the fresh home {r.get('first_start_s')} s; page cache dropped: {ev['s']} s; target <= "
            f"{cs['target_s']} s: {verdict(cs['median_s'] <= cs['target_s'])}"
        )
    if "idle" in r:
        i = r["idle"]
        print(
            f"idle RSS after {i['idle_s']} s ({i['trays']} trays): median {i['median_mb']} MB, max "
            f"{i['max_mb']} MB ({i['rss_mb']}); at 10 s median {i['at_10s_median_mb']} MB; by time "
            f"{i['median_by_s']}; anon {i['anon_median_mb']} MB, file {i['file_median_mb']} MB; CPU while "
            f"idle {i['cpu_s_idle']} s; a bare PySide6 tray icon {i['bare_tray_mb']} MB; target <= "
            f"{i['target_mb']:.0f} MB: "
            + (verdict(i["median_mb"] <= i["target_mb"]) if i["judged"] else "not judged (shortened wait)")
        )
    if "digest" in r:
        g = r["digest"]
        print(
            f"digest window, {g['rows_shown']} pending promotions: cold median {g['cold_median_ms']} ms, p95 "
            f"{g['cold_p95_ms']} ms ({g['runs']} processes; construct {g['construct_median_ms']} ms, fetch "
            f"{g['fetch_median_ms']} ms; with the module import {g['cold_with_import_median_ms']} ms); "
            f"reopen median {g['warm_median_ms']} ms, p95 {g['warm_p95_ms']} ms; target <= "
            f"{g['target_ms']:.0f} ms: {verdict(g['cold_median_ms'] <= g['target_ms'])}"
        )
    print(f"took {r['took_s']} s")


if __name__ == "__main__":
    sys.exit(main())
