"""Shared material for the sensitive-scope tests: records through the real CLI, grants
through a real pseudo-terminal, and a byte scan of every file under MEMORYD_HOME."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

# One token for FTS5 (unicode61 + porter leaves a word ending in digits alone), mixed case
# so a lowercased slug or an uppercased copy is caught by the case-insensitive scan.
CANARY = "ZebuQuokka4417"
PASSPHRASE = "correct horse battery staple"


def record(cli, project: Path, title: str, body: str, *triggers: str) -> str:
    args = ["record", "--type", "fact", "--title", title, "--scope", str(project), "--json"]
    for t in triggers:
        args += ["--trigger", t]
    out = cli(*args, stdin=body)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)["slug"]


def one_line_error(out, code: int, *words: str) -> None:
    assert out.returncode == code, (out.returncode, out.stdout, out.stderr)
    assert out.stdout == "", out.stdout
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr
    for w in words:
        assert w in out.stderr, (w, out.stderr)


def leaks(home: Path, secret: str = CANARY) -> list[str]:
    """Every file under `home` holding `secret` (or its tail, which survives FTS5's prefix
    compression of terms) in any letter case."""
    needles = {secret.lower().encode(), secret[-10:].lower().encode()}
    out = []
    for path in sorted(p for p in home.rglob("*") if p.is_file()):
        data = path.read_bytes().lower()
        if any(n in data for n in needles):
            out.append(str(path.relative_to(home)))
    return out


def enc_files(home: Path) -> list[Path]:
    return sorted(home.glob("scopes/*/*/*.md.enc"))


def plain_files(home: Path) -> list[Path]:
    return sorted(p for p in home.glob("scopes/*/*/*.md"))


def tty_cli(
    *args: str, answer: str = "y", env: dict[str, str] | None = None, timeout: float = 60
) -> tuple[int, str, str]:
    """Run the CLI with stdin and stderr on a real pseudo-terminal (stdout piped); wait for
    the `[y/N]` question, type `answer`. Returns (exit code, stdout, what the terminal saw)."""
    master, slave = os.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "memoryd.cli.main", *args],
        stdin=slave,
        stdout=subprocess.PIPE,
        stderr=slave,
        env={**os.environ, **(env or {})},
        close_fds=True,
    )
    os.close(slave)
    seen = b""
    answered = False
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(master, 4096)
                except OSError:  # EIO: the child closed its side of the terminal
                    chunk = b""
                if not chunk and proc.poll() is not None:
                    break
                seen += chunk
                if not answered and b"[y/N]" in seen:
                    os.write(master, answer.encode() + b"\n")
                    answered = True
            elif proc.poll() is not None:
                break
        else:
            proc.kill()
            raise AssertionError(f"tty_cli timed out; terminal saw {seen!r}")
        out = proc.stdout.read().decode() if proc.stdout else ""
        return proc.wait(), out, seen.decode("utf-8", "replace")
    finally:
        os.close(master)
        if proc.stdout:
            proc.stdout.close()


def grant_tty(project: Path, duration: str = "once", *extra: str, env: dict[str, str] | None = None) -> Any:
    code, out, term = tty_cli("grant", str(project), "--duration", duration, *extra, env=env)
    assert code == 0, (out, term)
    assert "[y/N]" in term and "granted" in out, (out, term)
    return out


def grant_passphrase(cli, project: Path, duration: str = "once", *extra: str, **kw: Any):
    out = cli("grant", str(project), "--duration", duration, *extra, stdin=PASSPHRASE + "\n", **kw)
    assert out.returncode == 0, out.stderr
    return out


def audit_events(cli, event_type: str) -> list[dict[str, Any]]:
    out = cli("audit", "--event-type", event_type, "--json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)
