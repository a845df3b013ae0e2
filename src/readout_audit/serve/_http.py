"""One POST over one connection, with ``Expect: 100-continue`` marking the moment it is sent.

The request line and headers go first; the body is written only after the server's interim
``100 Continue`` (or after ``CONTINUE_WAIT_S`` of silence, from a server that ignores
``Expect``). A connection that fails before that point cannot have been processed, so the call
was not sent and may be retried; once the body is being written, a lost answer leaves the call's
outcome unknown.
"""

from __future__ import annotations

import functools
import http.client
import io
import json
import math
import socket
import ssl
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any, Literal

from readout_audit._util._input import parse_bounded
from readout_audit.serve._call import REDACTED, Endpoint, redact_url

CONTINUE_WAIT_S = 1.0
"""How long to wait for ``100 Continue`` before writing the body anyway."""
ERROR_BODY_CHARS = 300
"""How much of a refusal's body an error message quotes."""
MAX_LINE_BYTES = 8192
"""A line of an interim response longer than this is not HTTP."""
MAX_INTERIM_HEADERS = 100
MAX_REPLY_BYTES = 256 << 20
"""The largest answer read (256 MiB): prompt log-probabilities of long contexts fit many times."""

Verdict = Literal["completed", "retry", "failed", "unknown"]


@dataclass(frozen=True)
class Exchange:
    """What one attempt came to."""

    verdict: Verdict
    """completed; retry (definitely not processed, or 429/5xx); failed (other refusals); unknown."""
    sent: bool
    """The body was (being) written: the server may have processed the call."""
    error: str | None = None
    body: bytes | None = None
    response: dict[str, Any] | None = None
    retry_after: float | None = None
    """A 429's or 503's ``Retry-After`` in seconds."""
    continued: bool = False
    """The server answered ``100 Continue`` (rather than silence or a final status)."""


class _Reader(io.RawIOBase):
    """The socket as a raw stream that first returns bytes already read off it."""

    def __init__(self, sock: socket.socket, prefix: bytes) -> None:
        self._sock, self._prefix = sock, prefix

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self._prefix:
            n = min(len(buffer), len(self._prefix))
            buffer[:n], self._prefix = self._prefix[:n], self._prefix[n:]
            return n
        return self._sock.recv_into(buffer)


class _Source:
    """What ``HTTPResponse`` reads from: the socket, after bytes already consumed."""

    def __init__(self, sock: socket.socket, prefix: bytes = b"") -> None:
        self._sock, self._prefix = sock, prefix

    def makefile(self, mode: str) -> io.BufferedReader:
        return io.BufferedReader(_Reader(self._sock, self._prefix))


def _describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


def _read_line(sock: socket.socket, line: bytes = b"") -> bytes:
    """The rest of a line, a byte at a time, so that nothing after it is consumed."""
    buffer = bytearray(line)
    while not buffer.endswith(b"\n"):
        byte = sock.recv(1)
        if not byte:
            raise ConnectionError("the server closed the connection before answering")
        if len(buffer) >= MAX_LINE_BYTES:
            raise http.client.LineTooLong("interim status line or header")
        buffer += byte
    return bytes(buffer)


def _await_continue(sock: socket.socket, timeout_s: float) -> tuple[str, bytes]:
    """Wait for the interim answer to the headers, consuming exactly that answer.

    ``("continue", b"")`` after a ``100 Continue``, ``("silent", b"")`` when none came in time,
    or ``("final", status_line)`` when the server answered at once (no body is wanted).
    """
    sock.settimeout(min(CONTINUE_WAIT_S, timeout_s))
    try:
        first = sock.recv(1)
    except TimeoutError:
        return "silent", b""
    finally:
        sock.settimeout(timeout_s)
    if not first:
        raise ConnectionError("the server closed the connection before answering")
    status = _read_line(sock, first)
    parts = status.split(None, 2)
    if len(parts) < 2 or parts[1] != b"100":
        return "final", status
    for _ in range(MAX_INTERIM_HEADERS + 1):  # its headers, up to the blank line
        if _read_line(sock) in (b"\r\n", b"\n"):
            return "continue", b""
    raise http.client.HTTPException("the interim 100 Continue has too many header lines")


def _retry_after(response: http.client.HTTPResponse) -> float | None:
    try:
        seconds = float(response.getheader("Retry-After") or "")
    except ValueError:
        return None  # absent, or an HTTP date: the backoff decides
    return seconds if math.isfinite(seconds) and seconds >= 0 else None


MIN_SECRET_CHARS = 8
"""A header value's last word (the key after ``Bearer``) is redacted on its own from this long."""


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every secret (a header value, and the bare key it carries) replaced.

    A server may echo ``Authorization``'s key without its scheme word, so the value's last word
    is a secret too; longest first, so no secret is left half replaced.
    """
    values = [value for value in secrets if value]
    words = [value.split()[-1] for value in values if value.split()]
    keys = {*values, *(word for word in words if len(word) >= MIN_SECRET_CHARS)}
    for secret in sorted(keys, key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    return text


def _verdict(
    response: http.client.HTTPResponse, body: bytes, sent: bool, secrets: Iterable[str]
) -> Exchange:
    """Classify a complete answer (a refusal quotes its body, any echoed header blanked).

    A redirect is never followed (the request carries the endpoint's headers): it fails,
    naming where it pointed, credentials redacted.
    """
    status = response.status
    if 200 <= status < 300 and sent:
        try:
            # a server may write -Infinity for an impossible token; nesting is bounded
            parsed = parse_bounded(lambda: json.loads(body))
        except ValueError as error:
            return Exchange("unknown", sent, f"HTTP {status} with a body that is not JSON: {error}")
        if not isinstance(parsed, dict):
            return Exchange("unknown", sent, f"HTTP {status} with JSON that is not an object")
        return Exchange("completed", sent, body=body, response=parsed)
    location = response.getheader("Location")
    if 300 <= status < 400 and location is not None:
        quoted = (
            f"redirected to {redact(redact_url(location), secrets)}, not followed (redirects "
            "are refused: the request may carry an API key)"
        )
    else:
        quoted = redact(body.decode("utf-8", errors="replace"), secrets)[:ERROR_BODY_CHARS]
    message = f"HTTP {status} {response.reason}: {quoted}"
    if status == 429 or 500 <= status < 600:
        return Exchange("retry", sent, message, retry_after=_retry_after(response))
    if not sent:
        message = f"{message} (answered before the body was sent)"
    return Exchange("failed", sent, message)


def _answer(
    sock: socket.socket, prefix: bytes, endpoint: Endpoint, sent: bool, continued: bool
) -> Exchange:
    """Read and classify the final answer; a broken one is unknown once the body was sent."""
    response = http.client.HTTPResponse(_Source(sock, prefix), method="POST")  # type: ignore[arg-type]
    try:
        response.begin()
        # a declared length is read whole (a short body raises IncompleteRead); an undeclared
        # one is read up to the bound
        declared = response.length is not None and response.length <= MAX_REPLY_BYTES
        body = response.read() if declared else response.read(MAX_REPLY_BYTES + 1)
    except (OSError, http.client.HTTPException) as error:
        if sent:
            return Exchange("unknown", True, f"sent, then the answer was lost: {_describe(error)}")
        return Exchange("retry", False, f"not sent: {_describe(error)}")
    finally:
        response.close()
    if len(body) > MAX_REPLY_BYTES:
        message = f"an answer of more than {MAX_REPLY_BYTES:,} bytes: not read"
        return Exchange("unknown" if sent else "failed", sent, message, continued=continued)
    verdict = _verdict(response, body, sent, endpoint.headers.values())
    return replace(verdict, continued=continued)


@functools.cache
def _tls(ca_file: str | None) -> ssl.SSLContext:
    """One verifying TLS context per set of trusted authorities (loading them takes a while)."""
    return ssl.create_default_context(cafile=ca_file)


def post(
    endpoint: Endpoint, path: str, body: bytes, on_sent: Callable[[], None], root: bool = False
) -> Exchange:
    """POST ``body`` to ``path`` on ``endpoint``; ``on_sent`` runs just before the body is written.

    Headers of the endpoint are sent but never appear in what is returned.
    """
    connection: http.client.HTTPConnection
    if endpoint.base_url.startswith("https:"):
        connection = http.client.HTTPSConnection(
            endpoint.host, endpoint.port, timeout=endpoint.timeout_s, context=_tls(endpoint.ca_file)
        )
    else:
        connection = http.client.HTTPConnection(
            endpoint.host, endpoint.port, timeout=endpoint.timeout_s
        )
    try:
        try:
            connection.putrequest("POST", endpoint.target(path, root), skip_accept_encoding=True)
            connection.putheader("Content-Type", "application/json")
            connection.putheader("Content-Length", str(len(body)))
            connection.putheader("Expect", "100-continue")
            connection.putheader("Connection", "close")
            for name, value in endpoint.headers.items():
                connection.putheader(name, value)
            connection.endheaders()
            sock = connection.sock
            interim, status_line = _await_continue(sock, endpoint.timeout_s)
        except ssl.SSLCertVerificationError as error:
            return Exchange("failed", False, f"not sent: {_describe(error)}")
        except (OSError, http.client.HTTPException) as error:
            return Exchange("retry", False, f"not sent: {_describe(error)}")
        if interim == "final":
            return _answer(sock, status_line, endpoint, sent=False, continued=False)
        on_sent()
        try:
            sock.sendall(body)
        except OSError as error:
            return Exchange("unknown", True, f"sent, then the connection broke: {_describe(error)}")
        return _answer(sock, b"", endpoint, sent=True, continued=interim == "continue")
    finally:
        connection.close()
