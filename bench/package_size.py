"""Package size: the installable bundle against a bare PySide6 tray app bundled the same way.

Why: memoryd ships as a self-contained bundle (Python, Qt and every dependency inside), and
what a user downloads and keeps on disk should be about what any PySide6 tray app costs,
not much more: the issue's target is within 20% of a bare tray icon bundled the same way
(about 170 MB as a folder and 70 MB as one file with PyInstaller's defaults).

  * Built with packaging/build.py --onefile --reference (PyInstaller, packaging/memoryd.spec):
    memoryd's onedir bundle (dist/memoryd/, both executables), the tray as one file, the
    .deb, and the yardstick packaging/reference/bare_tray.py (QApplication, QSystemTrayIcon,
    a menu with Quit) through the same spec with the same options (same Qt trimming, same
    strip), onedir and onefile. Also the bare tray with PyInstaller's default options, the
    ~170 MB / ~70 MB figure the target was set from.
  * Sizes are apparent bytes (`du -sb`): every file, symlinks not followed. Installed size:
    the .deb unpacked with `dpkg-deb -x` into a temporary root.
  * Start-up: `memoryd --version` from the bundle, median of 5 fresh processes, with the
    bundle's files in the page cache and after dropping them (posix_fadvise DONTNEED); the
    capture hook (`memoryd capture --source=claude-code`, the detached worker off) likewise;
    the one-file tray running the CLI (`-P -m memoryd --version`), which unpacks itself
    first; and the checkout's own `python -m memoryd --version` on the same machine.

    python bench/package_size.py [--json] [--reuse] [--runs 5]

--reuse measures what is already in dist/ (from `python packaging/build.py --onefile
--reference`) instead of building; a build takes 10-20 minutes on 2 cores, so run_all runs
this benchmark only when asked: `python bench/run_all.py --with package`.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import _common as c

TARGET_RATIO = 1.2
EXE = ".exe" if sys.platform == "win32" else ""
NOW = "2026-11-23T10:00:00Z"


def build_module() -> ModuleType:
    """packaging/build.py, imported by path (the folder is not a package: `packaging` on
    sys.path would be PyPI's)."""
    path = c.REPO / "packaging" / "build.py"
    spec = importlib.util.spec_from_file_location("memoryd_packaging_build", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot import {path}")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look the module up while it executes
    spec.loader.exec_module(mod)
    return mod


def default_bare(build: ModuleType, out: Path) -> dict[str, Any]:
    """The bare tray with PyInstaller's defaults (no spec, no trimming), onedir and onefile."""
    script = c.REPO / "packaging" / "reference" / "bare_tray.py"
    work = c.REPO / "build" / "reference-default"
    sizes: dict[str, Any] = {}
    for mode in ("onedir", "onefile"):
        t0 = time.perf_counter()
        name = f"bare-tray-default-{mode}"
        argv = [sys.executable, "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN", f"--{mode}"]
        argv += ["--name", name, "--distpath", str(out), "--workpath", str(work), "--specpath", str(work)]
        subprocess.run([*argv, str(script)], check=True)
        target = out / (name if mode == "onedir" else name + EXE)
        sizes[mode] = {"bytes": build.size_of(target), "build_s": round(time.perf_counter() - t0, 1)}
    return sizes


def evict(folder: Path) -> None:
    """Drop a file or folder's files from the page cache (pages a process has mapped stay)."""
    paths = (
        [folder] if folder.is_file() else [p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()]
    )
    for path in paths:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def startup(bundle: Path, onefile: Path | None, runs: int) -> dict[str, Any]:
    """Wall seconds of fresh processes, the cases interleaved round by round (a busy
    machine slows every case alike), after one untimed warm-up round; medians and each run."""
    work = c.temp_dir("package")
    try:
        project = work / "proj"
        project.mkdir()
        env = c.isolated_env(work / "home", MEMORYD_NO_FALLBACK="1", MEMORYD_NO_WORKER="1", MEMORYD_NOW=NOW)
        cli = str(bundle / f"memoryd{EXE}")
        hookrun = str(c.REPO / "core" / "memoryd" / "hookrun.py")
        payload = json.dumps(
            {"session_id": "s-1", "transcript_path": str(work / "none.jsonl"), "cwd": str(project)}
        )
        cases: dict[str, tuple[list[str], bool]] = {
            "version_warm": ([cli, "--version"], False),
            "version_cold": ([cli, "--version"], True),
            "capture_warm": ([cli, "capture", "--source=claude-code"], False),
            "checkout_capture": ([sys.executable, "-S", hookrun, "capture", "--source=claude-code"], False),
            "checkout_version": ([sys.executable, "-m", "memoryd", "--version"], False),
            "checkout_python_pass": ([sys.executable, "-S", "-c", "pass"], False),
        }
        if onefile is not None and onefile.is_file():
            cases["onefile_version"] = ([str(onefile), "-P", "-m", "memoryd", "--version"], False)
        times: dict[str, list[float]] = {name: [] for name in cases}
        for round_ in range(runs + 1):
            for name, (argv, cold) in cases.items():
                if cold and hasattr(os, "posix_fadvise"):
                    evict(bundle)
                t0 = time.perf_counter()
                subprocess.run(
                    argv, env=env, cwd=project, input=payload.encode(), capture_output=True, check=True
                )
                if round_:  # the first round only warms up
                    times[name].append(time.perf_counter() - t0)
        return {
            name: {"median_s": round(c.median(ts), 3), "s": [round(t, 3) for t in ts]}
            for name, ts in times.items()
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)


def installed(build: ModuleType, deb: Path) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="memoryd-deb-") as tmp:
        subprocess.run(["dpkg-deb", "-x", str(deb), tmp], check=True)
        root_bytes = build.size_of(Path(tmp))
    field = subprocess.run(
        ["dpkg-deb", "-f", str(deb), "Installed-Size"], capture_output=True, text=True, check=True
    )
    return {"bytes": root_bytes, "installed_size_field_kb": int(field.stdout.strip())}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--quick", action="store_true", help="3 runs per start-up figure; reuse dist/ when built")
    ap.add_argument("--reuse", action="store_true", help="measure dist/ as built, build nothing")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args(argv)
    build = build_module()
    runs = 3 if args.quick else args.runs
    dist = c.REPO / "dist"
    reuse = args.reuse or (args.quick and (dist / "memoryd").is_dir())
    t_start = time.perf_counter()
    seconds: dict[str, float] = {}
    if not reuse:
        made = build.Result()
        build.build_bundle(made)
        build.build_installer(made)
        build.build_onefile(made)
        build.build_reference(made)
        seconds = {k: round(v, 1) for k, v in made.seconds.items()}
    bundle, onefile = dist / "memoryd", dist / f"memoryd-tray-onefile{EXE}"
    bare_dir, bare_file = dist / "reference" / "bare-tray", dist / "reference" / f"bare-tray-onefile{EXE}"
    for path in (bundle, onefile, bare_dir, bare_file):
        if not path.exists():
            raise SystemExit(f"{path} is missing: run python packaging/build.py --onefile --reference")
    defaults = default_bare(build, dist / "reference-default")
    # the yardsticks must be working programs: each starts its event loop and quits (--smoke)
    offscreen = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    smoke = {
        str(exe.relative_to(dist)): subprocess.run(
            [str(exe), "--smoke"], env=offscreen, capture_output=True, timeout=120, check=False
        ).returncode
        == 0
        for exe in (bare_dir / f"bare-tray{EXE}", bare_file)
    }
    debs = sorted(dist.glob("memoryd_*.deb"))
    sizes = {
        "memoryd_onedir": build.size_of(bundle),
        "memoryd_onefile": build.size_of(onefile),
        "bare_onedir": build.size_of(bare_dir),
        "bare_onefile": build.size_of(bare_file),
        "bare_default_onedir": defaults["onedir"]["bytes"],
        "bare_default_onefile": defaults["onefile"]["bytes"],
    }
    # the largest entries of _internal/, as `du -sb _internal/* | sort -h` shows them
    top = sorted(((p.name, build.size_of(p)) for p in (bundle / "_internal").iterdir()), key=lambda x: -x[1])
    result: dict[str, Any] = {
        "benchmark": "package",
        "machine": c.machine(),
        "pyinstaller": __import__("PyInstaller").__version__,
        "sizes": sizes,
        "ratios": {
            "onedir_same_options": round(sizes["memoryd_onedir"] / sizes["bare_onedir"], 3),
            "onefile_same_options": round(sizes["memoryd_onefile"] / sizes["bare_onefile"], 3),
            "onedir_vs_default_bare": round(sizes["memoryd_onedir"] / sizes["bare_default_onedir"], 3),
            "onefile_vs_default_bare": round(sizes["memoryd_onefile"] / sizes["bare_default_onefile"], 3),
        },
        "target_ratio": TARGET_RATIO,
        "bare_smoke_ok": smoke,
        "executables": {n: build.size_of(bundle / f"{n}{EXE}") for n in ("memoryd", "memoryd-tray")},
        "largest_in_internal": top[:12],
        "build_s": {**seconds, "bare_default_onedir": defaults["onedir"]["build_s"]},
        "startup": startup(bundle, onefile, runs),
        "runs": runs,
        "reused_dist": reuse,
    }
    if debs:
        result["deb"] = {"file": debs[-1].name, "bytes": build.size_of(debs[-1])}
        if shutil.which("dpkg-deb"):
            result["installed"] = installed(build, debs[-1])
    result["took_s"] = round(time.perf_counter() - t_start)
    return c.finish(result, args.json, lambda: print_text(result))


def mib(n: int) -> str:
    return f"{n / 2**20:.1f} MiB"


def print_text(r: dict[str, Any]) -> None:
    s, ratio = r["sizes"], r["ratios"]
    for mode in ("onedir", "onefile"):
        ours, bare, default = s[f"memoryd_{mode}"], s[f"bare_{mode}"], s[f"bare_default_{mode}"]
        print(
            f"{mode:8s} memoryd {mib(ours)}; bare tray, same options {mib(bare)} "
            f"(x{ratio[f'{mode}_same_options']}); bare tray, PyInstaller defaults {mib(default)} "
            f"(x{ratio[f'{mode}_vs_default_bare']})"
        )
    if "deb" in r:
        print(f".deb {mib(r['deb']['bytes'])}; installed {mib(r['installed']['bytes'])}")
    for name, figure in r["startup"].items():
        print(f"{name:22s} {figure['median_s']:.3f} s  ({', '.join(f'{x:.2f}' for x in figure['s'])})")
    print("largest in _internal:", ", ".join(f"{n} {mib(b)}" for n, b in r["largest_in_internal"]))


if __name__ == "__main__":
    sys.exit(main())
