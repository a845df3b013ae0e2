"""What a test may assume of the llama.cpp server's numbers: they depend on the request before."""

from __future__ import annotations

import json
import urllib.request

SERVER_ROUNDING = 0.1
"""The same numbers from one server by two routes (echo or top-k, another request order).

llama.cpp keeps the previous request's prefix in its cache and decodes only the rest; a
token decoded alone runs another kernel than inside a batch, so the same prompt's option
log-probabilities moved by up to 0.043 with the request sent before it (measured on this
Q4_1 file on an AMD EPYC CPU). A misread position differs by more than 1."""


def clear_prefix_cache(base_url: str) -> None:
    """Send a one-token request sharing no prefix with any test prompt, so the next request is
    decoded whole: a seeded sample then starts from the same numbers every time."""
    body = {"prompt": "Zebra", "max_tokens": 1, "temperature": 0}
    request = urllib.request.Request(
        f"{base_url}/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=60) as reply:
        reply.read()
