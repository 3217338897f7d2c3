"""Recorded API responses served to the real clients: in-process through httpx.MockTransport,
or over a real loopback socket, recording every request so tests can check what was sent."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

RECORDED = Path(__file__).parent / "recorded"


@dataclass(frozen=True)
class Recorded:
    status: int
    headers: dict[str, str]
    content: bytes


def recorded(api: str, name: str) -> Recorded:
    """recorded/<api>/<name>.json: {"status", "headers", "body"} with the body as sent on the wire."""
    data = json.loads((RECORDED / api / f"{name}.json").read_text(encoding="utf-8"))
    body = data["body"]
    content = body.encode() if isinstance(body, str) else json.dumps(body, ensure_ascii=False).encode()
    return Recorded(data["status"], data["headers"], content)


Served = Recorded | Exception


class Replay:
    """Serves `items` in order, the last one repeated; an exception item is raised by the
    transport instead, as a network failure would be."""

    def __init__(self, *items: Served) -> None:
        assert items
        self.items = list(items)
        self.requests: list[httpx.Request] = []

    @property
    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self._handle)

    def bodies(self) -> list[dict[str, Any]]:
        return [json.loads(r.content) for r in self.requests]

    def _handle(self, request: httpx.Request) -> httpx.Response:
        request.read()
        self.requests.append(request)
        item = self.items[min(len(self.requests), len(self.items)) - 1]
        if isinstance(item, Exception):
            raise type(item)(str(item), request=request) if isinstance(item, httpx.RequestError) else item
        return httpx.Response(item.status, headers=item.headers, content=item.content)


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


class Loopback:
    """A real HTTP server on 127.0.0.1 serving `items` in order (the last one repeated)."""

    def __init__(self, *items: Recorded) -> None:
        self.items = list(items)
        self.seen: list[Seen] = []
        self.url = ""

    @contextmanager
    def running(self) -> Iterator[Loopback]:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                headers = {k.lower(): v for k, v in self.headers.items()}
                outer.seen.append(Seen(self.path, headers, body))
                item = outer.items[min(len(outer.seen), len(outer.items)) - 1]
                self.send_response(item.status)
                for key, value in item.headers.items():
                    self.send_header(key, value)
                self.send_header("content-length", str(len(item.content)))
                self.end_headers()
                self.wfile.write(item.content)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        thread.start()
        self.url = f"http://127.0.0.1:{server.server_address[1]}"
        try:
            yield self
        finally:
            server.shutdown()
            server.server_close()
            thread.join(timeout=5)
