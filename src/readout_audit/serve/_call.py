"""What is sent where: endpoints, calls, the cost cap, the retry policy and each call's result."""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar, Literal
from urllib.parse import urlsplit

from pydantic import Field

from readout_audit._exceptions import InputError
from readout_audit._util import INT_MAX, CheckedSettings, option_hint

Outcome = Literal["completed", "failed", "unknown", "capped"]
"""How a call ended for the caller: answered, refused, sent with no known answer, not sent (cap)."""

RESERVED_HEADERS = frozenset(
    {"host", "content-type", "content-length", "expect", "connection", "transfer-encoding"}
)
"""Headers the client sets itself; an endpoint may not override them."""
REDACTED = "[redacted]"
"""What a secret (a header value, a URL's credentials or query value) becomes when shown."""
_USERINFO = re.compile(
    r"(?<=//)\S*@|(?<!\S)(?P<prefix>[\w.-]*=[A-Z][A-Z0-9_]*@)?+[^/\s]*@(?![^/\s]*://)"
)
"""A URL's ``user:password@``: after ``//`` up to the last ``@`` (a password may hold ``/``,
``?`` or ``#``), or before the first ``/`` of a URL written without its scheme. A judge
configuration's ``NAME=CONTRACT@`` prefix is kept (it holds no secret), before a URL or not:
a contract is an upper-case name (``FINAL3``), so a token such as ``dG9rZW4=`` is redacted."""
_QUERY = re.compile(r"\?[^#\s]+")


def redact_url(url: str) -> str:
    """``url`` (or a text of URLs, such as a served model spec) fit to be shown.

    Its user and password, and each query value, become ``[redacted]``; the rest still names the
    endpoint.
    """

    def values(query: re.Match[str]) -> str:
        parts = (part.partition("=") for part in query[0][1:].split("&"))
        return "?" + "&".join(f"{name}={REDACTED}" if sep else REDACTED for name, sep, _ in parts)

    def userinfo(found: re.Match[str]) -> str:
        return f"{found['prefix'] or ''}{REDACTED}@"

    return _QUERY.sub(values, _USERINFO.sub(userinfo, url))


def _positive(value: float, field_name: str, source: str) -> None:
    if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
        raise InputError(
            f"must be a positive number, got {value!r}", source=source, field=field_name
        )


MAX_CONCURRENCY = 1024
"""The most requests in flight on one endpoint: each is a thread of this process."""


@dataclass(frozen=True)
class Endpoint:
    """An OpenAI-compatible server (or one replica of it) and how hard to drive it."""

    base_url: str
    """``http://127.0.0.1:8080/v1`` (http or https); each call's path is appended."""
    concurrency: int = 4
    """Requests in flight at once on this endpoint (at most :data:`MAX_CONCURRENCY`)."""
    starts_per_s: float | None = None
    """At most this many request starts per second (a token bucket of one); None: unpaced."""
    timeout_s: float = 120.0
    """Deadline of each request, from its connect to the end of its answer (a ``GET`` too)."""
    headers: Mapping[str, str] = field(default_factory=dict, repr=False, hash=False)
    """Extra request headers (``Authorization``); never written to the ledger, a log or an error."""
    ca_file: str | None = None
    """PEM file of the certificate authorities an https server is checked against (a private
    or self-signed certificate); None: the system's."""

    def __post_init__(self) -> None:
        source = f"endpoint {redact_url(self.base_url)!r}"
        try:
            parts = urlsplit(self.base_url)
            parts.port  # noqa: B018 (raises on a port that is not a number up to 65535)
        except ValueError:  # its message may quote the URL, credentials and all
            raise InputError(
                "is not a valid URL (its address or port cannot be read)",
                source=source,
                field="base_url",
            ) from None
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise InputError("must be an http:// or https:// URL", source=source, field="base_url")
        if parts.username or parts.password or parts.query or parts.fragment:
            raise InputError(
                "must hold no credentials, query or fragment (credentials go in headers)",
                source=source,
                field="base_url",
            )
        if type(self.concurrency) is not int or not 1 <= self.concurrency <= MAX_CONCURRENCY:
            raise InputError(
                f"must be an integer in [1, {MAX_CONCURRENCY}], got {self.concurrency!r}",
                source=source,
                field="concurrency",
            )
        if self.starts_per_s is not None:
            _positive(self.starts_per_s, "starts_per_s", source)
        _positive(self.timeout_s, "timeout_s", source)
        for name, value in self.headers.items():
            if name.lower() in RESERVED_HEADERS:
                raise InputError(
                    "is set by the client itself", source=source, field=f"headers.{name}"
                )
            if not name.isascii() or any(c in name for c in ":\r\n ") or not name:
                raise InputError(
                    "is not a valid header name", source=source, field=f"headers.{name}"
                )
            if not isinstance(value, str) or not value.isascii() or not value.isprintable():
                # The value is a secret: name the header, never show the value.
                raise InputError(
                    "must be printable ASCII (no line breaks)",
                    source=source,
                    field=f"headers.{name}",
                )

    @property
    def host(self) -> str:
        """The host name of ``base_url``."""
        return urlsplit(self.base_url).hostname or ""

    @property
    def port(self) -> int:
        """The port of ``base_url`` (80 or 443 when not written)."""
        parts = urlsplit(self.base_url)
        return parts.port or (443 if parts.scheme == "https" else 80)

    def target(self, path: str, root: bool = False) -> str:
        """A call's request target here: base path + call path, or the path alone at the root."""
        return path if root else urlsplit(self.base_url).path.rstrip("/") + path


@dataclass(frozen=True)
class HttpCall:
    """One POST with a JSON body, and the token bounds its cost reservation is made of."""

    path: str
    """``/completions``, appended to the endpoint's ``base_url``."""
    body: Mapping[str, Any]
    """The JSON body; its key order is kept."""
    prompt_tokens_max: int
    """Upper bound of the prompt tokens the server may count (for the cost cap)."""
    completion_tokens_max: int
    """Upper bound of the generated tokens (``max_tokens``)."""
    root: bool = False
    """The path is at the server's root, beside the base URL's path (``/tokenize``)."""
    tag: str = ""
    """Part of the call's identity (its ledger key), never sent: two calls with one body and
    different tags are two ledger rows, each sent once (a judge tags each with its request id)."""

    def __post_init__(self) -> None:
        source = f"call {self.path!r}"
        if not isinstance(self.path, str) or not self.path.startswith("/"):
            raise InputError("must start with '/'", source=source, field="path")
        if not isinstance(self.tag, str) or not self.tag.isprintable():
            raise InputError("must be printable text (no line breaks)", source=source, field="tag")
        if any(c.isspace() for c in self.path) or not self.path.isascii():
            raise InputError("must be ASCII without spaces", source=source, field="path")
        for name in ("prompt_tokens_max", "completion_tokens_max"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 0:
                raise InputError(
                    f"must be an integer ≥ 0, got {value!r}", source=source, field=name
                )
        try:
            self.body_bytes  # noqa: B018 (computed once here, so a bad body fails at once)
        except (TypeError, ValueError) as error:
            raise InputError(f"is not JSON: {error}", source=source, field="body") from None

    @cached_property
    def body_bytes(self) -> bytes:
        """The body as sent: compact JSON, UTF-8, keys in the order given (NaN refused)."""
        body = json.dumps(self.body, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        return body.encode()

    @cached_property
    def key(self) -> str:
        """SHA-256 of ``POST {path}``, a newline and the body: the call's identity, any endpoint.

        A call at the server's root has ``(root)`` before its path; a tagged call has a newline
        and ``tag {tag}`` after the body (compact JSON holds no raw newline, so no untagged body
        can end that way, and an untagged call's key is what it always was).
        """
        where = (b"(root) " if self.root else b"") + self.path.encode()
        tagged = b"\ntag " + self.tag.encode() if self.tag else b""
        return hashlib.sha256(b"POST " + where + b"\n" + self.body_bytes + tagged).hexdigest()


class CostCap(CheckedSettings):
    """Limits over the whole ledger (every run of it): tokens, dollars, and the prices."""

    what: ClassVar[str | None] = "cost cap"

    max_tokens: int | None = Field(
        default=None,
        ge=1,
        le=INT_MAX,
        strict=True,
        json_schema_extra=option_hint("--max-spend-tokens", dest="max_spend_tokens"),
    )
    """A served model: cap on prompt + completion tokens over the run's ledger, reserved before
    sending."""
    max_usd: float | None = Field(
        default=None,
        gt=0,
        json_schema_extra=option_hint("--max-spend-usd", dest="max_spend_usd"),
    )
    """A served model: cap on money over the run's ledger (prices: --usd-per-mtok-prompt and
    --usd-per-mtok-completion)."""
    usd_per_mtok_prompt: float = Field(default=0.0, ge=0)
    """A served model's price per million prompt tokens."""
    usd_per_mtok_completion: float = Field(default=0.0, ge=0)
    """A served model's price per million completion tokens."""


MAX_DOUBLINGS = 64
"""Doublings of the backoff counted at most (``2.0**n`` overflows past n = 1023)."""


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to wait before trying a call again (429, 5xx, not sent)."""

    max_attempts: int = 5
    backoff_s: float = 0.5
    """Wait before attempt n+1: ``backoff_s * 2**(n-1)``; a 429's or 503's ``Retry-After`` wins
    when larger; never more than ``max_backoff_s``."""
    max_backoff_s: float = 30.0
    """The longest wait, whatever a server's ``Retry-After`` asks (a day, or 1e308 s)."""

    def __post_init__(self) -> None:
        if not isinstance(self.max_attempts, int) or self.max_attempts < 1:
            raise InputError(
                f"must be an integer ≥ 1, got {self.max_attempts!r}",
                source="retry policy",
                field="max_attempts",
            )
        for name in ("backoff_s", "max_backoff_s"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and math.isfinite(value) and value >= 0):
                raise InputError(
                    f"must be a number ≥ 0, got {value!r}", source="retry policy", field=name
                )

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1-based), capped."""
        backoff = self.backoff_s * 2.0 ** min(attempt - 1, MAX_DOUBLINGS)
        asked = retry_after if retry_after is not None and retry_after >= 0 else 0.0
        return float(min(max(backoff, asked), self.max_backoff_s))


@dataclass(frozen=True)
class CallResult:
    """How one call ended, in the order of the calls given to ``RequestRunner.run``."""

    key: str
    state: Outcome
    response: dict[str, Any] | None
    """The parsed JSON answer of a completed call."""
    error: str | None
    """Why it failed, is unknown, or was not sent (cap)."""
    endpoint: str | None
    """The ``base_url`` that answered (or was tried last)."""
    from_ledger: bool
    """True when this run did not send it: it had completed before."""
