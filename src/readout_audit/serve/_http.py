"""One POST over one connection, with ``Expect: 100-continue`` marking the moment it is sent.

The request line and headers go first; the body is written only after the server's interim
``100 Continue`` (or after ``CONTINUE_WAIT_S`` of silence, from a server that ignores
``Expect``). A connection that fails before that point cannot have been processed, so the call
was not sent and may be retried; once the body is being written, a lost answer leaves the call's
outcome unknown. The whole exchange, a ``GET`` too, ends by one deadline (the endpoint's
``timeout_s``): a server that drips its answer a byte at a time cannot hold it longer.
"""

from __future__ import annotations

import datetime
import email.utils
import functools
import http.client
import io
import json
import math
import socket
import ssl
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any, Literal, TypeVar
from urllib.parse import urljoin, urlsplit

from readout_audit._exceptions import ModelNotAvailableError
from readout_audit._util import BoundsError, parse_bounded
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
MAX_REDIRECTS = 10
"""Redirects a ``GET`` follows within its origin before giving up."""

Verdict = Literal["completed", "retry", "failed", "impossible", "unknown"]
T = TypeVar("T")


@dataclass(frozen=True)
class Exchange:
    """What one attempt came to."""

    verdict: Verdict
    """completed; retry (definitely not processed, or 429/5xx); failed (other refusals);
    impossible (a whole 2xx JSON answer holding a number out of range); unknown."""
    sent: bool
    """The body was (being) written: the server may have processed the call."""
    error: str | None = None
    body: bytes | None = None
    response: dict[str, Any] | None = None
    retry_after: float | None = None
    """A 429's or 503's ``Retry-After`` in seconds."""
    continued: bool = False
    """The server answered ``100 Continue`` (rather than silence or a final status)."""


class Deadline:
    """The moment a request must be over by: each wait on its socket gets only the time left.

    A per-read timeout alone lets a server that drips its answer hold a request for ever.
    """

    def __init__(self, seconds: float) -> None:
        self.seconds, self._at = seconds, time.monotonic() + seconds

    def _expired(self) -> TimeoutError:
        return TimeoutError(f"no complete answer within the request's {self.seconds:g} s")

    def arm(self, sock: socket.socket, most: float = math.inf) -> None:
        """Bound the socket's next wait by the time left (and ``most``); TimeoutError if none."""
        left = self._at - time.monotonic()
        if left <= 0:
            raise self._expired()
        sock.settimeout(min(left, most))

    def recv(self, sock: socket.socket, read: Callable[[], T]) -> T:
        """``read()`` from ``sock`` within the time left; a timeout names the deadline."""
        self.arm(sock)
        try:
            return read()
        except TimeoutError:
            raise self._expired() from None


class _Reader(io.RawIOBase):
    """The socket as a raw stream that first returns bytes already read off it."""

    def __init__(self, sock: socket.socket, prefix: bytes, deadline: Deadline) -> None:
        self._sock, self._prefix, self._deadline = sock, prefix, deadline

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self._prefix:
            n = min(len(buffer), len(self._prefix))
            buffer[:n], self._prefix = self._prefix[:n], self._prefix[n:]
            return n
        return self._deadline.recv(self._sock, lambda: self._sock.recv_into(buffer))


class _Source:
    """What ``HTTPResponse`` reads from: the socket, after bytes already consumed."""

    def __init__(self, sock: socket.socket, deadline: Deadline, prefix: bytes = b"") -> None:
        self._sock, self._deadline, self._prefix = sock, deadline, prefix

    def makefile(self, mode: str) -> io.BufferedReader:
        return io.BufferedReader(_Reader(self._sock, self._prefix, self._deadline))


def _describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


def _read_line(sock: socket.socket, deadline: Deadline, line: bytes = b"") -> bytes:
    """The rest of a line, a byte at a time, so that nothing after it is consumed."""
    buffer = bytearray(line)
    while not buffer.endswith(b"\n"):
        byte = deadline.recv(sock, lambda: sock.recv(1))
        if not byte:
            raise ConnectionError("the server closed the connection before answering")
        if len(buffer) >= MAX_LINE_BYTES:
            raise http.client.LineTooLong("interim status line or header")
        buffer += byte
    return bytes(buffer)


def _await_continue(sock: socket.socket, deadline: Deadline) -> tuple[str, bytes]:
    """Wait for the interim answer to the headers, consuming exactly that answer.

    ``("continue", b"")`` after a ``100 Continue``, ``("silent", b"")`` when none came in time,
    or ``("final", status_line)`` when the server answered at once (no body is wanted).
    """
    deadline.arm(sock, CONTINUE_WAIT_S)
    try:
        first = sock.recv(1)
    except TimeoutError:
        return "silent", b""
    if not first:
        raise ConnectionError("the server closed the connection before answering")
    status = _read_line(sock, deadline, first)
    parts = status.split(None, 2)
    if len(parts) < 2 or parts[1] != b"100":
        return "final", status
    for _ in range(MAX_INTERIM_HEADERS + 1):  # its headers, up to the blank line
        if _read_line(sock, deadline) in (b"\r\n", b"\n"):
            return "continue", b""
    raise http.client.HTTPException("the interim 100 Continue has too many header lines")


def retry_after_s(value: str | None, now: float | None = None) -> float | None:
    """Seconds a ``Retry-After`` value asks to wait: a number, or an HTTP date (from ``now``).

    None when absent or unreadable (NaN, garbage): the backoff decides. A date past, or a
    negative number, is 0; a huge one (infinity too) stays huge: the retry policy caps it.
    """
    text = (value or "").strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
        if when.tzinfo is None:  # "-0000": UTC, with no zone said
            when = when.replace(tzinfo=datetime.UTC)
        seconds = when.timestamp() - (time.time() if now is None else now)
    return None if math.isnan(seconds) else max(seconds, 0.0)


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
        except BoundsError as error:  # whole and JSON, so answered: its numbers are impossible
            message = f"HTTP {status} with an impossible answer: {error}"
            return Exchange("impossible", sent, message, body=body)
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
        retry_after = retry_after_s(response.getheader("Retry-After"))
        return Exchange("retry", sent, message, retry_after=retry_after)
    if not sent:
        message = f"{message} (answered before the body was sent)"
    return Exchange("failed", sent, message)


def _read_response(
    sock: socket.socket, deadline: Deadline, method: str, prefix: bytes = b""
) -> tuple[http.client.HTTPResponse, bytes]:
    """The final answer and its body (up to one byte past ``MAX_REPLY_BYTES``), by the deadline."""
    source = _Source(sock, deadline, prefix)
    response = http.client.HTTPResponse(source, method=method)  # type: ignore[arg-type]
    try:
        response.begin()
        # a declared length is read whole (a short body raises IncompleteRead); an undeclared
        # one is read up to the bound
        declared = response.length is not None and response.length <= MAX_REPLY_BYTES
        body = response.read() if declared else response.read(MAX_REPLY_BYTES + 1)
    finally:
        response.close()
    return response, body


def _answer(
    sock: socket.socket,
    deadline: Deadline,
    prefix: bytes,
    endpoint: Endpoint,
    sent: bool,
    continued: bool,
) -> Exchange:
    """Read and classify the final answer; a broken one is unknown once the body was sent."""
    try:
        response, body = _read_response(sock, deadline, "POST", prefix)
    except (OSError, http.client.HTTPException) as error:
        if sent:
            return Exchange("unknown", True, f"sent, then the answer was lost: {_describe(error)}")
        return Exchange("retry", False, f"not sent: {_describe(error)}")
    if len(body) > MAX_REPLY_BYTES:
        message = f"an answer of more than {MAX_REPLY_BYTES:,} bytes: not read"
        return Exchange("unknown" if sent else "failed", sent, message, continued=continued)
    verdict = _verdict(response, body, sent, endpoint.headers.values())
    return replace(verdict, continued=continued)


@functools.cache
def _tls(ca_file: str | None) -> ssl.SSLContext:
    """One verifying TLS context per set of trusted authorities (loading them takes a while)."""
    return ssl.create_default_context(cafile=ca_file)


def _connect(
    endpoint: Endpoint, method: str, target: str, headers: dict[str, str], deadline: Deadline
) -> tuple[http.client.HTTPConnection, socket.socket]:
    """A connection to ``endpoint`` with the request head sent; its socket bound by ``deadline``.

    The endpoint's own headers follow ``headers``; the caller closes the connection.
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
        connection.connect()
        sock = connection.sock
        deadline.arm(sock)
        connection.putrequest(method, target, skip_accept_encoding=True)
        for name, value in {**headers, "Connection": "close", **endpoint.headers}.items():
            connection.putheader(name, value)
        connection.endheaders()
    except BaseException:
        connection.close()
        raise
    return connection, sock


def post(
    endpoint: Endpoint, path: str, body: bytes, on_sent: Callable[[], None], root: bool = False
) -> Exchange:
    """POST ``body`` to ``path`` on ``endpoint``; ``on_sent`` runs just before the body is written.

    Headers of the endpoint are sent but never appear in what is returned.
    """
    deadline = Deadline(endpoint.timeout_s)
    head = {"Content-Type": "application/json", "Content-Length": str(len(body))}
    try:
        connection, sock = _connect(
            endpoint,
            "POST",
            endpoint.target(path, root),
            {**head, "Expect": "100-continue"},
            deadline,
        )
    except ssl.SSLCertVerificationError as error:
        return Exchange("failed", False, f"not sent: {_describe(error)}")
    except (OSError, http.client.HTTPException) as error:
        return Exchange("retry", False, f"not sent: {_describe(error)}")
    try:
        try:
            interim, status_line = _await_continue(sock, deadline)
            deadline.arm(sock)  # time is left to write the body
        except (OSError, http.client.HTTPException) as error:
            return Exchange("retry", False, f"not sent: {_describe(error)}")
        if interim == "final":
            return _answer(sock, deadline, status_line, endpoint, sent=False, continued=False)
        on_sent()
        try:
            sock.sendall(body)
        except OSError as error:
            return Exchange("unknown", True, f"sent, then the connection broke: {_describe(error)}")
        continued = interim == "continue"
        return _answer(sock, deadline, b"", endpoint, sent=True, continued=continued)
    finally:
        connection.close()


def _same_origin(one: str, two: str) -> bool:
    """Whether two URLs have one scheme, host and port (written or the scheme's default)."""

    def origin(url: str) -> tuple[str, str | None, int | None]:
        parts = urlsplit(url)
        default = {"http": 80, "https": 443}.get(parts.scheme.lower())
        return parts.scheme.lower(), parts.hostname, parts.port or default

    try:
        return origin(one) == origin(two)
    except ValueError:  # a port that cannot be read: not the origin asked
        return False


def get(endpoint: Endpoint, path: str) -> bytes:
    """The body of a 2xx answer to ``GET`` of ``path`` under the endpoint's base URL.

    Redirects are followed within the endpoint's origin only (the request carries its headers);
    the whole exchange, redirects included, ends by one deadline. Any failure is a
    ``ModelNotAvailableError`` naming the URL, credentials and header values redacted.
    """
    deadline = Deadline(endpoint.timeout_s)
    url = endpoint.base_url.rstrip("/") + path
    secrets = endpoint.headers.values()
    for _ in range(MAX_REDIRECTS + 1):
        parts = urlsplit(url)
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        try:
            connection, sock = _connect(endpoint, "GET", target or "/", {}, deadline)
            try:
                response, body = _read_response(sock, deadline, "GET")
            finally:
                connection.close()
        except (OSError, http.client.HTTPException) as error:
            detail = redact(redact_url(_describe(error)), secrets)
            raise ModelNotAvailableError(f"{redact_url(url)} did not answer: {detail}") from None
        location = response.getheader("Location")
        if 300 <= response.status < 400 and location is not None:
            moved = urljoin(url, location)
            if not _same_origin(moved, url):
                raise ModelNotAvailableError(
                    f"{redact_url(url)} redirected ({response.status}) to "
                    f"{redact(redact_url(moved), secrets)}, another origin: not followed "
                    "(cross-origin redirects are refused, since the request may carry an API key)"
                )
            url = moved
            continue
        if not 200 <= response.status < 300 or len(body) > MAX_REPLY_BYTES:
            quoted = redact(body[:ERROR_BODY_CHARS].decode("utf-8", errors="replace"), secrets)
            problem = (
                f"an answer of more than {MAX_REPLY_BYTES:,} bytes"
                if len(body) > MAX_REPLY_BYTES
                else f"HTTP {response.status} {response.reason}: {quoted}"
            )
            raise ModelNotAvailableError(f"{redact_url(url)} did not answer: {problem}")
        return body
    raise ModelNotAvailableError(
        f"{redact_url(endpoint.base_url)}{path} did not answer: more than {MAX_REDIRECTS} redirects"
    )
