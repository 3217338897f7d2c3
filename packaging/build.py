"""Build memoryd's bundle and this OS's installer.

    python packaging/build.py                # dist/memoryd/ and the OS's installer
    python packaging/build.py --onefile      # also dist/memoryd-tray-onefile (size comparison)
    python packaging/build.py --reference    # also the bare PySide6 tray yardstick, dist/reference/
    python packaging/build.py --no-installer # the bundle only
    python packaging/build.py --installer-only  # the installer from an existing dist/memoryd/

Every OS: PyInstaller runs packaging/memoryd.spec into dist/memoryd/ (the `memoryd` CLI and
the `memoryd-tray` app over one shared _internal/), with its work files in build/.
Linux: dist/memoryd_<version>_<arch>.deb by `dpkg-deb --build --root-owner-group`.
macOS: dist/Memoryd.app, signed ad hoc (`codesign --force --deep -s -`), in dist/Memoryd.dmg
(`hdiutil create ... -format UDZO`).
Windows: dist/memoryd-<version>-setup.exe by Inno Setup's `iscc` over
packaging/windows/memoryd.iss.

PyInstaller does not cross-compile: each installer is built on its own OS (see
docs/packaging.md and .github/workflows/package.yml).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import stat
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

PACKAGING = Path(__file__).resolve().parent
REPO = PACKAGING.parent
SPEC = PACKAGING / "memoryd.spec"
DIST = REPO / "dist"
BUILD = REPO / "build"
RESOURCES = REPO / "resources"
DESKTOP_FILE = "memoryd-tray.desktop"  # the name the tray gives Qt (setDesktopFileName)
PREFIX = "/opt/memoryd"
# memoryd.spec renders the icons here (PyInstaller's work folder is <workpath>/<spec name>)
ASSETS = BUILD / "pyinstaller" / "memoryd" / "assets"
ICON_PNG_SIZES = (48, 128, 256)
# The .deb's Maintainer field; a release sets MEMORYD_DEB_MAINTAINER to a real address.
MAINTAINER = "memoryd developers <memoryd@localhost>"

# What Qt's xcb platform plugin and the rest of the bundle load from the system rather than
# from _internal/ (PyInstaller leaves out the C library, OpenGL/EGL and most of X11/xcb).
# Kept as a floor: the libraries actually linked are looked up with ldd and dpkg as well.
XCB_DEPENDS = (
    "libegl1",
    "libgl1",
    "libfontconfig1",
    "libfreetype6",
    "libdbus-1-3",
    "libx11-6",
    "libx11-xcb1",
    "libxcb1",
    "libxcb-cursor0",
    "libxcb-icccm4",
    "libxcb-image0",
    "libxcb-keysyms1",
    "libxcb-randr0",
    "libxcb-render-util0",
    "libxcb-shape0",
    "libxcb-xkb1",
    "libxkbcommon0",
    "libxkbcommon-x11-0",
)


@dataclass
class Result:
    """What a build made, for the summary and for bench/package_size.py."""

    bundle: Path | None = None
    onefile: Path | None = None
    installer: Path | None = None
    reference: dict[str, Path] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)


def version() -> str:
    text = (REPO / "core" / "memoryd" / "__init__.py").read_text(encoding="utf-8")
    found = re.search(r'^__version__ = "([^"]+)"', text, re.MULTILINE)
    if found is None:
        raise SystemExit("no __version__ in core/memoryd/__init__.py")
    return found.group(1)


def size_of(path: Path) -> int:
    """Bytes of a file, or of every file under a folder (symlinks not followed), as `du -sb`."""
    if path.is_symlink() or path.is_file():
        return path.lstat().st_size
    return sum(p.lstat().st_size for p in path.rglob("*") if p.is_symlink() or p.is_file())


def mb(n: int) -> str:
    return f"{n / 1e6:.1f} MB"


def run(argv: Sequence[str | Path], **kwargs: object) -> None:
    print("+", " ".join(str(a) for a in argv), flush=True)
    subprocess.run([str(a) for a in argv], check=True, **kwargs)  # type: ignore[call-overload]


def pyinstaller(distpath: Path, workpath: Path, *spec_args: str, clean: bool = False) -> float:
    """Run the spec; seconds taken."""
    t0 = time.perf_counter()
    argv: list[str | Path] = [sys.executable, "-m", "PyInstaller", SPEC, "--noconfirm", "--log-level", "WARN"]
    argv += ["--distpath", distpath, "--workpath", workpath, *(["--clean"] if clean else [])]
    run([*argv, *(["--", *spec_args] if spec_args else [])])
    return time.perf_counter() - t0


def build_bundle(result: Result, clean: bool = False) -> Path:
    result.seconds["bundle"] = pyinstaller(DIST, BUILD / "pyinstaller", clean=clean)
    result.bundle = DIST / "memoryd"
    return result.bundle


def build_onefile(result: Result) -> Path:
    result.seconds["onefile"] = pyinstaller(DIST, BUILD / "pyinstaller-onefile", "--onefile")
    result.onefile = DIST / ("memoryd-tray-onefile" + (".exe" if sys.platform == "win32" else ""))
    return result.onefile


def build_reference(result: Result) -> dict[str, Path]:
    """The bare PySide6 tray, onedir and onefile, with exactly memoryd's spec and options."""
    out = DIST / "reference"
    exe = ".exe" if sys.platform == "win32" else ""
    result.seconds["reference"] = pyinstaller(out, BUILD / "reference", "--app", "bare")
    result.seconds["reference_onefile"] = pyinstaller(
        out, BUILD / "reference-onefile", "--app", "bare", "--onefile"
    )
    result.reference = {"onedir": out / "bare-tray", "onefile": out / f"bare-tray-onefile{exe}"}
    return result.reference


# -- Linux: the .deb ---------------------------------------------------------------------
def deb_arch() -> str:
    return subprocess.run(
        ["dpkg", "--print-architecture"], capture_output=True, text=True, check=True
    ).stdout.strip()


def elf_files(root: Path) -> Iterable[Path]:
    for path in root.rglob("*"):
        if path.is_file() and not path.is_symlink():
            with path.open("rb") as fh:
                if fh.read(4) == b"\x7fELF":
                    yield path


def system_libraries(bundle: Path) -> set[str]:
    """Shared libraries the bundle's binaries resolve outside the bundle (ldd), as paths."""
    inside = bundle.resolve()
    dirs = sorted({str(p.parent) for p in elf_files(bundle)})
    env = {**os.environ, "LD_LIBRARY_PATH": os.pathsep.join(dirs)}
    found: set[str] = set()
    for path in elf_files(bundle):
        proc = subprocess.run(["ldd", str(path)], capture_output=True, text=True, env=env, check=False)
        for line in proc.stdout.splitlines():
            match = re.search(r"=>\s+(/\S+)", line)
            if match and not Path(match.group(1)).resolve().is_relative_to(inside):
                found.add(match.group(1))
    return found


def owning_packages(paths: Iterable[str]) -> set[str]:
    """Debian packages that ship these files (dpkg -S), without the :arch qualifier."""
    packages: set[str] = set()
    for path in sorted(paths):
        candidates = [path]
        if path.startswith("/usr/lib/"):  # merged /usr: dpkg may know the file as /lib/...
            candidates.append(path.removeprefix("/usr"))
        elif path.startswith("/lib"):
            candidates.append("/usr" + path)
        for candidate in candidates:
            proc = subprocess.run(["dpkg", "-S", candidate], capture_output=True, text=True, check=False)
            if proc.returncode == 0:
                for line in proc.stdout.splitlines():
                    if ":" in line and "diversion" not in line:
                        packages.update(p.strip().split(":")[0] for p in line.split(": ")[0].split(","))
                break
    return packages


def glibc_version() -> str:
    """The build host's glibc: the bundled libraries were linked against it, so it is the
    floor the .deb can promise (build on the oldest distribution to support, as CI does)."""
    name, _, ver = (os.confstr("CS_GNU_LIBC_VERSION") or "").partition(" ")
    if name != "glibc" or not ver:
        raise SystemExit("not a glibc system: cannot state the .deb's libc6 dependency")
    return ver


def depends(bundle: Path) -> list[str]:
    found = owning_packages(system_libraries(bundle)) if shutil.which("dpkg") else set()
    found.discard("libc6")
    found.update(XCB_DEPENDS)
    return [f"libc6 (>= {glibc_version()})", *sorted(found)]


def normalise_modes(root: Path) -> None:
    """Folders 0755, executables 0755, other files 0644, whatever the build's umask was."""
    for path in [root, *root.rglob("*")]:
        if path.is_symlink():
            continue
        mode = path.stat().st_mode
        if path.is_dir() or mode & stat.S_IXUSR:
            path.chmod(0o755)
        else:
            path.chmod(0o644)


def build_deb(bundle: Path, ver: str) -> Path:
    """dist/memoryd_<version>_<arch>.deb: /opt/memoryd, /usr/bin links, menu entry, icons."""
    arch = deb_arch()
    stage = BUILD / "deb" / f"memoryd_{ver}_{arch}"
    if stage.exists():
        shutil.rmtree(stage)
    opt = stage / PREFIX.lstrip("/")
    shutil.copytree(bundle, opt, symlinks=True)
    usr_bin = stage / "usr" / "bin"
    usr_bin.mkdir(parents=True)
    for exe in ("memoryd", "memoryd-tray"):
        (usr_bin / exe).symlink_to(f"{PREFIX}/{exe}")
    apps = stage / "usr" / "share" / "applications"
    apps.mkdir(parents=True)
    shutil.copy2(RESOURCES / DESKTOP_FILE, apps / DESKTOP_FILE)
    if shutil.which("desktop-file-validate"):
        run(["desktop-file-validate", apps / DESKTOP_FILE])
    hicolor = stage / "usr" / "share" / "icons" / "hicolor"
    (hicolor / "scalable" / "apps").mkdir(parents=True)
    shutil.copy2(RESOURCES / "icons" / "memoryd.svg", hicolor / "scalable" / "apps" / "memoryd.svg")
    for size in ICON_PNG_SIZES:
        target = hicolor / f"{size}x{size}" / "apps"
        target.mkdir(parents=True)
        shutil.copy2(ASSETS / "icons" / f"memoryd-{size}.png", target / "memoryd.png")
    doc = stage / "usr" / "share" / "doc" / "memoryd"
    doc.mkdir(parents=True)
    (doc / "copyright").write_text(
        "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"
        "Upstream-Name: memoryd\n\nFiles: *\nCopyright: memoryd contributors\nLicense: MIT\n",
        encoding="utf-8",
    )
    control = stage / "DEBIAN" / "control"
    control.parent.mkdir()
    installed_kb = (size_of(stage) + 1023) // 1024
    control.write_text(
        "\n".join(
            [
                "Package: memoryd",
                f"Version: {ver}",
                "Section: utils",
                "Priority: optional",
                f"Architecture: {arch}",
                f"Maintainer: {os.environ.get('MEMORYD_DEB_MAINTAINER', MAINTAINER)}",
                f"Installed-Size: {installed_kb}",
                f"Depends: {', '.join(depends(bundle))}",
                "Description: local long-term memory for AI agents, with a tray app",
                " memoryd captures Claude Code, Codex and OpenClaw sessions as working memory,",
                " keeps the decisions, preferences, facts, playbooks and warnings you approve",
                " as long-term memory, and hands them back to the agent. Everything stays in",
                " Markdown files and SQLite on this machine. `memoryd` is the command line;",
                " `memoryd-tray` is the tray app that governs it. Both are self-contained",
                " (Python and Qt inside /opt/memoryd).",
                "",
            ]
        ),
        encoding="utf-8",
    )
    normalise_modes(stage)
    out = DIST / f"memoryd_{ver}_{arch}.deb"
    run(["dpkg-deb", "--build", "--root-owner-group", "-Zxz", stage, out])
    return out


# -- macOS: the signed .app in a .dmg ------------------------------------------------------
def build_dmg(ver: str) -> Path:
    app = DIST / "Memoryd.app"
    if not app.is_dir():
        raise SystemExit(f"{app} was not built (memoryd.spec's BUNDLE runs on macOS only)")
    run(["codesign", "--force", "--deep", "-s", "-", app])  # ad hoc: no Developer ID here
    run(["codesign", "--verify", "--deep", "--strict", app])
    stage = BUILD / "dmg"
    if stage.exists():
        shutil.rmtree(stage)
    stage.mkdir(parents=True)
    run(["ditto", app, stage / "Memoryd.app"])  # ditto keeps the signature and symlinks
    (stage / "Applications").symlink_to("/Applications")  # drag-to-install target
    out = DIST / "Memoryd.dmg"
    volume = f"Memoryd {ver}"
    run(["hdiutil", "create", "-volname", volume, "-srcfolder", stage, "-ov", "-format", "UDZO", out])
    return out


# -- Windows: the Inno Setup installer ---------------------------------------------------
def iscc() -> Path:
    found = shutil.which("iscc") or shutil.which("ISCC")
    if found:
        return Path(found)
    for base in (os.environ.get("PROGRAMFILES(X86)"), os.environ.get("PROGRAMFILES")):
        if base and (Path(base) / "Inno Setup 6" / "ISCC.exe").is_file():
            return Path(base) / "Inno Setup 6" / "ISCC.exe"
    raise SystemExit("Inno Setup's ISCC.exe not found (choco install innosetup)")


def build_setup(bundle: Path, ver: str) -> Path:
    script = PACKAGING / "windows" / "memoryd.iss"
    icon = ASSETS / "icons" / "memoryd.ico"
    run(
        [
            iscc(),
            f"/DAppVersion={ver}",
            f"/DBundleDir={bundle.resolve()}",
            f"/DOutputDir={DIST.resolve()}",
            f"/DIconFile={icon.resolve()}",
            script,
        ]
    )
    return DIST / f"memoryd-{ver}-setup.exe"


def build_installer(result: Result) -> Path | None:
    assert result.bundle is not None
    ver = version()
    t0 = time.perf_counter()
    if sys.platform.startswith("linux"):
        if not shutil.which("dpkg-deb"):
            print("dpkg-deb not found: no .deb (apt-get install dpkg-dev)", file=sys.stderr)
            return None
        result.installer = build_deb(result.bundle, ver)
    elif sys.platform == "darwin":
        result.installer = build_dmg(ver)
    elif sys.platform == "win32":
        result.installer = build_setup(result.bundle, ver)
    result.seconds["installer"] = time.perf_counter() - t0
    return result.installer


def summary(result: Result) -> list[str]:
    lines = []
    if result.bundle:
        lines.append(f"bundle     {result.bundle}  {mb(size_of(result.bundle))}")
    if result.onefile:
        lines.append(f"onefile    {result.onefile}  {mb(size_of(result.onefile))}")
    if result.installer:
        lines.append(f"installer  {result.installer}  {mb(size_of(result.installer))}")
    for kind, path in result.reference.items():
        lines.append(f"bare tray  {kind:8s} {path}  {mb(size_of(path))}")
    lines.append("seconds    " + ", ".join(f"{k} {v:.0f}" for k, v in result.seconds.items()))
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--onefile", action="store_true", help="also the one-file tray, for the size comparison")
    ap.add_argument("--reference", action="store_true", help="also the bare PySide6 tray (dist/reference/)")
    ap.add_argument("--no-installer", action="store_true", help="the bundle only")
    ap.add_argument(
        "--installer-only", action="store_true", help="only the installer, from dist/memoryd/ as built"
    )
    ap.add_argument("--clean", action="store_true", help="empty PyInstaller's cache first")
    args = ap.parse_args(argv)
    result = Result()
    if args.installer_only:
        result.bundle = DIST / "memoryd"
        if not result.bundle.is_dir():
            raise SystemExit(f"{result.bundle} is not built yet")
    else:
        build_bundle(result, clean=args.clean)
    if not args.no_installer:
        build_installer(result)
    if args.onefile:
        build_onefile(result)
    if args.reference:
        build_reference(result)
    print("\n".join(summary(result)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
