"""``openai:`` model specs: one or several OpenAI-compatible endpoints serving one model."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from readout_audit._exceptions import InputError
from readout_audit._util import read_input_text
from readout_audit.serve import Endpoint, redact_url

SERVED_PREFIX = "openai:"
_LIST = re.compile(r",(?=\s*https?://)")
"""The commas between listed URLs: each before a scheme (a password may hold a comma too)."""

MAX_LISTING_BYTES = 1 << 20
"""The largest file of endpoint URLs read (1 MiB: thousands of URLs)."""


@dataclass(frozen=True)
class ServedSpec:
    """Base URLs (each ending where ``/completions`` is appended) and the served model's name."""

    base_urls: tuple[str, ...]
    model: str

    def __str__(self) -> str:
        return f"{SERVED_PREFIX}{','.join(self.base_urls)}#{self.model}"


def is_served(spec: str) -> bool:
    """Whether a model spec names a served model."""
    return spec.startswith(SERVED_PREFIX)


def _url(text: str, where: str) -> str:
    """A base URL as an endpoint takes it (no credentials: they would be stored with the spec)."""
    url = text.strip().rstrip("/")
    try:
        Endpoint(url)
    except InputError as error:
        raise InputError(
            f"{redact_url(text)!r} {error.message}", source=where, field="model"
        ) from None
    return url


def parse_served_spec(spec: str) -> ServedSpec:
    """``openai:<url>[,<url>...]#<model>`` or ``openai:<file of URLs, one per line>#<model>``."""
    body = spec.removeprefix(SERVED_PREFIX)
    where, sep, model = body.rpartition("#")
    if not sep or not where or not model.strip():
        raise InputError(
            f"malformed served model spec {redact_url(spec)!r}; expected "
            "openai:<base-url>[,<base-url>...]#<model-name> or "
            "openai:<file of base URLs>#<model-name>",
            field="model",
        )
    if where.startswith(("http://", "https://")):
        urls = tuple(_url(part, "--model") for part in _LIST.split(where))
    else:
        listing = Path(where).expanduser()
        if not os.path.lexists(listing):
            raise InputError(
                "no such file of endpoint URLs", source=redact_url(where), field="model"
            )
        lines = read_input_text(listing, limit=MAX_LISTING_BYTES, what="file of URLs").splitlines()
        urls = tuple(
            _url(line, f"{where}:{number}")
            for number, line in enumerate(lines, 1)
            if line.strip() and not line.lstrip().startswith("#")
        )
        if not urls:
            raise InputError("lists no endpoint URL", source=where, field="model")
    if len(set(urls)) != len(urls):
        raise InputError(f"an endpoint is listed twice in {spec!r}", field="model")
    return ServedSpec(urls, model.strip())
