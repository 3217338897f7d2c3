"""Asking the tray for a grant (issue 7): when the CLI or the MCP server meets a sensitive
scope without a live grant, and the user's tray app is running, it asks the tray over a
local socket to show a prompt; the tray writes the grant through core and answers, and
the waiting call goes on (or is refused) within the same call.

The socket lives in the data folder's private `run/` directory (0700) when the path is
short enough for AF_UNIX, else in the temp directory under a name derived from the data
folder; the tray listens there with QLocalServer's user-only access. The client refuses a
socket another user owns, and the tray checks the peer's uid, so only the same user talks
to it. One JSON object per line each way.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import sys
import tempfile
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memoryd.paths import Layout

PROTOCOL = 1
MAX_UNIX_PATH = 100  # sun_path holds 108 bytes on Linux, 104 on macOS
CONNECT_SECONDS = 2.0
ANSWER_SECONDS = 300.0  # a person reads the prompt and decides
MAX_LINE = 64 * 1024

Asker = Callable[[dict[str, Any]], dict[str, Any] | None]


def _tag(layout: Layout) -> str:
    return hashlib.sha1(str(layout.home.resolve()).encode("utf-8")).hexdigest()[:12]


def address(layout: Layout) -> str:
    """Where the tray listens: a socket path (POSIX) or a pipe name (Windows)."""
    if sys.platform == "win32":
        return f"memoryd-{_tag(layout)}"
    preferred = layout.home / "run" / "tray.sock"
    if len(str(preferred)) <= MAX_UNIX_PATH:
        return str(preferred)
    folder = Path(tempfile.gettempdir()) / f"memoryd-{os.getuid()}"
    return str(folder / f"{_tag(layout)}.sock")


def prepare(layout: Layout) -> str:
    """The address, with its private folder made (for the tray before it listens)."""
    where = address(layout)
    if sys.platform != "win32":
        folder = Path(where).parent
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(folder, 0o700)
        if folder.stat().st_uid != os.getuid():
            raise PermissionError(f"{folder} belongs to another user")
    return where


def _connect(where: str, timeout: float) -> Any:
    if sys.platform == "win32":
        return open(rf"\\.\pipe\{where}", "r+b", buffering=0)
    st = os.stat(where)  # FileNotFoundError: no tray
    if st.st_uid != os.getuid():
        raise PermissionError(f"{where} belongs to another user: not asking it")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(where)
    except OSError:
        sock.close()
        raise
    return sock


def ask(
    layout: Layout, request: dict[str, Any], *, answer_seconds: float = ANSWER_SECONDS
) -> dict[str, Any] | None:
    """Send one request and wait for the tray's answer; None when no tray is listening
    (or it went away), so the caller falls back to its usual error."""
    where = address(layout)
    try:
        conn = _connect(where, CONNECT_SECONDS)
    except (OSError, PermissionError):
        return None
    payload = (json.dumps({"v": PROTOCOL, **request}) + "\n").encode("utf-8")
    try:
        if isinstance(conn, socket.socket):
            conn.settimeout(answer_seconds)
            conn.sendall(payload)
            data = b""
            while b"\n" not in data and len(data) < MAX_LINE:
                chunk = conn.recv(4096)
                if not chunk:
                    break
                data += chunk
        else:  # a Windows pipe: blocking file reads
            conn.write(payload)
            data = conn.readline(MAX_LINE)
    except OSError:
        return None
    finally:
        conn.close()
    try:
        answer = json.loads(data.split(b"\n", 1)[0] or b"null")
    except ValueError:
        return None
    return answer if isinstance(answer, dict) else None


current: Asker | None = None  # how this process asks (the gate reads it); None: it cannot
agent_hint: str | None = None  # the MCP client's name, set per tool call


def install(layout: Layout, actor: str, agent: str | None = None) -> None:
    """Let the gate ask the tray on this process's behalf (the CLI, the MCP server),
    naming who asks: the actor, and the agent when one is known (MEMORYD_AGENT)."""
    global current
    who = agent or os.environ.get("MEMORYD_AGENT") or None

    def _ask(request: dict[str, Any]) -> dict[str, Any] | None:
        agent = who or agent_hint
        return ask(layout, {**request, "actor": actor, "agent": agent, "pid": os.getpid()})

    current = _ask


def uninstall() -> None:
    global current
    current = None


MAX_SAID = 60  # characters of a caller's own words (agent, what) shown in the prompt
_HASH = re.compile(r"[0-9a-f]{12}")


def said(value: object) -> str | None:
    """A caller's self-description made safe to show: one line, no control or bidi
    characters (which could make the prompt read as something else), short."""
    if not isinstance(value, str):
        return None
    text = "".join(c if unicodedata.category(c)[0] != "C" else " " for c in value)
    text = " ".join(text.split())[:MAX_SAID]
    return text or None


def parse_request(line: bytes) -> dict[str, Any]:
    """The tray's side: one request line checked; ValueError names what is wrong. Only
    the scope's hash is taken as given (core looks up its folder and key source); the
    caller's words are cleaned, and anything else it sent is dropped."""
    if len(line) > MAX_LINE:
        raise ValueError("request too long")
    try:
        data = json.loads(line.decode("utf-8"))
    except (ValueError, RecursionError, UnicodeDecodeError):
        raise ValueError("request is not JSON") from None
    if (
        not isinstance(data, dict)
        or data.get("v") != PROTOCOL
        or data.get("op") not in ("grant", "pin", "show", "llm")
    ):
        raise ValueError("not a memoryd grant request")
    if data["op"] == "show":  # a second `memoryd-tray` launch: show the running one's window
        return {"v": PROTOCOL, "op": "show"}
    actor = data.get("actor") if data.get("actor") in ("cli", "mcp", "tray", "hook") else "cli"
    if data["op"] == "pin":  # `memoryd grant-pin set` while random-key scopes have none: the person confirms
        return {
            "v": PROTOCOL,
            "op": "pin",
            "actor": actor,
            "agent": said(data.get("agent")),
            "what": said(data.get("what")),
        }
    scope_hash = data.get("scope_hash")
    if not isinstance(scope_hash, str) or not _HASH.fullmatch(scope_hash):
        raise ValueError("request has no scope hash")
    return {
        "v": PROTOCOL,
        "op": data["op"],  # "grant", or "llm": `memoryd allow-llm` (the person confirms)
        "scope_hash": scope_hash,
        "actor": actor,
        "agent": said(data.get("agent")),
        "what": said(data.get("what")),
    }


def show_line() -> bytes:
    """What a second tray launch sends the running one."""
    return (json.dumps({"v": PROTOCOL, "op": "show"}) + "\n").encode("utf-8")


# Why the tray said no, as a code: each side words it in its own language (the CLI's
# line stays English whatever language the tray speaks). "error" carries detail, if any.
REASONS = {
    "denied": "the user denied access",
    "quit": "the tray app quit",
    "timeout": "no request line in time",
    "too_long": "the request was too long",
    "bad_request": "the request was not understood",
    "busy": "too many grant requests at once",
}


def answer_line(
    granted: bool, *, duration: str | None = None, error: str | None = None, reason: str | None = None
) -> bytes:
    out: dict[str, Any] = {"granted": granted}
    if duration:
        out["duration"] = duration
    if reason:
        out["reason"] = reason
    if error:
        out["error"] = error
    return (json.dumps(out) + "\n").encode("utf-8")


def refusal(answer: dict[str, Any]) -> str:
    """A no from the tray, in the CLI's words: its reason code's, then any detail."""
    code = answer.get("reason")
    worded = REASONS.get(code) if isinstance(code, str) else None
    detail = str(answer.get("error") or "")
    if worded:
        return f"{worded} ({detail})" if detail else worded
    return detail or "the user refused it in the tray"
