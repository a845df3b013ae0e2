"""``openai:`` model specs: one or several OpenAI-compatible endpoints serving one model."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from readout_audit._exceptions import InputError

SERVED_PREFIX = "openai:"


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
    url = text.strip().rstrip("/")
    if not url.startswith(("http://", "https://")) or url[-3:] == "://":
        raise InputError(f"{text!r} is not an http(s) base URL", source=where, field="model")
    return url


def parse_served_spec(spec: str) -> ServedSpec:
    """``openai:<url>[,<url>...]#<model>`` or ``openai:<file of URLs, one per line>#<model>``."""
    body = spec.removeprefix(SERVED_PREFIX)
    where, sep, model = body.rpartition("#")
    if not sep or not where or not model.strip():
        raise InputError(
            f"malformed served model spec {spec!r}; expected openai:<base-url>[,<base-url>...]"
            "#<model-name> or openai:<file of base URLs>#<model-name>",
            field="model",
        )
    if where.startswith(("http://", "https://")):
        urls = tuple(_url(part, "--model") for part in where.split(","))
    else:
        listing = Path(where).expanduser()
        if not listing.is_file():
            raise InputError("no such file of endpoint URLs", source=where, field="model")
        lines = listing.read_text(encoding="utf-8").splitlines()
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
