"""Shared material for the sensitive-scope tests: records through the real CLI, grants
with the grant PIN (piped, or typed on a real pseudo-terminal), and a byte scan of every
file under MEMORYD_HOME."""

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
PIN = "plum-493817"


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
    *args: str,
    answer: str = "y",
    prompt: bytes = b"PIN",
    env: dict[str, str] | None = None,
    timeout: float = 60,
) -> tuple[int, str, str]:
    """Run the CLI with stdin and stderr on a real pseudo-terminal (stdout piped), as an
    agent can with `script -qec`; type `answer` at each `prompt` the terminal shows (a
    new session: no controlling terminal but this one, so getpass reads it). Returns
    (exit code, stdout, what the terminal saw)."""
    master, slave = os.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "memoryd.cli.main", *args],
        stdin=slave,
        stdout=subprocess.PIPE,
        stderr=slave,
        env={**os.environ, **(env or {})},
        close_fds=True,
        start_new_session=True,
    )
    os.close(slave)
    seen = b""
    answered = 0
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
                if seen.count(prompt) > answered:
                    os.write(master, answer.encode() + b"\n")
                    answered += 1
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


def set_pin(cli, pin: str = PIN) -> None:
    """The person chooses the grant PIN (before any random-key scope exists)."""
    out = cli("grant-pin", "set", stdin=pin + "\n")
    assert out.returncode == 0 and "grant PIN set" in out.stdout, out.stderr


def grant_tty(project: Path, duration: str = "once", *extra: str, env: dict[str, str] | None = None) -> Any:
    """The person at a terminal types the grant PIN."""
    code, out, term = tty_cli("grant", str(project), "--duration", duration, *extra, answer=PIN, env=env)
    assert code == 0, (out, term)
    assert "Grant PIN" in term and "granted" in out and PIN not in term, (out, term)
    return out


def grant_pin(cli, project: Path, duration: str = "once", *extra: str, **kw: Any):
    """The person pipes the grant PIN on stdin."""
    out = cli("grant", str(project), "--duration", duration, *extra, stdin=PIN + "\n", **kw)
    assert out.returncode == 0 and "granted" in out.stdout, out.stderr
    return out


def grant_passphrase(cli, project: Path, duration: str = "once", *extra: str, **kw: Any):
    out = cli("grant", str(project), "--duration", duration, *extra, stdin=PASSPHRASE + "\n", **kw)
    assert out.returncode == 0, out.stderr
    return out


def audit_events(cli, event_type: str) -> list[dict[str, Any]]:
    out = cli("audit", "--event-type", event_type, "--json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)
