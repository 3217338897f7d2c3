"""`memoryd mcp --http HOST:PORT`: the MCP server over Streamable HTTP, for hosts that
prefer a URL to a child process.

The transport is the MCP SDK's own (its Starlette app for Streamable HTTP, with the DNS
rebinding check it turns on for loopback hosts), served by uvicorn, which the SDK depends
on. memoryd adds two walls in front: it binds only a loopback address, and every HTTP
request must carry `Authorization: Bearer <token>`, the token the user made with
`memoryd mcp --new-token` (a 0600 file in the data folder), compared in constant time. A
request without it, or with another, gets 401 before the SDK sees it.
"""

from __future__ import annotations

import hmac
import json
import os
import secrets
import socket
import stat
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memoryd import atomic
from memoryd.errors import UsageError

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

TOKEN_FILE = "mcp-token"
PATH = "/mcp"


def token_path(home: Path) -> Path:
    return home / TOKEN_FILE


def new_token(home: Path) -> str:
    """A fresh token in `home`/mcp-token (0600), replacing any earlier one."""
    token = secrets.token_urlsafe(32)
    path = token_path(home)
    atomic.write_text(path, token + "\n")
    os.chmod(path, 0o600)
    return token


def read_token(home: Path) -> str:
    """The token the server demands; a one-line refusal when there is none or when other
    users could read it."""
    path = token_path(home)
    try:
        info = path.stat()
        token = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        raise UsageError(
            f"no MCP token yet: run `memoryd mcp --new-token` first (it writes {path})"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read the MCP token {path}: {exc}") from None
    if os.name == "posix" and info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise UsageError(
            f"the MCP token {path} is readable by other users: run chmod 600 on it, or make a new one"
        )
    if len(token) < 16:
        raise UsageError(f"the MCP token in {path} is too short: run `memoryd mcp --new-token`")
    return token


def parse_address(text: str) -> tuple[str, int]:
    """HOST:PORT (or [::1]:PORT) on a loopback interface; anything else is refused."""
    host, sep, port_text = text.rpartition(":")
    if not sep or not host:
        raise UsageError(f"--http wants HOST:PORT, e.g. 127.0.0.1:8765, not {text!r}")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    try:
        port = int(port_text)
    except ValueError:
        raise UsageError(f"--http wants HOST:PORT with a port number, not {text!r}") from None
    if not 1 <= port <= 65535:
        raise UsageError(f"--http port must be between 1 and 65535, not {port}")
    if not _loopback(host):
        raise UsageError(
            f"--http binds only a loopback address (127.0.0.1, ::1 or localhost), not {host}: "
            "memoryd's memories must not be reachable from the network"
        )
    return host, port


# Only these: the SDK turns its DNS-rebinding check (Host and Origin must name the server)
# on for exactly these host strings, and 127.0.0.2 and friends would go without it.
LOOPBACK = ("127.0.0.1", "::1", "localhost")


def _loopback(host: str) -> bool:
    return host in LOOPBACK


def _listen(host: str, port: int) -> socket.socket:
    """The listening socket, bound here so a port in use is one line, not a log dump."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        if os.name == "posix":
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.set_inheritable(True)
    return sock


class BearerGate:
    """ASGI middleware: an HTTP request without the right bearer token gets 401."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self._token = token.encode("utf-8")

    def authorized(self, headers: list[tuple[bytes, bytes]]) -> bool:
        values = [v for k, v in headers if k.lower() == b"authorization"]
        if len(values) != 1:
            return False
        scheme, _, given = values[0].strip().partition(b" ")
        # compare_digest on every path, so timing tells nothing about the token
        same = hmac.compare_digest(given.strip(), self._token)
        return same and scheme.lower() == b"bearer"

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket") and not self.authorized(scope.get("headers") or []):
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
                return
            body = json.dumps(
                {
                    "error": "unauthorized",
                    "message": "send Authorization: Bearer <the token from memoryd mcp --new-token>",
                }
            ).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(body)).encode()),
                        (b"www-authenticate", b'Bearer realm="memoryd"'),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)


def serve(server: MCPServer, address: str, home: Path, *, verbose: bool = False) -> int:
    """Serve until interrupted. Refusals (no token, a non-loopback address, a port in
    use) are UsageErrors, raised before anything listens."""
    host, port = parse_address(address)
    if host == "localhost":  # bound and shown as the address it is: a client that tries ::1
        host = "127.0.0.1"  # first for "localhost" would find nothing there
    token = read_token(home)
    sock = _listen(host, port)
    import uvicorn

    app = BearerGate(server.streamable_http_app(streamable_http_path=PATH, host=host), token)
    config = uvicorn.Config(
        app,
        log_level="info" if verbose else "warning",
        access_log=verbose,
        lifespan="on",
    )
    shown = f"[{host}]" if ":" in host else host
    sys.stderr.write(
        f"memoryd mcp: serving Streamable HTTP at http://{shown}:{port}{PATH} "
        f"(bearer token in {token_path(home)})\n"
    )
    sys.stderr.flush()
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()
    return 0
