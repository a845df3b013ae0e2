"""A real TCP proxy in front of an HTTP/1.1 server that injects one fault per connection.

``FaultProxy(host, port)`` listens on 127.0.0.1 (``.port``); ``schedule([...])`` queues faults,
each consumed by the next connection (``pass`` when none is queued). ``forwarded`` holds the
SHA-256 hex of every request body passed upstream, ``applied`` the fault each connection got.
It understands just enough HTTP for the faults: one request per connection, a head, a body of
``Content-Length`` bytes, ``Expect: 100-continue`` relayed between client and upstream.

Given ``answer`` (method, path, body → a JSON answer's bytes), the proxy answers by itself (its
upstream may be None) and forwards nothing: a fake server whose replies the faults still spoil.

Faults:
    pass        forward both ways
    refuse      reset the connection (RST) after the request head, before any 100 Continue
    hangup      close the connection after the request head, before any 100 Continue
    http500     answer 100 Continue, read the body, answer 500 (upstream never sees it)
    http429     the same with 429 and ``Retry-After: {retry_after}`` (``"1"`` unless set)
    slow        forward, read the answer, then hold it past the client's timeout (``slow_s``)
    drop_after  forward, swallow the answer, close
    truncated   forward, relay the answer's head (full Content-Length) and half its body, close
    bad_json    forward, answer a complete 200 whose body is not JSON
    deep_json   answer a complete 200 whose body is JSON nested 100,000 deep (never forwarded)
    drip        forward, then relay the answer one byte every ``drip_s`` seconds
    above_zero  forward, relay the answer with every log-prob raised by 3 (so above 0)
    echo_late   forward, relay the answer with each echoed log-prob one position late
    not_argmax  forward, relay the answer with its first generated token replaced by the
                top-k's second entry (a greedy token that is not the argmax)

``hold``, a predicate on a request body, keeps every matching request unforwarded and
unanswered until the proxy stops (``holding`` is set once one is held): a request in flight
when its client is killed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import socket
import struct
import threading
from collections import deque
from collections.abc import Callable
from typing import Any

FAULTS = frozenset(
    {
        "pass",
        "refuse",
        "hangup",
        "http500",
        "http429",
        "slow",
        "drop_after",
        "truncated",
        "bad_json",
        "deep_json",
        "drip",
        "above_zero",
        "echo_late",
        "not_argmax",
    }
)
SPOILERS = frozenset({"above_zero", "echo_late", "not_argmax"})
"""Faults that relay a completion answer with impossible log-probabilities."""


class _Stream:
    """A socket read as an HTTP message stream (head up to the blank line, then bytes)."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock, self.buffer = sock, b""

    def head(self) -> bytes:
        while b"\r\n\r\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("closed before the end of the head")
            self.buffer += chunk
        end = self.buffer.index(b"\r\n\r\n") + 4
        head, self.buffer = self.buffer[:end], self.buffer[end:]
        return head

    def exactly(self, n: int) -> bytes:
        while len(self.buffer) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("closed before the end of the body")
            self.buffer += chunk
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data


def _header(head: bytes, name: bytes) -> bytes | None:
    for line in head.split(b"\r\n")[1:]:
        key, _, value = line.partition(b":")
        if key.strip().lower() == name:
            return value.strip()
    return None


def _status(head: bytes) -> int:
    return int(head.split(None, 2)[1])


def _response(status: int, reason: str, body: bytes, extra: str = "") -> bytes:
    head = (
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n{extra}\r\n"
    )
    return head.encode() + body


DEEP = 100_000
"""How deep ``deep_json`` nests its answer."""


def _spoiled(fault: str, body: bytes) -> bytes:
    """A completion answer's log-probs made impossible as ``fault`` says."""
    answer: dict[str, Any] = json.loads(body)
    choice = answer["choices"][0]
    logprobs = choice["logprobs"]
    values, tops = logprobs.get("token_logprobs") or [], logprobs.get("top_logprobs") or []
    if fault == "above_zero":
        logprobs["token_logprobs"] = [v if v is None else v + 3.0 for v in values]
        logprobs["top_logprobs"] = [top and {t: v + 3.0 for t, v in top.items()} for top in tops]
    elif fault == "echo_late":
        logprobs["token_logprobs"] = [None, *values[:-1]]
    else:  # not_argmax: the first token generated is the top-k's runner-up
        runner_up = sorted(tops[0], key=tops[0].get, reverse=True)[1]
        text = choice["text"]
        choice["text"] = runner_up + text[len(logprobs["tokens"][0]) :]
        logprobs["tokens"][0] = runner_up
    return json.dumps(answer).encode()


class FaultProxy:
    """The proxy; ``start()`` it (or use it as a context manager) and ``stop()`` it."""

    def __init__(
        self,
        upstream_host: str | None,
        upstream_port: int | None,
        *,
        slow_s: float = 2.0,
        drip_s: float = 0.05,
        retry_after: str = "1",
        hold: Callable[[bytes], bool] | None = None,
        answer: Callable[[str, str, bytes], bytes] | None = None,
    ) -> None:
        self.upstream = (upstream_host, upstream_port)
        self.slow_s, self.drip_s, self.retry_after = slow_s, drip_s, retry_after
        self.hold, self.answer = hold, answer
        self.holding = threading.Event()
        self.forwarded: list[str] = []
        self.applied: list[str] = []
        self._faults: deque[str] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.05)  # accept() wakes up to notice stop()
        self.port = self._listener.getsockname()[1]
        self._thread = threading.Thread(target=self._accept, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def schedule(self, faults: list[str]) -> None:
        unknown = set(faults) - FAULTS
        if unknown:
            raise ValueError(f"unknown faults {sorted(unknown)}; known: {sorted(FAULTS)}")
        with self._lock:
            self._faults.extend(faults)

    def start(self) -> FaultProxy:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._thread.join()
        self._listener.close()

    def __enter__(self) -> FaultProxy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _accept(self) -> None:
        while not self._stopping.is_set():
            try:
                client, _ = self._listener.accept()
            except TimeoutError:
                continue
            with self._lock:
                fault = self._faults.popleft() if self._faults else "pass"
                self.applied.append(fault)
            threading.Thread(target=self._serve, args=(client, fault), daemon=True).start()

    def _serve(self, client: socket.socket, fault: str) -> None:
        with contextlib.suppress(OSError), client:
            self._handle(client, fault)

    def _handle(self, client: socket.socket, fault: str) -> None:
        incoming = _Stream(client)
        head = incoming.head()
        if fault == "refuse":  # SO_LINGER 0: close sends RST, not FIN
            client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            return
        if fault == "hangup":
            return
        length = int(_header(head, b"content-length") or b"0")
        expect = (_header(head, b"expect") or b"").lower() == b"100-continue"
        if fault == "deep_json":
            if expect:
                client.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
            incoming.exactly(length)
            client.sendall(_response(200, "OK", b'{"data": ' + b"[" * DEEP + b"]" * DEEP + b"}"))
            return
        if fault in ("http500", "http429"):
            if expect:
                client.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
            incoming.exactly(length)
            if fault == "http500":
                client.sendall(_response(500, "Internal Server Error", b'{"error":"injected"}'))
            else:
                wait = f"Retry-After: {self.retry_after}\r\n"
                client.sendall(_response(429, "Too Many Requests", b'{"error":"slow down"}', wait))
            return
        if self.answer is not None:
            if expect:
                client.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
            body = incoming.exactly(length)
            method, path = head.split(None, 2)[:2]
            answer = self.answer(method.decode(), path.decode(), body)
            self._relay(client, fault, _response(200, "OK", answer))
            return
        continued = False  # the client got its 100 Continue here: upstream's is not relayed
        if self.hold is not None:
            if expect:
                client.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
                continued = True
            body = incoming.exactly(length)
            if self.hold(body):
                self.holding.set()
                self._stopping.wait()
                return
            incoming.buffer = body + incoming.buffer  # forwarded below as if unread
        with socket.create_connection(self.upstream) as upstream_sock:
            upstream = _Stream(upstream_sock)
            upstream_sock.sendall(head)
            if expect:
                interim = upstream.head()
                if not continued or _status(interim) != 100:
                    client.sendall(interim)
                if _status(interim) != 100:  # a final answer instead: relay it, no body wanted
                    client.sendall(upstream.exactly(int(_header(interim, b"content-length") or 0)))
                    return
            body = incoming.exactly(length)
            upstream_sock.sendall(body)
            with self._lock:
                self.forwarded.append(hashlib.sha256(body).hexdigest())
            answer_head = upstream.head()
            answer = upstream.exactly(int(_header(answer_head, b"content-length") or 0))
        self._relay(client, fault, answer_head + answer)

    def _relay(self, client: socket.socket, fault: str, reply: bytes) -> None:
        """Give the client a complete answer (head and body) as ``fault`` says."""
        head, _, answer = reply.partition(b"\r\n\r\n")
        if fault == "pass":
            client.sendall(reply)
        elif fault == "slow":
            if not self._stopping.wait(self.slow_s):
                client.sendall(reply)
        elif fault == "truncated":
            client.sendall(head + b"\r\n\r\n" + answer[: len(answer) // 2])
        elif fault == "bad_json":
            client.sendall(_response(200, "OK", b"<html>upstream error page</html>"))
        elif fault == "drip":
            for n in range(len(reply)):
                if self._stopping.wait(self.drip_s):
                    return
                client.sendall(reply[n : n + 1])
        elif fault in SPOILERS:
            status = int(head.split(None, 2)[1])
            client.sendall(_response(status, "OK", _spoiled(fault, answer)))
        # drop_after: the answer is swallowed and the connection closed
