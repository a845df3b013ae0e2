"""Scoring rules (seed 001, section 2 and appendix B): per-token log-probabilities to one score.

Each rule maps a target token's log-probability λ ≤ 0 to a bounded or unbounded score and
averages over the scored tokens; higher is better, 0 is the maximum. ``clip2`` (clipLL_2) is the
paper's headline; the others are its appendix B sensitivity rules.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict

from readout_audit._exceptions import InputError

RuleName = Literal["raw", "clip2", "clip3", "clip5", "sqrt", "log1p"]
RULES: tuple[RuleName, ...] = ("raw", "clip2", "clip3", "clip5", "sqrt", "log1p")
"""Appendix B's rules in its tables' order: raw LL, clipLL_2, clipLL_3, clipLL_5, √-loss, log1p."""
HEADLINE: RuleName = "clip2"
"""clipLL_2: "lift" without qualification means this rule (section 2)."""
POSITIVE_TOLERANCE = 1e-6
"""Largest positive log-probability taken as rounding and clamped to 0."""

_CLIP_FLOORS = {"clip2": 2.0, "clip3": 3.0, "clip5": 5.0}


class TokenScore(BaseModel):
    """One target's score under one rule, with how many of its tokens were scored."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    rule: RuleName
    score: float
    scored: int
    """Tokens averaged: min(window, tokens)."""
    tokens: int
    """The target's length in scorer tokens."""


def check_logprobs(
    values: Any, *, item_id: str | None = None, field: str | None = None
) -> np.ndarray:
    """A non-empty 1-D float64 array of log-probabilities ≤ 0 (rounding up to 1e-6 set to 0)."""
    array = np.asarray(values, dtype=np.float64)
    if array.ndim != 1 or array.size == 0:
        raise InputError(
            f"expected a non-empty 1-D array of per-token log-probabilities, "
            f"but got shape {array.shape}",
            item_id=item_id,
            field=field,
        )
    bad = ~np.isfinite(array) | (array > POSITIVE_TOLERANCE)
    if bad.any():
        index = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"expected finite log-probabilities <= 0 (positive rounding up to "
            f"{POSITIVE_TOLERANCE:g} allowed), but got {float(array[index])!r} at token {index}",
            item_id=item_id,
            field=field,
        )
    return np.minimum(array, 0.0)


def token_values(logprobs: np.ndarray, rule: RuleName) -> np.ndarray:
    """Each token's contribution under ``rule``: λ, max(λ, −k), −√(−λ) or −log(1 − λ)."""
    if rule == "raw":
        return logprobs
    if rule in _CLIP_FLOORS:
        return np.asarray(np.maximum(logprobs, -_CLIP_FLOORS[rule]))
    if rule == "sqrt":
        return np.asarray(-np.sqrt(-logprobs))
    if rule == "log1p":
        return np.asarray(-np.log1p(-logprobs))
    raise ValueError(f"Expected `rule` to be one of {list(RULES)}, but got {rule!r}")


def check_window(window: int) -> int:
    """A window of at least one token."""
    if isinstance(window, bool) or not isinstance(window, int | np.integer) or window < 1:
        raise ValueError(f"Expected `window` to be an integer >= 1, but got {window!r}")
    return int(window)


def score_tokens(
    logprobs: Any,
    rule: RuleName = HEADLINE,
    *,
    window: int | None = None,
    item_id: str | None = None,
    field: str | None = None,
) -> TokenScore:
    """Mean rule value over the first ``window`` target tokens (all of them when None or longer).

    score = (1/T') Σ_{t ≤ T'} f(λ_t), T' = min(window, T); f is the rule's token transform.
    """
    array = check_logprobs(logprobs, item_id=item_id, field=field)
    scored = array.size if window is None else min(check_window(window), array.size)
    value = float(np.mean(token_values(array[:scored], rule)))
    return TokenScore(rule=rule, score=value, scored=scored, tokens=array.size)
