"""Smoke tests of the BUILT bundle, as a user gets it: dist/memoryd/ from packaging/build.py
(the `memoryd` CLI and the `memoryd-tray` app over one _internal/) and, on Linux, the .deb.

Every program runs from the bundle with a fresh data folder, config and HOME, no Python of
ours on PATH and no PYTHON* variables, in a folder outside the checkout, so nothing can
come from the source tree. What is checked:

- the CLI: --version; `setup claude-code`, then the Stop hook it wrote, run as Claude Code
  runs it, captures a real-shaped transcript, and the worker the frozen hook starts
  detached (`memoryd -P -m memoryd.capture.worker`) turns it into a session memory;
  `record`; `search` finds both; the SessionStart hook hands the session back; `doctor`
  is clean; `memoryd mcp` serves the five tools over stdio; `memoryd digest --tui` draws in
  a tmux pane and quits on q;
- the tray: on Linux under a real Xvfb with a session bus and trayer as the tray host,
  its icon embedded in trayer's panel, up for seconds, nothing on stderr but its own INFO
  log lines, and a clean exit on SIGTERM (elsewhere offscreen: it starts and is ready);
- the .deb: unpacked with `dpkg-deb -x` into a temporary root (never installed system
  wide): control fields, root-owned files, layout, links, desktop entry, icons, and the
  CLI runs from the unpacked /opt/memoryd.

Deselected by default (tests/packaging/conftest.py): MEMORYD_PACKAGING=1 turns them on.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from filelock import FileLock
from mcp import Client, StdioServerParameters

import memoryd
from memoryd.testing import claude_exchange, write_jsonl
from tests.delivery import SYSTEM_PACKAGES

pytestmark = [pytest.mark.packaging, pytest.mark.timeout(3600)]

REPO = Path(__file__).resolve().parents[2]
BUILD_SCRIPT = REPO / "packaging" / "build.py"
EXE = ".exe" if sys.platform == "win32" else ""
VERSION = f"memoryd {memoryd.__version__}"
TOOLS = {"mem_search", "mem_get", "mem_traces", "mem_record", "mem_recent"}
FIRST_PROMPT = "Add exponential backoff with jitter to the billing client's retry loop"
# What the tray may print: its own log lines at INFO ("2026-11-23 01:34:54,388 memoryd.tray INFO ...").
LOG_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} memoryd[\w.]* INFO ")
READY = "memoryd-tray ready"


@dataclass(frozen=True)
class Bundle:
    folder: Path
    deb: Path | None

    @property
    def cli(self) -> Path:
        return self.folder / f"memoryd{EXE}"

    @property
    def tray(self) -> Path:
        return self.folder / f"memoryd-tray{EXE}"


@pytest.fixture(scope="session")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Bundle:
    """MEMORYD_BUNDLE (and MEMORYD_DEB) when given, else a fresh build by packaging/build.py,
    made once per run: under pytest-xdist the first worker builds, the others wait for it."""
    given = os.environ.get("MEMORYD_BUNDLE")
    if given:
        folder = Path(given).resolve()
    else:
        run_dir = tmp_path_factory.getbasetemp()
        if "PYTEST_XDIST_WORKER" in os.environ:
            run_dir = run_dir.parent  # shared by this run's workers, and only theirs
        with FileLock(str(run_dir / "bundle.lock")):
            built = run_dir / "bundle.built"
            if not built.exists():
                proc = subprocess.run(
                    [sys.executable, str(BUILD_SCRIPT)],
                    cwd=REPO,
                    capture_output=True,
                    text=True,
                    timeout=3600,
                )
                assert proc.returncode == 0, f"build failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
                built.write_text(proc.stdout, encoding="utf-8")
        folder = REPO / "dist" / "memoryd"
    assert (folder / f"memoryd{EXE}").is_file(), f"no memoryd executable in {folder}"
    deb = os.environ.get("MEMORYD_DEB")
    found = sorted(folder.parent.glob("memoryd_*.deb"))
    return Bundle(folder, Path(deb).resolve() if deb else (found[-1] if found else None))


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """A user's environment with nothing of the checkout or its interpreter in it."""
    drop = ("MEMORYD_", "PYTHON", "VIRTUAL_ENV", "ANTHROPIC_", "OPENAI_", "QT_", "CLAUDE_")
    out = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    home = tmp_path / "userhome"
    home.mkdir(exist_ok=True)
    out.update(
        MEMORYD_HOME=str(tmp_path / "data"),
        MEMORYD_CONFIG=str(tmp_path / "config.toml"),
        MEMORYD_NO_FALLBACK="1",  # no overdue nightly job set off in the background
        HOME=str(home),
        LANG="C.UTF-8",
        LC_ALL="C.UTF-8",
        TZ="UTC",
    )
    if sys.platform == "win32":
        out["USERPROFILE"] = str(home)
    else:
        out["PATH"] = "/usr/bin:/bin"  # the bundle must need no Python of ours
    return out


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "proj"
    path.mkdir()
    return path


def run(
    argv: list[str | Path],
    env: dict[str, str],
    cwd: Path,
    stdin: str | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in argv],
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        cwd=cwd,
        timeout=timeout,
        check=False,
    )


def ok(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 0, f"{proc.args} exited {proc.returncode}:\n{proc.stderr}"
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.stdout


def wait_for(what: str, check: Callable[[], Any], timeout: float = 60) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.2)
    pytest.fail(f"timed out waiting for {what}")


# -- the CLI -------------------------------------------------------------------------------
def hook_commands(home: Path) -> dict[str, str]:
    settings = json.loads((home / ".claude" / "settings.json").read_text(encoding="utf-8"))
    out = {}
    for event, groups in settings["hooks"].items():
        for group in groups:
            for handler in group["hooks"]:
                if "memoryd" in handler["command"]:
                    out[event] = handler["command"]
    return out


def run_hook(command: str, payload: dict[str, Any], env: dict[str, str], cwd: Path) -> str:
    """A hook as Claude Code runs it: `sh -c` in the project, the event's JSON on stdin.
    (On Windows the same argv without a POSIX shell.)"""
    argv: list[str | Path] = ["sh", "-c", command] if os.name == "posix" else list(shlex.split(command))
    return ok(run(argv, env, cwd, stdin=json.dumps(payload)))


def transcript(home: Path, project: Path, sid: str) -> Path:
    folder = home / ".claude" / "projects" / str(project).replace(os.sep, "-")
    lines = claude_exchange(
        session_id=sid,
        cwd=str(project),
        prompt=FIRST_PROMPT,
        answer="Backoff is in: 2^n seconds plus jitter; 12 tests pass.",
        tool="Bash",
        tool_input={"command": "pytest tests/billing -q"},
        tool_output="12 passed in 0.41s",
    )
    return write_jsonl(folder / f"{sid}.jsonl", lines)


def test_cli_captures_records_searches_and_checks(bundle: Bundle, env: dict[str, str], project: Path) -> None:
    cli, home = bundle.cli, Path(env["HOME"])
    assert ok(run([cli, "--version"], env, project)).strip() == VERSION

    # Claude Code's hooks, written by the bundled memoryd, pointing at the bundled memoryd.
    ok(run([cli, "setup", "claude-code"], env, project))
    commands = hook_commands(home)
    assert {"SessionStart", "Stop", "SessionEnd"} <= set(commands)
    assert shlex.split(commands["Stop"])[0] == str(cli), commands["Stop"]

    # A Stop: the hook spools and returns; the worker it starts detached captures.
    sid = str(uuid.uuid4())
    path = transcript(home, project, sid)
    stop = {"session_id": sid, "transcript_path": str(path), "cwd": str(project)}
    run_hook(commands["Stop"], {**stop, "hook_event_name": "Stop", "stop_hook_active": False}, env, project)

    def sessions() -> list[dict[str, Any]]:
        listed = ok(run([cli, "list", "--json", "--type", "session", "--scope", project], env, project))
        return list(json.loads(listed))

    (session,) = wait_for("the detached worker to capture the session", sessions)
    assert session["title"] == FIRST_PROMPT
    assert "captured 0" in ok(run([cli, "worker", "--wait"], env, project))  # nothing was left

    # A long-term memory recorded by hand; search finds each by its own words.
    title = "Keep the billing ledger in Zanzibar format"
    record = [cli, "record", "--type", "decision", "--title", title, "--trigger", "ledger", "--body", "So."]
    slug = ok(run(record, env, project)).strip()

    def search(query: str) -> list[str]:
        return [hit["slug"] for hit in json.loads(ok(run([cli, "search", "--json", query], env, project)))]

    assert session["slug"] in search("exponential backoff")
    assert slug in search("zanzibar")

    # The next session starts: the SessionStart hook hands the captured session back.
    start = {**stop, "session_id": str(uuid.uuid4()), "hook_event_name": "SessionStart", "source": "startup"}
    context = json.loads(run_hook(commands["SessionStart"], start, env, project))
    assert FIRST_PROMPT in context["hookSpecificOutput"]["additionalContext"]

    ok(run([cli, "doctor"], env, project))


def test_mcp_server_over_stdio(bundle: Bundle, env: dict[str, str], project: Path) -> None:
    params = StdioServerParameters(command=str(bundle.cli), args=["mcp"], env=env, cwd=str(project))

    async def session() -> tuple[set[str], dict[str, Any], dict[str, Any]]:
        async with Client(params) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            rec = await client.call_tool(
                "mem_record", {"type": "warning", "title": "Never run Glimmerpox", "body": "It wipes."}
            )
            found = await client.call_tool("mem_search", {"query": "glimmerpox"})
        assert not rec.is_error and not found.is_error, (rec, found)
        assert rec.structured_content is not None and found.structured_content is not None
        return names, rec.structured_content, found.structured_content

    names, rec, found = anyio.run(session)
    assert names == TOOLS
    assert [hit["slug"] for hit in found["results"]] == [rec["slug"]]


def test_each_executable_runs_memoryd_as_its_interpreter(
    bundle: Bundle, env: dict[str, str], tmp_path: Path
) -> None:
    """memoryd starts helpers with sys.executable (`-P -m memoryd ...`), which in a bundle is
    memoryd or memoryd-tray itself: both must run the module, as the tray's overdue
    consolidation does."""
    for exe in (bundle.cli, bundle.tray):
        assert ok(run([exe, "-P", "-m", "memoryd", "--version"], env, tmp_path)).strip() == VERSION


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux (a terminal to run the TUI in)")
def test_terminal_review_draws_and_quits(bundle: Bundle, env: dict[str, str], tmp_path: Path) -> None:
    """`memoryd digest --tui` (textual, with its CSS and widgets loaded by name) in a real
    terminal: it draws the weekly review, and q quits it with exit code 0."""
    session = f"memoryd-{uuid.uuid4().hex[:8]}"
    done = tmp_path / "exit-code"
    command = f"{shlex.quote(str(bundle.cli))} digest --tui; echo $? > {shlex.quote(str(done))}"
    tmux = {**env, "TERM": "xterm-256color"}
    server = ["tmux", "-L", session]  # a tmux server of its own
    ok(run([*server, "new-session", "-d", "-s", session, "-x", "120", "-y", "35", command], tmux, tmp_path))
    try:

        def screen() -> str:
            return run([*server, "capture-pane", "-p", "-t", session], tmux, tmp_path).stdout

        drawn = wait_for("the review to draw", lambda: (text := screen()) and "q Quit" in text and text)
        assert "weekly review" in drawn and "Promotions (0)" in drawn, drawn
        run([*server, "send-keys", "-t", session, "q"], tmux, tmp_path)
        wait_for("the review to quit", done.exists, timeout=20)
        assert done.read_text().strip() == "0"
    finally:
        run([*server, "kill-server"], tmux, tmp_path)


@pytest.mark.skipif(sys.platform != "darwin", reason="the .app exists on macOS only")
def test_macos_app_holds_both_programs(bundle: Bundle, env: dict[str, str], tmp_path: Path) -> None:
    macos = bundle.folder.parent / "Memoryd.app" / "Contents" / "MacOS"
    assert (macos / "memoryd-tray").is_file()
    assert ok(run([macos / "memoryd", "--version"], env, tmp_path)).strip() == VERSION


# -- the tray ------------------------------------------------------------------------------
def tray_log(env: dict[str, str]) -> str:
    path = Path(env["MEMORYD_HOME"]) / "logs" / "tray.log"
    return path.read_text(encoding="utf-8") if path.exists() else ""


def embedded_in_panel(tree: str, wm_class: str = "memoryd-tray") -> bool:
    """True when `xwininfo -root -tree` shows a window of our class inside trayer's panel."""
    panel_indent = None
    for line in tree.splitlines():
        indent = len(line) - len(line.lstrip())
        if '("panel" "trayer")' in line:
            panel_indent = indent
        elif panel_indent is not None and line.strip():
            if indent <= panel_indent:
                panel_indent = None
            elif f'("{wm_class}"' in line:
                return True
    return False


def artifacts() -> Path:
    out = Path(os.environ.get("MEMORYD_ARTIFACTS") or REPO / "test-artifacts") / "packaging"
    out.mkdir(parents=True, exist_ok=True)
    return out


def screenshot(display_env: dict[str, str], out: Path) -> None:
    """The top of the screen, where trayer shows our icon, for a person to look at."""
    code = (
        "import sys; from PySide6.QtGui import QGuiApplication; a = QGuiApplication([]); "
        "s = a.primaryScreen(); g = s.geometry(); "
        "sys.exit(0 if s.grabWindow(0, g.width() - 320, 0, 320, 40).save(sys.argv[1]) else 1)"
    )
    subprocess.run([sys.executable, "-c", code, str(out)], env=display_env, timeout=60, check=False)


@pytest.fixture
def desktop(tmp_path: Path) -> Iterator[dict[str, str]]:
    """Xvfb, a private session bus and trayer (tests/desktop_session.py); their variables."""
    from tests import desktop_session as ds

    missing = [tool for tool in ("Xvfb", "dbus-daemon", "trayer") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)}: install {SYSTEM_PACKAGES}")
    xvfb, display = ds.start_xvfb()
    bus, address = ds.start_bus(tmp_path)
    desk = ds.Desktop(display, address, tmp_path / "shown.bin").env()
    host = ds.start_trayer(desk)
    try:
        ds.wait_for_tray(desk)
        yield {"DISPLAY": display, "DBUS_SESSION_BUS_ADDRESS": address, "QT_QPA_PLATFORM": "xcb"}
    finally:
        ds.stop(host)
        ds.stop(bus)
        ds.stop(xvfb)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Xvfb and trayer are Linux programs")
def test_tray_on_a_real_x_display_with_a_tray_host(
    bundle: Bundle, env: dict[str, str], desktop: dict[str, str], tmp_path: Path
) -> None:
    env = {k: v for k, v in env.items() if k not in ("WAYLAND_DISPLAY", "XDG_RUNTIME_DIR")}
    env.update(desktop)
    proc = subprocess.Popen(
        [str(bundle.tray)], env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )

    def windows() -> str:
        tree = run(["xwininfo", "-root", "-tree"], env, tmp_path).stdout
        return tree if embedded_in_panel(tree) else ""

    try:
        wait_for(
            "the tray to be ready", lambda: f"{READY} (tray)" in tray_log(env) or proc.poll() is not None
        )
        assert proc.poll() is None, f"memoryd-tray exited {proc.returncode}"
        tree = wait_for("the icon in trayer's panel", windows, timeout=20) if shutil.which("xwininfo") else ""
        time.sleep(3)
        assert proc.poll() is None, "memoryd-tray died after start-up"
        screenshot({**os.environ, **desktop}, artifacts() / "tray-on-xvfb.png")
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err.decode(errors="replace")
    alarming = [ln for ln in err.decode("utf-8", "replace").splitlines() if not LOG_LINE.match(ln)]
    assert not alarming, "unexpected stderr:\n" + "\n".join(alarming)
    assert not out.strip(), out
    assert "signal SIGTERM: quitting" in tray_log(env)
    assert not tree or embedded_in_panel(tree)


@pytest.mark.skipif(sys.platform.startswith("linux"), reason="Linux runs the tray on a real X display")
def test_tray_starts_offscreen(bundle: Bundle, env: dict[str, str], tmp_path: Path) -> None:
    """macOS and Windows CI have no tray host to check; the bundled tray must still start."""
    env = {**env, "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.Popen(
        [str(bundle.tray)], env=env, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        wait_for("the tray to be ready", lambda: READY in tray_log(env) or proc.poll() is not None)
        assert proc.poll() is None, f"memoryd-tray exited {proc.returncode}"
        time.sleep(3)
        assert proc.poll() is None, "memoryd-tray died after start-up"
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    assert b"Traceback" not in err, err.decode(errors="replace")


# -- the .deb ------------------------------------------------------------------------------
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the .deb is built on Linux")
def test_deb_unpacks_to_a_working_layout(bundle: Bundle, env: dict[str, str], tmp_path: Path) -> None:
    if shutil.which("dpkg-deb") is None:
        pytest.skip("needs dpkg-deb")
    assert bundle.deb is not None and bundle.deb.is_file(), f"no .deb beside {bundle.folder}"
    deb, root = bundle.deb, tmp_path / "root"
    ok(run(["dpkg-deb", "-x", deb, root], env, tmp_path))

    fields = {}
    for name in ("Package", "Version", "Architecture", "Depends", "Installed-Size"):
        fields[name] = ok(run(["dpkg-deb", "-f", deb, name], env, tmp_path)).strip()
    assert fields["Package"] == "memoryd" and fields["Version"] == memoryd.__version__
    depends = [d.strip().split(" ")[0] for d in fields["Depends"].split(",")]
    for lib in ("libc6", "libxcb-cursor0", "libxkbcommon-x11-0", "libegl1", "libfontconfig1", "libdbus-1-3"):
        assert lib in depends, fields["Depends"]
    listing = ok(run(["dpkg-deb", "-c", deb], env, tmp_path)).splitlines()
    assert listing and all(line.split()[1] == "root/root" for line in listing), listing[:3]

    opt = root / "opt" / "memoryd"
    for rel in (
        "opt/memoryd/memoryd",
        "opt/memoryd/memoryd-tray",
        "opt/memoryd/_internal/resources/icons/memoryd.svg",
        "opt/memoryd/_internal/resources/translations/memoryd_zh_CN.qm",
        "usr/share/applications/memoryd-tray.desktop",
        "usr/share/icons/hicolor/scalable/apps/memoryd.svg",
        "usr/share/icons/hicolor/256x256/apps/memoryd.png",
        "usr/share/doc/memoryd/copyright",
    ):
        assert (root / rel).is_file(), rel
    for exe in ("memoryd", "memoryd-tray"):
        assert os.readlink(root / "usr" / "bin" / exe) == f"/opt/memoryd/{exe}"
        assert (opt / exe).stat().st_mode & 0o777 == 0o755
    entry_name = "memoryd-tray.desktop"
    entry = (root / "usr" / "share" / "applications" / entry_name).read_text(encoding="utf-8")
    assert "\nExec=memoryd-tray\n" in entry and "\nIcon=memoryd\n" in entry
    if shutil.which("desktop-file-validate"):
        ok(
            run(
                ["desktop-file-validate", root / "usr" / "share" / "applications" / entry_name], env, tmp_path
            )
        )
    installed_kb = sum(p.lstat().st_size for p in root.rglob("*") if p.is_file() or p.is_symlink()) / 1024
    assert abs(installed_kb - int(fields["Installed-Size"])) < 0.02 * installed_kb + 64

    # The unpacked copy runs on its own, from a path it was not built at.
    assert ok(run([opt / "memoryd", "--version"], env, tmp_path)).strip() == VERSION
    slug = ok(
        run(
            [opt / "memoryd", "record", "--type", "fact", "--title", "Quokkas nap", "--body", "Often."],
            env,
            tmp_path,
        )
    )
    found = json.loads(ok(run([opt / "memoryd", "search", "--json", "quokkas"], env, tmp_path)))
    assert [hit["slug"] for hit in found] == [slug.strip()]
