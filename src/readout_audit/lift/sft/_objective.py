"""The SFT control's loss (seed 001): the clipLL_2 objective plus a small raw NLL term.

For target log-likelihoods λ_t, the loss is −mean_t max(λ_t, −2) + w · (−mean_t λ_t): the
negated clipLL_2 the benchmark reports, and a raw term (weight w, small) that keeps a gradient on
tokens below the clip, where max(λ, −2) has none.
"""

from __future__ import annotations

from typing import Any

CLIP_FLOOR = -2.0
RAW_WEIGHT = 0.05


def clipped_objective(
    logprobs: Any, *, floor: float = CLIP_FLOOR, raw_weight: float = RAW_WEIGHT
) -> Any:
    """The loss of one target's token log-likelihoods (a 1-D torch tensor)."""
    return -logprobs.clamp(min=floor).mean() - raw_weight * logprobs.mean()
