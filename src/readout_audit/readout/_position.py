"""Everything read at one scored position, from one forward pass over the context."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel

from readout_audit.model import PositionRequest, PositionScores, ScoringModel
from readout_audit.prompt import Rendering
from readout_audit.readout._options import (
    OptionEncoding,
    distinct_first_tokens,
    encode_in_context,
    option_mass,
    option_mass_lower,
)

DEFAULT_TOP_K = 10
DEFAULT_GREEDY_TOKENS = 16


class TopToken(BaseModel):
    """One of the most probable next tokens."""

    id: int
    token: str
    """Surface string of the token."""
    logprob: float
    prob: float


class Greedy(BaseModel):
    """The unrestricted greedy continuation from the scored position."""

    token_ids: list[int]
    text: str


class PositionReadout(BaseModel):
    """Readouts and label-free diagnostics at one scored position."""

    argmax_id: int
    """Unrestricted most probable next token."""
    argmax_token: str
    argmax_prob: float
    argmax_is_option: bool
    """Whether the argmax is one of the options' first tokens in context."""
    top: list[TopToken]
    option_token_ids: list[list[int] | None]
    """Each option's tokens in context; None where its boundary is not preserved."""
    option_first_ids: list[int | None]
    boundary_preserved: bool
    """True when tok(context) is a prefix of tok(context + option) for every option."""
    distinct_first_tokens: bool | None
    option_mass: float | None
    """μ(c): summed probability of the options' distinct first tokens; None if not measurable."""
    option_mass_lower: float | None = None
    """Where μ(c) is None because a partial distribution (a served top-k) lacks some first
    tokens: the sum over those it holds, a lower bound of μ(c)."""
    top_k_mass: float | None = None
    """For a partial distribution: the probability its known tokens hold (its coverage)."""
    option_logprobs: list[float | None]
    """Full-option log-likelihoods: sums of per-token log-probabilities."""
    option_token_logprobs: list[list[float] | None]
    option_probs: list[float] | None
    """exp(ℓ_o) renormalised over the options; None unless every option was scored."""
    expected_value: float | None
    """Σ value(o)·p_o when every option is a number (the forecast grid), else None."""
    greedy: Greedy


def renormalise(logprobs: Sequence[float]) -> list[float]:
    """Softmax over option log-likelihoods: p_o = exp(ℓ_o) / Σ exp(ℓ), computed stably."""
    values = np.asarray(logprobs, dtype=np.float64)
    shifted = np.exp(values - values.max())
    return [float(p) for p in shifted / shifted.sum()]


def numeric_values(options: Sequence[str]) -> list[float] | None:
    """The options as numbers (surrounding whitespace ignored), or None if any is not one."""
    try:
        values = [float(option.strip()) for option in options]
    except ValueError:
        return None
    return values if all(math.isfinite(v) for v in values) else None


def position_request(
    rendering: Rendering,
    encodings: Sequence[OptionEncoding],
    greedy_tokens: int = DEFAULT_GREEDY_TOKENS,
    want_ids: Sequence[int] = (),
) -> PositionRequest:
    """What :func:`read_position` asks of the model for one scored position.

    The options whose boundary holds, the greedy text, and the options' first tokens (plus
    ``want_ids``) in the distribution.
    """
    firsts = {e.first_id for e in encodings if e.first_id is not None}
    return PositionRequest(
        context=rendering.token_ids,
        continuations=[e.token_ids for e in encodings if e.token_ids is not None],
        greedy_tokens=greedy_tokens,
        want_ids=sorted(firsts | set(want_ids)),
        inputs=rendering.model_inputs,
        chat=rendering.chat,
    )


def read_position(
    model: ScoringModel,
    rendering: Rendering,
    options: Sequence[str],
    *,
    top_k: int = DEFAULT_TOP_K,
    greedy_tokens: int = DEFAULT_GREEDY_TOKENS,
    encodings: Sequence[OptionEncoding] | None = None,
    scores: PositionScores | None = None,
) -> PositionReadout:
    """Read the scored position after ``rendering``: mass, argmax, top-k, options, greedy text.

    ``encodings`` are the options already encoded in this context, and ``scores`` the model's
    answer to their :func:`position_request`, if the caller has them (a batched run does).
    """
    codec = model.codec
    if encodings is None:
        encodings = encode_in_context(codec, rendering, options)
    if scores is None:
        request = position_request(rendering, encodings, greedy_tokens)
        scores = model.score_positions([request])[0]
    firsts = [e.first_id for e in encodings]
    wanted = sorted({t for t in firsts if t is not None})
    dist = scores.distribution
    argmax_id, argmax_logprob = dist.argmax()
    scored = iter(scores.continuations)
    # a served endpoint that cannot echo gives NaN for a continuation it cannot score
    per_token = [
        [float(x) for x in next(scored)] if e.token_ids is not None else None for e in encodings
    ]
    per_token = [t if t is None or not any(map(math.isnan, t)) else None for t in per_token]
    option_logprobs = [sum(tokens) if tokens is not None else None for tokens in per_token]
    complete = [lp for lp in option_logprobs if lp is not None]
    probs = renormalise(complete) if len(complete) == len(options) else None
    values = numeric_values(options)
    greedy_ids = scores.greedy
    mass = option_mass(encodings, dist)
    return PositionReadout(
        argmax_id=argmax_id,
        argmax_token=codec.token_surface(argmax_id),
        argmax_prob=math.exp(argmax_logprob),
        argmax_is_option=argmax_id in wanted,
        top=[
            TopToken(id=t, token=codec.token_surface(t), logprob=lp, prob=math.exp(lp))
            for t, lp in dist.top(top_k)
        ],
        option_token_ids=[
            list(e.token_ids) if e.token_ids is not None else None for e in encodings
        ],
        option_first_ids=firsts,
        boundary_preserved=all(e.boundary_preserved for e in encodings),
        distinct_first_tokens=distinct_first_tokens(encodings),
        option_mass=mass,
        option_mass_lower=option_mass_lower(encodings, dist) if mass is None else None,
        top_k_mass=dist.known_mass,
        option_logprobs=option_logprobs,
        option_token_logprobs=per_token,
        option_probs=probs,
        expected_value=(
            float(np.dot(values, probs)) if values is not None and probs is not None else None
        ),
        greedy=Greedy(token_ids=greedy_ids, text=codec.decode(greedy_ids)),
    )
