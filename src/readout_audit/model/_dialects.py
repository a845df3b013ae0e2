"""What each OpenAI-compatible server does its own way, one row per server.

The requests to a served model and the reading of its replies ask this table, never a server's
name: a server added here is offered by ``--server`` and detected from ``GET /models``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Annotated, Any, Literal

from readout_audit._util import OneOf


@dataclass(frozen=True)
class Dialect:
    """One server's quirks, as its requests and the reading of its replies need them."""

    owned_by: str | None
    """What its ``GET /models`` answers as each model's ``owned_by`` (None: nothing says)."""
    echoes: bool
    """Its completions echo the prompt with log-probabilities."""
    tokenize: tuple[str, str] | None = None
    """Its tokenize endpoint (relative to the server root) and the text's field; None: none."""
    tokenize_names_model: bool = False
    """A tokenize request names the model."""
    tokenize_plain: Mapping[str, Any] = field(default_factory=dict)
    """The tokenize request's fields that keep special tokens out of the count."""
    token_ids: bool = False
    """It keys the top-k ``token_id:N`` when asked, so no token string is ambiguous."""
    min_tokens: bool = False
    """It takes a minimum of new tokens (``min_tokens``)."""
    warpers: bool = False
    """Its defaults warp sampling (top-k, min-p, a repetition penalty): every warper is sent."""
    no_truncation: int | None = None
    """``top_k`` meaning no truncation (transformers' 0)."""
    penalty: Literal["repeat_penalty", "repetition_penalty"] = "repetition_penalty"
    """The repetition penalty's field."""
    penalises_greedy: bool = False
    """It applies its repetition penalty (1.1 by default) even at temperature 0."""


_VLLM = Dialect(
    "vllm",
    echoes=True,
    tokenize=("/tokenize", "prompt"),
    tokenize_names_model=True,
    tokenize_plain={"add_special_tokens": False},
    token_ids=True,
    min_tokens=True,
    warpers=True,
    no_truncation=-1,
)

DIALECTS: dict[str, Dialect] = {
    "vllm": _VLLM,
    "sglang": replace(_VLLM, owned_by="sglang", token_ids=False),
    "llama.cpp": Dialect(
        "llamacpp",
        echoes=True,
        tokenize=("/tokenize", "content"),
        tokenize_plain={"add_special": False},
        warpers=True,
        no_truncation=0,
        penalty="repeat_penalty",
        penalises_greedy=True,
    ),
    "llama-cpp-python": Dialect(
        "me",
        echoes=True,
        tokenize=("/extras/tokenize", "input"),
        warpers=True,
        no_truncation=0,
        penalty="repeat_penalty",
        penalises_greedy=True,
    ),
    "openai": Dialect(None, echoes=False),
}
"""Each server by the name ``--server`` gives it; ``openai``: any other OpenAI-compatible API."""

Server = Annotated[str, OneOf(lambda: ["auto", *DIALECTS])]
"""The servers a served model may name (auto: detected from ``GET /models``' ``owned_by``)."""


def dialect(server: str) -> Dialect:
    """The quirks of ``server`` (a name of :data:`DIALECTS`; another is a plain OpenAI API)."""
    return DIALECTS.get(server, DIALECTS["openai"])


def server_owning(owners: set[Any]) -> str:
    """The server the ``owned_by`` names of ``GET /models`` identify (none, or two: ``openai``)."""
    found = {name for name, row in DIALECTS.items() if row.owned_by and row.owned_by in owners}
    return found.pop() if len(found) == 1 else "openai"
