"""The stdio transport of `memoryd mcp`: the MCP SDK's, with a reader in front that answers
what the SDK drops.

The SDK's stdio reader parses each line and, when that fails, hands the exception to a
server that only logs it: a line that is not JSON, JSON that is not a request object, or a
request whose `params` is a string gets no reply, and the client waits forever. JSON-RPC
2.0 (section 5.1) wants -32700 Parse error / -32600 Invalid Request (id null when the id
cannot be read) and MCP wants -32602 for a request that does not fit its method's schema.
So this reader reads stdin itself, bounded (`MAX_LINE`), answers such lines through the
SDK's own stdout writer (one writer: no torn frames), and passes the good ones on. stdout
stays the SDK's: it points fd 1 at stderr while serving, so stray output misses the wire;
stdin's fd 0 is pointed at the null device here in the same way, so a child process can
not eat protocol bytes.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import AsyncIterator, Callable
from typing import Any, BinaryIO

import anyio
import anyio.to_thread
from mcp import types
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

log = logging.getLogger(__name__)

MAX_LINE = 16 * 1024 * 1024
"""Bytes in one message. Far above any real request (a memory's body is limited well
below); a longer line is refused without being held in memory."""
_DRAIN = 1024 * 1024


def error(rid: Any, code: int, message: str) -> types.JSONRPCError:
    return types.JSONRPCError(jsonrpc="2.0", id=rid, error=types.ErrorData(code=code, message=message))


def _usable_id(rid: Any) -> bool:
    return isinstance(rid, str) or (isinstance(rid, int) and not isinstance(rid, bool))


def triage(line: bytes) -> tuple[str | None, types.JSONRPCError | None]:
    """One line from the client: (its text to pass on, None), (None, the error to answer),
    or (None, None) for a line to drop unanswered (blank, or a malformed notification or
    response, which JSON-RPC never answers)."""
    if not line.strip():
        return None, None
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        return None, error(None, types.PARSE_ERROR, "Parse error: the message is not valid UTF-8")
    try:
        message = types.jsonrpc_message_adapter.validate_json(text, by_name=False)
    except (ValidationError, ValueError, RecursionError):
        message = None  # exactly what the SDK's reader would drop: find out why, below
    if message is not None and not isinstance(message, types.JSONRPCNotification):
        return text, None
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError):
        return None, error(None, types.PARSE_ERROR, "Parse error: the message is not valid JSON")
    if not isinstance(obj, dict):
        what = "a batch (an array), which MCP does not take" if isinstance(obj, list) else "not an object"
        return None, error(None, types.INVALID_REQUEST, f"Invalid Request: the message is {what}")
    method, rid = obj.get("method"), obj.get("id")
    if "method" not in obj and ("result" in obj or "error" in obj):
        # A response of the client's that does not parse: never answered (an answer to an
        # answer could start a loop between two strict peers).
        log.info("dropped a malformed response")
        return None, None
    if "id" not in obj:
        if message is not None:
            return text, None
        if isinstance(method, str):
            log.info("dropped a malformed notification")
            return None, None
    elif not _usable_id(rid):
        # The SDK would take {"id": true, "method": ...} for a notification: never answered.
        return None, error(None, types.INVALID_REQUEST, "Invalid Request: id must be a string or an integer")
    reply_id = rid if _usable_id(rid) else None
    if obj.get("jsonrpc") != "2.0":
        return None, error(reply_id, types.INVALID_REQUEST, 'Invalid Request: jsonrpc must be "2.0"')
    if not isinstance(method, str):
        return None, error(reply_id, types.INVALID_REQUEST, "Invalid Request: method must be a string")
    if "params" in obj and not isinstance(obj["params"], dict):
        return None, error(reply_id, types.INVALID_PARAMS, "Invalid params: params must be an object")
    return None, error(reply_id, types.INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 request")


def read_line(source: BinaryIO) -> tuple[bytes, bool] | None:
    """The next line and whether it was too long (its bytes then dropped unread), or None
    at the end of input. Holds at most MAX_LINE bytes whatever the client sends."""
    line = source.readline(MAX_LINE + 1)
    if not line:
        return None
    if len(line) <= MAX_LINE or line.endswith(b"\n"):
        return line, False
    while chunk := source.readline(_DRAIN):
        if chunk.endswith(b"\n"):
            break
    return b"", True


class Lines:
    """The good lines of stdin, as the SDK's stdio reader iterates them; the bad ones are
    answered on `replies` (the SDK's write stream, set once the transport is up)."""

    def __init__(self, source: BinaryIO) -> None:
        self.source = source
        self.replies: Any = None
        self.ready = anyio.Event()

    async def __aiter__(self) -> AsyncIterator[str]:
        await self.ready.wait()
        while True:
            got = await anyio.to_thread.run_sync(read_line, self.source, abandon_on_cancel=True)
            if got is None:
                return
            line, too_long = got
            if too_long:
                text = None
                reply: types.JSONRPCError | None = error(
                    None,
                    types.INVALID_REQUEST,
                    f"Invalid Request: a message may be at most {MAX_LINE >> 20} MiB",
                )
            else:
                text, reply = triage(line)
            if reply is not None:
                log.info("answered a malformed line: %s", reply.error.message)
                try:
                    await self.replies.send(SessionMessage(reply))
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    return
            elif text is not None:
                yield text


def _claim_stdin() -> BinaryIO:
    """The protocol's stdin on a private descriptor, fd 0 on the null device (as the SDK
    does for stdout): best effort, else stdin itself."""
    try:
        private = os.dup(0)
    except OSError:
        return sys.stdin.buffer
    if private <= 2:  # a standard descriptor was closed: leave things as they are
        os.close(private)
        return sys.stdin.buffer
    try:
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
    except OSError:
        pass
    return os.fdopen(private, "rb", closefd=False)


async def serve(lowlevel: Any, serving: Callable[[], object] | None = None) -> None:
    """Run the SDK's low-level server over stdio behind the triaging reader; `serving` is
    called once stdin and stdout are the transport's (fd 1 pointed at stderr, fd 0 at the
    null device), before the first message is read."""
    lines = Lines(_claim_stdin())
    async with stdio_server(stdin=lines) as (read_stream, write_stream):  # type: ignore[arg-type]
        lines.replies = write_stream
        lines.ready.set()
        if serving is not None:
            serving()
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())
