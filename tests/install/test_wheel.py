"""The built wheel, installed as users install it, not editable: into a fresh venv with pip,
with `pipx install` and with `uv tool install`. Each install runs `memoryd` and
`memoryd-tray` from its own bin/ and must import memoryd from its own site-packages (an
editable finder or PYTHONPATH pointing at the checkout would hide a wheel that lacks files).

The pip venv reuses this interpreter's site-packages for the dependencies (`--no-deps`), and
so does pipx (`--system-site-packages`, pip backend); uv installs every dependency from the
package index, as a user's `uv tool install` does (a few seconds with uv).
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from tests.install.conftest import clean_env, run

pytestmark = pytest.mark.xdist_group("install")  # one worker builds the wheel once

RESOURCES = (
    "memoryd/resources/icons/memoryd.svg",
    "memoryd/resources/icons/memoryd-pending.svg",
    "memoryd/resources/translations/memoryd_zh_CN.ts",
    "memoryd/resources/translations/memoryd_en.ts",
    "memoryd/resources/openclaw/memoryd/SKILL.md",
    "memoryd/resources/memoryd-tray.desktop",
)
INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
READY = "memoryd-tray ready"


def version_of(wheel: Path) -> str:
    return wheel.name.split("-")[1]


def imported_from(python: Path, *modules: str) -> list[Path]:
    code = (
        "import importlib,sys; print('\\n'.join(importlib.import_module(m).__file__ for m in sys.argv[1:]))"
    )
    out = run(python, "-c", code, *modules, cwd=python.parent, env=clean_env()).stdout
    return [Path(line) for line in out.splitlines()]


def assert_installed_in(prefix: Path, python: Path) -> None:
    for module in imported_from(python, "memoryd", "memoryd_desktop"):
        assert module.is_relative_to(prefix), f"{module} is not from the install under {prefix}"


def assert_tray_starts(bin_dir: Path, prefix: Path, home: Path) -> None:
    """memoryd-tray offscreen under a Chinese locale: its log names the icon it loaded from
    the install and the zh_CN catalogue; SIGTERM quits it with 0."""
    env = clean_env(QT_QPA_PLATFORM="offscreen", LANG="zh_CN.UTF-8", MEMORYD_HOME=str(home))
    for var in ("LC_ALL", "LC_MESSAGES", "LANGUAGE"):
        env.pop(var, None)
    proc = subprocess.Popen(
        [str(bin_dir / "memoryd-tray")], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    log = home / "logs" / "tray.log"
    try:
        deadline = time.monotonic() + 60
        while READY not in (log.read_text(encoding="utf-8") if log.is_file() else ""):
            assert proc.poll() is None, f"memoryd-tray exited {proc.returncode}: {proc.communicate()[1]}"
            assert time.monotonic() < deadline, f"{READY!r} not logged in 60 s"
            time.sleep(0.2)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    text = log.read_text(encoding="utf-8")
    icon = prefix.resolve() / "memoryd" / "resources" / "icons" / "memoryd.svg"
    assert any(
        "icon loaded from" in line and line.rstrip().endswith(str(icon)) for line in text.splitlines()
    ), text
    assert "translation zh_CN loaded for locale zh_CN" in text, text
    assert "memoryd-tray quit" in text


def site_packages(venv: Path) -> Path:
    (found,) = venv.glob("lib/python3*/site-packages")
    return found


def test_the_wheel_carries_the_resources(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert set(RESOURCES) <= names, sorted(set(RESOURCES) - names)
    assert not [n for n in names if n.endswith(".qm")]  # the tray compiles the .ts it ships
    assert "memoryd_desktop/main.py" in names
    assert "memoryd/migrations/001_initial_schema.sql" in names


def test_a_wheel_built_from_the_sdist_carries_them_too(source: Path, tmp_path: Path) -> None:
    """`uv build` (like `python -m build`) builds the sdist, then the wheel from it."""
    out = tmp_path / "dist"
    run(
        "uv",
        "build",
        "--quiet",
        "--out-dir",
        out,
        source,
        env=clean_env(UV_CACHE_DIR=str(tmp_path / "cache")),
    )
    (built,) = out.glob("memoryd-*.whl")
    names = set(zipfile.ZipFile(built).namelist())
    assert set(RESOURCES) <= names, sorted(set(RESOURCES) - names)


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the wheel installed by pip; its dependencies come from this
    interpreter's site-packages, which already has them (the dev install)."""
    path = tmp_path_factory.mktemp("venv") / "venv"
    run(sys.executable, "-m", "venv", "--system-site-packages", path, env=clean_env())
    run(path / "bin" / "python", "-m", "pip", "install", "-q", "--no-deps", wheel, env=clean_env())
    return path


def assert_cli_works(bin_dir: Path, version: str, tmp_path: Path) -> None:
    """`memoryd --version`, a memory recorded and found by `memoryd search`, and `memoryd
    mcp` answering an initialize over stdio, in a data folder of the test's own."""
    memoryd = bin_dir / "memoryd"
    env = clean_env(MEMORYD_HOME=str(tmp_path / "data"))
    project = tmp_path / "proj"
    project.mkdir()

    assert run(memoryd, "--version", env=env).stdout.strip() == f"memoryd {version}"
    slug = run(
        memoryd, "record", "--type", "decision", "--title", "Use Postgres", "--trigger", "database",
        "--body", "SQLite locks under load", cwd=project, env=env,
    ).stdout.strip()  # fmt: skip
    found = run(memoryd, "search", "postgres", cwd=project, env=env).stdout
    assert slug and slug in found and "SQLite locks under load" in found

    proc = run(memoryd, "mcp", input=json.dumps(INIT) + "\n", cwd=project, env=env, timeout=60)
    reply = json.loads(proc.stdout.splitlines()[0])
    assert reply["id"] == 0
    assert reply["result"]["serverInfo"] == {"name": "memoryd", "version": version}


def test_pip_venv_runs_the_cli(venv: Path, wheel: Path, tmp_path: Path) -> None:
    assert_installed_in(site_packages(venv), venv / "bin" / "python")
    assert_cli_works(venv / "bin", version_of(wheel), tmp_path)


def test_pip_venv_runs_the_tray(venv: Path, tmp_path: Path) -> None:
    assert_tray_starts(venv / "bin", site_packages(venv), tmp_path / "data")


def test_pipx_install(wheel: Path, tmp_path: Path) -> None:
    """pipx with its pip backend; the dependencies come from the system site-packages."""
    env = clean_env(
        PIPX_HOME=str(tmp_path / "pipx"),
        PIPX_BIN_DIR=str(tmp_path / "bin"),
        PIPX_MAN_DIR=str(tmp_path / "man"),
        PIP_CACHE_DIR=str(tmp_path / "pip-cache"),
    )
    run(
        sys.executable, "-m", "pipx", "install", "--backend", "pip", "--system-site-packages",
        "--python", sys.executable, f"{wheel}[desktop]", env=env,
    )  # fmt: skip
    prefix = tmp_path / "pipx" / "venvs" / "memoryd"
    assert_installed_in(site_packages(prefix), prefix / "bin" / "python")
    assert_cli_works(tmp_path / "bin", version_of(wheel), tmp_path)
    assert_tray_starts(tmp_path / "bin", site_packages(prefix), tmp_path / "tray-data")


def test_uv_tool_install(wheel: Path, tmp_path: Path) -> None:
    """uv in its own venv, every dependency (PySide6 included) from the package index."""
    env = clean_env(
        UV_TOOL_DIR=str(tmp_path / "tools"),
        UV_TOOL_BIN_DIR=str(tmp_path / "bin"),
        UV_CACHE_DIR=str(tmp_path / "uv-cache"),
        UV_PYTHON_DOWNLOADS="never",
    )
    run(
        sys.executable,
        "-m",
        "uv",
        "tool",
        "install",
        "--python",
        sys.executable,
        f"{wheel}[desktop]",
        env=env,
    )
    prefix = tmp_path / "tools" / "memoryd"
    assert_installed_in(site_packages(prefix), prefix / "bin" / "python")
    assert_cli_works(tmp_path / "bin", version_of(wheel), tmp_path)
    assert_tray_starts(tmp_path / "bin", site_packages(prefix), tmp_path / "tray-data")
