"""`memoryd capture`: the agent's hook. Validate, redact, spool, kick the worker, exit.

This path must return in tens of milliseconds (SessionEnd hooks get 1.5 s in all), so it
imports only the standard library and memoryd's stdlib-only modules: no SQLAlchemy, no
pydantic, no LLM SDK, no Qt.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from memoryd import envpaths
from memoryd.capture import spool
from memoryd.clock import now_iso
from memoryd.errors import InvalidPayload
from memoryd.redact import Redactor

SOURCES = ("claude-code", "codex", "openclaw", "manual")
MAX_PAYLOAD = 16 * 1024 * 1024
# Paths and ids stay as sent; every other string is redacted before it touches disk.
_KEEP = frozenset({"session_id", "transcript_path", "cwd", "hook_event_name", "source"})
# What a payload may carry of the session itself (Claude Code's Stop, Codex notify).
_CONTENT = ("last_assistant_message", "input_messages", "prompt")


def parse_payload(raw: bytes, fallback_cwd: str) -> dict[str, Any]:
    if not raw.strip():
        raise InvalidPayload(
            "empty stdin: expected the hook's JSON payload (session_id, transcript_path, cwd)"
        )
    if len(raw) > MAX_PAYLOAD:
        raise InvalidPayload(f"payload is larger than {MAX_PAYLOAD // (1024 * 1024)} MB")
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise InvalidPayload(f"stdin is not JSON ({exc.__class__.__name__}: {str(exc)[:80]})") from None
    except RecursionError:  # [[[[... : the C decoder gives up; a hook never shows a traceback
        raise InvalidPayload("payload JSON is nested too deeply") from None
    if not isinstance(data, dict):
        raise InvalidPayload("payload must be a JSON object")
    # Codex `notify` sends kebab-case keys.
    for kebab, snake in (
        ("thread-id", "session_id"),
        ("last-assistant-message", "last_assistant_message"),
        ("input-messages", "input_messages"),
    ):
        if kebab in data and snake not in data:
            data[snake] = data.pop(kebab)
    sid = data.get("session_id")
    if not isinstance(sid, str) or not sid.strip():
        raise InvalidPayload("payload has no session_id string")
    tp = data.get("transcript_path")
    if tp is not None and not isinstance(tp, str):
        raise InvalidPayload("transcript_path must be a string")
    cwd = data.get("cwd")
    if cwd is not None and not isinstance(cwd, str):
        raise InvalidPayload("cwd must be a string")
    data["cwd"] = cwd or fallback_cwd
    return data


def _marked(home: str, cwd: str) -> bool:
    """Sensitive by the project's marker, or by the data dir's own record of the scope
    (which a deleted marker or a linked worktree does not hide). In doubt, sensitive."""
    try:
        return envpaths.marker_above(cwd) is not None or envpaths.sensitive_root(home, cwd) is not None
    except (OSError, ValueError):
        return True


def redact_payload(data: dict[str, Any], redactor: Redactor) -> dict[str, Any]:
    return {k: (v if k in _KEEP else redactor.redact_obj(v)) for k, v in data.items()}


def worker_idle(home: str) -> bool:
    """True when no worker holds the lock. A running worker re-reads the spool after it
    releases the lock, so a payload spooled meanwhile is never stranded."""
    path = envpaths.worker_lock(home)
    if os.name != "posix":
        envpaths.full_site()
        from filelock import FileLock, Timeout

        lock = FileLock(path)
        try:
            lock.acquire(timeout=0)
        except Timeout:
            return False
        lock.release()
        return True
    import fcntl  # the same flock() that filelock's UnixFileLock takes in the worker

    fd = os.open(path, os.O_RDWR | os.O_CREAT, envpaths.FILE_MODE)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    finally:
        os.close(fd)  # closing drops the lock
    return True


def spawn_worker() -> None:
    """Start `python -m memoryd.capture.worker` detached (own session, no terminal)."""
    spawn_detached(["memoryd.capture.worker"])


def spawn_detached(module_args: list[str]) -> None:
    """Start `python -m <module_args>` detached (own session, no terminal, no output)."""
    # -P: the hook runs in the agent's working directory, and `-m` would otherwise put it
    # first on sys.path, so a project's own `memoryd/` or `json.py` would run as the worker.
    argv = [sys.executable, "-P", "-m", *module_args]
    if os.name == "posix":
        null = os.devnull
        actions = [(os.POSIX_SPAWN_OPEN, fd, null, os.O_RDWR, 0) for fd in (0, 1, 2)]
        os.posix_spawn(sys.executable, argv, os.environ, file_actions=actions, setsid=True)
        return
    import subprocess

    flags = 0x00000008 | 0x00000200  # DETACHED_PROCESS | CREATE_NEW_PROCESS_GROUP
    subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        close_fds=True,
        creationflags=flags,
    )


def capture(source: str, raw: bytes, *, spawn: bool = True) -> tuple[str, list[str]]:
    """Spool one payload; returns (spool file name, warnings for stderr)."""
    if source not in SOURCES:
        raise InvalidPayload(f"unknown --source {source!r}; expected one of {', '.join(SOURCES)}")
    data = parse_payload(raw, os.getcwd())
    home = envpaths.data_home()
    if os.path.exists(envpaths.paused_flag(home)):
        return "", [
            "capture is paused (resume from the tray or with `memoryd resume-capture`): nothing was kept"
        ]
    warnings = []
    problem = transcript_problem(data.get("transcript_path"))
    if problem:
        warnings.append(f"{problem}; capturing what the payload carries")
    if _marked(home, data["cwd"]):
        # A sensitive scope: the spool holds plaintext until the worker runs, so only
        # ids and paths go there; the worker reads the transcript and writes encrypted.
        withheld = any(data.get(k) for k in _CONTENT)
        data = {k: v for k, v in data.items() if k in _KEEP}
        data["_sensitive"] = True
        if withheld:  # the payload had words of its own: the worker keeps the session
            data["_content_withheld"] = True
    try:
        redactor = Redactor()  # the user's own secret shapes too (config.toml)
    except Exception as exc:  # a broken config.toml: spool what the built-in rules leave
        warnings.append(f"config.toml's own secret patterns were not applied here: {exc}")
        redactor = Redactor(())
    data = redact_payload(data, redactor)
    if redactor.total:
        data["_redacted_in_hook"] = dict(redactor.counts)
    name = spool.put(envpaths.spool_dir(home), source, data, now_iso())
    if spawn and os.environ.get("MEMORYD_NO_WORKER") != "1":
        try:
            if worker_idle(home):
                spawn_worker()
        except OSError as exc:  # the payload is safe in the spool; the next hook or `worker` drains it
            warnings.append(
                f"spooled, but the worker did not start ({exc.strerror or exc}); `memoryd worker` runs it"
            )
    return name, warnings


def transcript_problem(path: str | None) -> str | None:
    """Why the payload's transcript will not be read, or None. Only a regular file is read
    (the worker skips a FIFO, a device or a directory): an existing FIFO is not "not
    found"."""
    if not path:
        return None
    import stat

    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return f"transcript not found: {path}"
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the path
        return f"transcript cannot be read: {path}: {getattr(exc, 'strerror', None) or exc}"
    if not stat.S_ISREG(mode):
        return f"transcript is not a regular file and will be skipped: {path}"
    return None
