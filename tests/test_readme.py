"""The README tells the truth about testing: its apt-get line names exactly the packages of
.ci/apt-packages.txt (which .ci/run installs), .ci/run ends with the README's test command,
and the `slow` marker covers the folders the README says it does."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _code_lines(markdown: str) -> list[str]:
    """The lines of the README's shell code blocks, backslash continuations joined."""
    out: list[str] = []
    shell, inside = False, False
    for line in markdown.splitlines():
        if line.startswith("```"):
            shell, inside = (not inside and line[3:].strip() in ("", "sh", "bash", "console")), not inside
        elif inside and shell:
            if out and out[-1].endswith("\\"):
                out[-1] = out[-1][:-1] + " " + line
            else:
                out.append(line)
    return out


def _command(line: str) -> str:
    """A line as a command: its comment dropped, its spaces normalised."""
    return " ".join(shlex.split(line, comments=True))


def _packages_file() -> list[str]:
    text = (ROOT / ".ci" / "apt-packages.txt").read_text(encoding="utf-8")
    return [w for line in text.splitlines() for w in line.split("#", 1)[0].split()]


def test_readme_apt_line_names_exactly_the_packages_ci_installs():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    apt = [line for line in _code_lines(readme) if "apt-get install" in line]
    assert len(apt) == 1, apt
    words = shlex.split(apt[0], comments=True)
    packages = [w for w in words[words.index("install") + 1 :] if not w.startswith("-")]
    listed = _packages_file()
    assert len(listed) == len(set(listed)), "a package is listed twice"
    assert packages == listed


def test_ci_reads_the_package_file_and_ends_with_the_readme_test_command():
    run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert ".ci/apt-packages.txt" in run and "apt-get install" in run
    commands = [line for line in run.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    tests = [_command(line) for line in _code_lines(readme) if line.startswith("python3 -m pytest")]
    assert tests, "the README shows no test command"
    assert _command(commands[-1]) == tests[0] == "python3 -m pytest"


def test_slow_marks_the_folders_the_readme_names():
    folders = ["tests/desktop", "tests/e2e", "tests/bench", "tests/packaging", "tests/install"]
    modules = ["tests/core/test_consolidate.py", "tests/core/sensitive/test_interrupted_mark.py"]
    quick = "tests/core/test_slugs.py"
    collect = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0", "-p", "no:cacheprovider"]
    out = subprocess.run(
        [*collect, "-m", "not slow", *folders, *modules, quick],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    kept = {line.split("::", 1)[0] for line in out.stdout.splitlines() if "::" in line}
    assert kept == {quick}, kept
