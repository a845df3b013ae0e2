"""The HTTP calls that answer one scored position on a served model, and how their replies are read.

A position costs one greedy completion at temperature 0 (its first step's top-k is the
distribution's known part) and one echo completion per continuation: the prompt is the context
followed by the continuation, and the server returns the log-probability of every prompt token.
The continuation's tokens are found by the server's own tokenisation (``/tokenize`` where the
server has one), and their text is checked against the continuation's text, so a log-probability
reported at the wrong position is refused rather than read.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from readout_audit.model._dialects import dialect
from readout_audit.serve import HttpCall


class ReplyError(ValueError):
    """A reply that cannot be read as the readout needs (the reason is recorded, never a 0)."""


def byte_bound(text: str) -> int:
    """An upper bound of the tokens a server may count for ``text``: one per UTF-8 byte, plus two.

    Byte-level and byte-fallback tokenizers never make more tokens than bytes; the two cover
    a beginning- and end-of-sequence token the server may add.
    """
    return len(text.encode("utf-8")) + 2


def unpenalised(server: str) -> dict[str, Any]:
    """Fields that keep a server's temperature-0 answer its argmax.

    llama.cpp servers apply a repeat penalty (1.1 by default) even at temperature 0, so the
    greedy token could differ from the top-k's first entry; other servers default to none.
    """
    row = dialect(server)
    return {row.penalty: 1.0} if row.penalises_greedy else {}


def greedy_call(
    model: str,
    prompt: str,
    max_tokens: int,
    top_logprobs: int,
    *,
    token_ids: bool = False,
    extra: Mapping[str, Any] | None = None,
) -> HttpCall:
    """Greedy completion of ``prompt``; its first step carries the top-k log-probabilities.

    ``token_ids``: ask for the top-k keyed ``token_id:N`` (vLLM), so no string is ambiguous;
    ``extra``: more body fields (:func:`unpenalised`).
    """
    body: dict[str, Any] = {
        "model": model,
        "prompt": prompt,
        "max_tokens": max_tokens,
        "temperature": 0.0,
        "logprobs": top_logprobs,
        "echo": False,
        **(extra or {}),
    }
    if token_ids:
        body["return_tokens_as_token_ids"] = True
    return HttpCall("/completions", body, byte_bound(prompt), max_tokens)


def top_ids(top: Mapping[str, float], surfaces: Mapping[str, int]) -> dict[int, float]:
    """A top-k keyed by token id.

    ``token_id:N`` keys say their id; other strings go through the local vocabulary, and those
    that do not map to exactly one id are dropped.
    """
    ids: dict[int, float] = {}
    for key, value in top.items():
        number = key.removeprefix("token_id:")
        if number != key and number.isdigit():
            ids[int(number)] = value
        elif key in surfaces:
            ids[surfaces[key]] = value
    return ids


def chat_call(
    model: str,
    messages: Sequence[Mapping[str, Any]],
    template_kwargs: Mapping[str, Any],
    max_tokens: int,
    top_logprobs: int,
    extra: Mapping[str, Any] | None = None,
) -> HttpCall:
    """A temperature-0 chat completion: the server renders the turns; top-k at its first step.

    ``extra``: more body fields (:func:`unpenalised`).
    """
    body: dict[str, Any] = {
        "model": model,
        "messages": [dict(m) for m in messages],
        "max_tokens": max_tokens,
        "temperature": 0.0,
        "logprobs": True,
        "top_logprobs": top_logprobs,
        **(extra or {}),
    }
    if template_kwargs:
        body["chat_template_kwargs"] = dict(template_kwargs)  # vLLM and SGLang take these
    bound = byte_bound(json.dumps(body["messages"], ensure_ascii=False))
    return HttpCall("/chat/completions", body, bound, max_tokens)


def read_chat(reply: Mapping[str, Any]) -> GreedyReply:
    """The answer's text and its first token's top-k of a chat completion."""
    try:
        choice = reply["choices"][0]
        text = choice["message"]["content"] or ""
        step = choice["logprobs"]["content"][0]
        first = step["top_logprobs"]
        top = {str(t["token"]): float(t["logprob"]) for t in first if _finite(t["logprob"])}
    except (KeyError, IndexError, TypeError, ValueError):
        raise ReplyError("chat completion reply has no message or no top_logprobs") from None
    token = step.get("token") if isinstance(step, Mapping) else None
    return GreedyReply(str(text), top, token if isinstance(token, str) else None)


def echo_call(model: str, prompt: str) -> HttpCall:
    """The prompt echoed with every token's log-probability (and one generated token)."""
    body = {
        "model": model,
        "prompt": prompt,
        "max_tokens": 1,
        "temperature": 0.0,
        "logprobs": 1,
        "echo": True,
    }
    return HttpCall("/completions", body, byte_bound(prompt), 1)


def tokenize_call(server: str, model: str, text: str) -> HttpCall | None:
    """The server's tokenisation of ``text`` (None where the server has no tokenize endpoint)."""
    row = dialect(server)
    if row.tokenize is None:
        return None
    path, field = row.tokenize
    body: dict[str, Any] = {field: text}
    if row.tokenize_names_model:
        body["model"] = model
    body |= row.tokenize_plain
    return HttpCall(path, body, 0, 0, root=True)


def tokens_of(reply: Mapping[str, Any]) -> list[int]:
    """Token ids of a tokenize reply (``tokens`` in every server that has one)."""
    tokens = reply.get("tokens")
    if not isinstance(tokens, list) or not all(isinstance(t, int) for t in tokens):
        raise ReplyError("tokenize reply has no list of integer 'tokens'")
    return [int(t) for t in tokens]


def _choice_logprobs(reply: Mapping[str, Any]) -> tuple[Mapping[str, Any], Mapping[str, Any]]:
    choices = reply.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
        raise ReplyError("completion reply has no choices")
    logprobs = choices[0].get("logprobs")
    if not isinstance(logprobs, Mapping):
        raise ReplyError("completion reply carries no logprobs (does the server return them?)")
    return choices[0], logprobs


@dataclass(frozen=True)
class GreedyReply:
    """What a greedy completion says about the scored position."""

    text: str
    top: dict[str, float]
    """First step's top log-probabilities by token string, as the server returns them."""
    token: str | None = None
    """The first generated token's string as the server names it (None: not given)."""


def read_greedy(reply: Mapping[str, Any]) -> GreedyReply:
    """The generated text and the first step's top-k of a greedy completion."""
    choice, logprobs = _choice_logprobs(reply)
    text = choice.get("text")
    top = logprobs.get("top_logprobs")
    if text == "" and top == [] and choice.get("finish_reason") == "stop":
        # the model ended its turn at once and the server (llama-cpp-python) dropped the stop
        # token with its log-probs: no text, and the first step's top-k is unknown
        return GreedyReply("", {})
    if not isinstance(text, str) or not isinstance(top, list) or not top:
        raise ReplyError("greedy completion reply has no text or no top_logprobs")
    first = top[0]
    if not isinstance(first, Mapping):
        raise ReplyError("the first generated token has no top_logprobs")
    tokens = logprobs.get("tokens")
    token = tokens[0] if isinstance(tokens, list) and tokens else None
    finite = {str(k): float(v) for k, v in first.items() if _finite(v)}
    return GreedyReply(text, finite, token if isinstance(token, str) else None)


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and math.isfinite(value)


def read_echo(
    reply: Mapping[str, Any], prompt: str, continuation: str, n_tokens: int
) -> list[float]:
    """Log-probabilities of the last ``n_tokens`` prompt tokens, which must spell ``continuation``.

    The echoed list holds the prompt's tokens, then usually the generated ones (``usage``'s
    completion tokens); some servers leave out a beginning-of-sequence token, or the generated
    token. The prompt's end is where the tokens before it spell the continuation and those after
    it spell the generated text (or are absent). This checks which *tokens* were echoed; whether
    each value was read at its own position is what ``readout conformance`` checks.
    """
    choice, logprobs = _choice_logprobs(reply)
    tokens, values = logprobs.get("tokens"), logprobs.get("token_logprobs")
    if not isinstance(tokens, list) or not isinstance(values, list) or len(tokens) != len(values):
        raise ReplyError("echo reply has no matching 'tokens' and 'token_logprobs'")
    text = choice.get("text")
    if not isinstance(text, str) or not text.startswith(prompt):
        raise ReplyError("echo reply's text does not start with the prompt (no echo?)")
    usage = reply.get("usage")
    generated = usage.get("completion_tokens") if isinstance(usage, Mapping) else None
    if not isinstance(generated, int) or generated < 0:
        raise ReplyError("echo reply has no usage.completion_tokens")
    strings = [str(t) for t in tokens]
    after = text[len(prompt) :]
    ends = [
        end
        for end in (len(strings) - generated, len(strings))
        if n_tokens <= end <= len(strings)
        and "".join(strings[end - n_tokens : end]) == continuation
        and "".join(strings[end:]) in (after, "")
    ]
    if not ends or n_tokens < 1:
        raise ReplyError(
            f"no {n_tokens} echoed tokens before the generated text spell {continuation!r}"
        )
    picked = values[ends[0] - n_tokens : ends[0]]
    if not all(_finite(v) for v in picked):
        raise ReplyError("an echoed continuation token has no log-probability")
    return [float(v) for v in picked]


def usage_tokens(reply: Mapping[str, Any]) -> int | None:
    """The prompt tokens a completion reply says it counted."""
    usage = reply.get("usage")
    value = usage.get("prompt_tokens") if isinstance(usage, Mapping) else None
    return value if isinstance(value, int) else None


def continuation_count(context: Sequence[int], full: Sequence[int]) -> int | None:
    """Tokens the continuation adds on the server, or None if the context's tokens change."""
    n = len(context)
    return len(full) - n if list(full[:n]) == list(context) else None
