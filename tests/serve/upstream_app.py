"""A real HTTP/1.1 JSON server on 127.0.0.1 for the request runner's tests.

It answers every POST with ``{"echo": body, "usage": usage}`` (or, given another ``status``,
a refusal whose message quotes the ``Authorization`` header) and records what it processed:
how often each body (by SHA-256), when each processing began, the most requests it processed
at once, and the headers it was sent. ``expect`` sets its answer to ``Expect: 100-continue``:
``"continue"`` (as uvicorn and llama.cpp's server do), ``"ignore"`` (no interim answer: the
client sends the body after its wait), or a status code answered instead of ``100 Continue``.
A GET answers a ``/models`` listing owned by ``vllm``; ``redirects`` maps a path to the
``(status, Location)`` answered there instead, to a GET or a POST.
"""

from __future__ import annotations

import hashlib
import json
import ssl
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

USAGE = {"prompt_tokens": 3, "completion_tokens": 2}
TLS = Path(__file__).parent / "tls"
CERTIFICATE = TLS / "localhost.pem"
"""A self-signed certificate for 127.0.0.1 (test only; its key is beside it)."""


def sha(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _reply(self, status: int, payload: bytes, location: str | None = None) -> None:
        self.send_response(status)
        if location is not None:
            self.send_header("Location", location)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(payload)
        self.close_connection = True

    def handle_expect_100(self) -> bool:
        expect = self.server.app.expect
        if expect == "continue":
            return super().handle_expect_100()
        if expect == "ignore":
            return True
        self._reply(int(expect), json.dumps({"error": f"refused with {expect}"}).encode())
        return False

    def _redirected(self) -> bool:
        """Answer a redirect when the path has one."""
        if self.path not in self.server.app.redirects:
            return False
        status, location = self.server.app.redirects[self.path]
        self._reply(status, json.dumps({"moved": location}).encode(), location)
        return True

    def do_GET(self) -> None:
        self.server.app.processed(b"", dict(self.headers))
        if not self._redirected():
            listing = {"data": [{"id": "m", "owned_by": "vllm"}], "path": self.path}
            self._reply(200, json.dumps(listing).encode())

    def do_POST(self) -> None:
        app = self.server.app
        body = self.rfile.read(int(self.headers["Content-Length"]))
        app.processed(body, dict(self.headers))
        if self._redirected():
            return
        if app.status != 200:  # a refusal that quotes the caller's key, as some servers do
            message = f"invalid request for key {self.headers.get('Authorization')}; " + "x" * 400
            self._reply(app.status, json.dumps({"error": {"message": message}}).encode())
            return
        answer = {"echo": json.loads(body), "path": self.path}
        if app.usage is not None:
            answer["usage"] = app.usage
        self._reply(200, json.dumps(answer).encode())


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    app: Upstream


class Upstream:
    """The server; ``start()`` it (or use it as a context manager) and ``stop()`` it."""

    def __init__(
        self,
        *,
        delay_s: float = 0.0,
        usage: dict[str, int] | None = USAGE,
        expect: str = "continue",
        status: int = 200,
        tls: bool = False,
        redirects: dict[str, tuple[int, str]] | None = None,
    ) -> None:
        self.delay_s, self.usage, self.expect, self.status = delay_s, usage, expect, status
        self.tls, self.redirects = tls, redirects or {}
        self.counts: Counter[str] = Counter()
        self.starts: list[float] = []
        self.headers: list[dict[str, str]] = []
        self.active = self.max_active = 0
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.app = self
        if tls:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(CERTIFICATE, TLS / "localhost.key")
            self._server.socket = context.wrap_socket(self._server.socket, server_side=True)
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), daemon=True
        )

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}/v1"

    def processed(self, body: bytes, headers: dict[str, str]) -> None:
        """Count a body whose processing begins, hold it ``delay_s``, track concurrency."""
        with self._lock:
            self.counts[sha(body)] += 1
            self.starts.append(time.time())
            self.headers.append(headers)
            self.active += 1
            self.max_active = max(self.max_active, self.active)
        time.sleep(self.delay_s)
        with self._lock:
            self.active -= 1

    def start(self) -> Upstream:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def __enter__(self) -> Upstream:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
