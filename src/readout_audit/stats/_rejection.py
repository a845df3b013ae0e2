"""The prediction–rejection ratio, as lm-polygraph computes it."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from readout_audit.stats._validate import as_float_array, same_length


def _normalise(quality: np.ndarray) -> np.ndarray:
    low, high = quality.min(), quality.max()
    if np.isclose(low, high):
        low, high = low - 1, high + 1
    return np.asarray((quality - low) / (high - low), dtype=np.float64)


def rejection_area(uncertainty: np.ndarray, quality: np.ndarray, max_rejection: float) -> float:
    """Mean quality of the kept items as the most uncertain are rejected one by one.

    Quality is min–max normalised; with the items sorted by increasing uncertainty and
    k = ⌊max_rejection·N⌋, the area is (1/k) Σ_{j=0}^{k−1} mean(q of the N − j least uncertain),
    i.e. the rejection-fraction grid 0, 1/N, …, (k − 1)/N (lm-polygraph's PredictionRejectionArea).
    """
    q = _normalise(quality)
    n = uncertainty.size
    k = int(max_rejection * n)
    if k < 1:
        raise ValueError(f"Expected max_rejection * n >= 1, but got {max_rejection} * {n}")
    ordered = q[np.argsort(uncertainty)]
    kept_means = np.cumsum(ordered)[-k:] / np.arange(n - k + 1, n + 1)
    return float(np.sum(kept_means[::-1]) / k)


def prr(
    confidence: Any,
    quality: Any,
    max_rejection: float = 1.0,
    *,
    random: Literal["expected", "lm-polygraph"] = "expected",
) -> float:
    """Prediction–rejection ratio: PRR = (A − A_random) / (A_oracle − A_random).

    A is the rejection area with uncertainty = −confidence, A_oracle the area when rejecting by
    −quality (best first), and A_random the area under random rejection: exactly the mean
    normalised quality ("expected"), or lm-polygraph's Monte Carlo estimate over 1,000
    permutations with seed 42 ("lm-polygraph"). 0 is random rejection, 1 the oracle; when the
    oracle equals random, the raw area is returned (as lm-polygraph does).
    """
    c = as_float_array(confidence, "confidence")
    q = as_float_array(quality, "quality")
    same_length(confidence=c, quality=q)
    if not 0 < max_rejection <= 1:
        raise ValueError(f"Expected `max_rejection` in (0, 1], but got {max_rejection}")
    area = rejection_area(-c, q, max_rejection)
    oracle = rejection_area(-q, q, max_rejection)
    if random == "expected":
        baseline = float(np.mean(_normalise(q)))
    elif random == "lm-polygraph":
        state = np.random.RandomState(42)
        ranks = np.arange(q.size)
        values = []
        for _ in range(1000):
            state.shuffle(ranks)
            values.append(rejection_area(ranks.astype(np.float64), q, max_rejection))
        baseline = float(np.mean(values))
    else:
        raise ValueError(
            f"Expected `random` to be 'expected' or 'lm-polygraph', but got {random!r}"
        )
    if oracle == baseline:
        return area
    return (area - baseline) / (oracle - baseline)
