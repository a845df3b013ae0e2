"""Distribution-free bounds of seed 004: Hoeffding, fallback interval, missingness, crossings."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from readout_audit.stats._validate import (
    as_float_array,
    check_alpha,
    check_probability,
    same_length,
)


def hoeffding_epsilon(M: int, n: int, delta: float) -> float:
    """Uniform deviation bound over M fixed candidates: ε = √(log(2M/δ) / (2n)).

    With probability ≥ 1 − δ, every one of M [0, 1]-valued means over n independent clusters is
    within ε of its expectation (Hoeffding plus a union bound). M = 145, n = 12, δ = .05 → 0.601.
    """
    if M < 1 or n < 1:
        raise ValueError(f"Expected M >= 1 and n >= 1, but got M={M}, n={n}")
    if not 0 < delta < 1:
        raise ValueError(f"Expected `delta` in (0, 1), but got {delta}")
    return math.sqrt(math.log(2 * M / delta) / (2 * n))


@dataclass(frozen=True)
class BoundedInterval:
    """An interval with the p-value of the same bound at the null value."""

    estimate: float
    low: float
    high: float
    p_value: float


def hoeffding_interval(
    estimate: float,
    stratum_sizes: Sequence[int],
    stratum_weights: Sequence[float],
    *,
    value_range: tuple[float, float] = (-2.0, 2.0),
    alpha: float = 0.05,
) -> BoundedInterval:
    """Conservative fallback interval when a bootstrap sample has zero variance (seed 004).

    For T = Σ_s w_s · mean of n_s independent values in [a, b] (R = b − a), Hoeffding gives
    P(|T − E T| ≥ ε) ≤ 2 exp(−2ε² / (R² S)) with S = Σ_s w_s² / n_s, so
    ε = R·√(S·log(2/α) / 2) (√(8 S log(2/α)) for contrasts in [−2, 2]) and
    p = min(1, 2 exp(−2T² / (R² S))), which is 1 at T = 0. The interval is truncated to [a, b].
    """
    check_alpha(alpha)
    sizes = np.asarray(stratum_sizes, dtype=np.float64)
    weights = np.asarray(stratum_weights, dtype=np.float64)
    if sizes.shape != weights.shape or sizes.size == 0 or np.any(sizes < 1):
        raise ValueError(
            f"Expected one positive size per weight, but got sizes {sizes.tolist()} and "
            f"weights {weights.tolist()}"
        )
    low, high = value_range
    spread = high - low
    if spread <= 0:
        raise ValueError(f"Expected value_range (low, high) with low < high, but got {value_range}")
    s = float(np.sum(weights**2 / sizes))
    half_width = spread * math.sqrt(s * math.log(2 / alpha) / 2)
    p_value = min(1.0, 2 * math.exp(-2 * estimate**2 / (spread**2 * s)))
    return BoundedInterval(
        estimate=estimate,
        low=max(low, estimate - half_width),
        high=min(high, estimate + half_width),
        p_value=p_value,
    )


def missingness_bounds(
    values: Any, coefficients: Any, domain: tuple[float, float] = (0.0, 1.0)
) -> tuple[float, float]:
    """Bounds of a planned finite-panel estimate Σ cᵢ xᵢ when some cells xᵢ are unresolved (NaN).

    Each unresolved cell takes the extreme of its admissible domain [lo, hi] that lowers the
    estimate (lo where cᵢ > 0, hi where cᵢ < 0) for the lower bound, and the opposite for the
    upper bound; missing responses are never treated as a particular answer.
    """
    x = np.asarray(values, dtype=np.float64)
    c = as_float_array(coefficients, "coefficients")
    same_length(values=x, coefficients=c)
    lo, hi = domain
    if lo > hi:
        raise ValueError(f"Expected domain (lo, hi) with lo <= hi, but got {domain}")
    known = ~np.isnan(x)
    if np.any(np.isinf(x)) or np.any((x[known] < lo) | (x[known] > hi)):
        raise ValueError(f"Expected resolved values within the domain {domain}")
    fixed = float(np.sum(c[known] * x[known]))
    free = c[~known]
    lower = fixed + float(np.sum(np.where(free > 0, free * lo, free * hi)))
    upper = fixed + float(np.sum(np.where(free > 0, free * hi, free * lo)))
    return lower, upper


@dataclass(frozen=True)
class ThresholdCrossings:
    """Upward and downward crossing fractions of paired scores at each threshold."""

    thresholds: np.ndarray
    up: np.ndarray
    """U(t) = Σ ωᵢ [sᵢ⁰ < t ≤ sᵢ¹]: weight of items whose score rises across t."""
    down: np.ndarray
    """D(t) = Σ ωᵢ [sᵢ¹ < t ≤ sᵢ⁰]: weight of items whose score falls across t."""
    area: float
    """∫₀¹ (U(t) − D(t)) dt, computed exactly from the paired scores."""
    mean_shift: float
    """Σ ωᵢ (sᵢ¹ − sᵢ⁰): the weighted mean score change, equal to ``area``."""


def threshold_crossings(
    before: Any, after: Any, weights: Any = None, thresholds: Any = None
) -> ThresholdCrossings:
    """Threshold-crossing curves of paired scores in [0, 1] (seed 004).

    Each pair contributes the interval between its two scores, signed by the direction of the
    change, so ∫₀¹ (U(t) − D(t)) dt = Σ ωᵢ (sᵢ¹ − sᵢ⁰) with weights ωᵢ summing to one
    (uniform when not given). Curves are evaluated at ``thresholds`` (default 1001 points).
    """
    s0, s1 = check_probability(before, "before"), check_probability(after, "after")
    same_length(before=s0, after=s1)
    if weights is None:
        w = np.full(s0.size, 1.0 / s0.size)
    else:
        w = as_float_array(weights, "weights")
        same_length(before=s0, weights=w)
        if np.any(w < 0) or not np.isclose(w.sum(), 1.0):
            raise ValueError(
                f"Expected non-negative weights summing to 1, but they sum to {w.sum()}"
            )
    grid = (
        np.linspace(0, 1, 1001) if thresholds is None else as_float_array(thresholds, "thresholds")
    )
    t = grid[:, None]
    up = ((s0 < t) & (t <= s1)).astype(np.float64) @ w
    down = ((s1 < t) & (t <= s0)).astype(np.float64) @ w
    area = float(w @ np.maximum(s1 - s0, 0) - w @ np.maximum(s0 - s1, 0))
    return ThresholdCrossings(grid, up, down, area, float(w @ (s1 - s0)))
