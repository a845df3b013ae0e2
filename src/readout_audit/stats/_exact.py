"""Exact and permutation tests: McNemar, Fisher, Holm, sign flips, intersection–union."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

import numpy as np

from readout_audit.stats._validate import as_float_array, check_replicates

Alternative = Literal["two-sided", "greater", "less"]
EXACT_SIGN_FLIP_LIMIT = 24
"""Largest n whose 2^n sign assignments are enumerated; beyond it the test is Monte Carlo."""


def _count(value: Any, name: str) -> int:
    if isinstance(value, bool) or int(value) != value or value < 0:
        raise ValueError(f"Expected `{name}` to be a non-negative integer, but got {value!r}")
    return int(value)


def _check_alternative(alternative: str) -> None:
    if alternative not in ("two-sided", "greater", "less"):
        raise ValueError(
            "Expected `alternative` to be 'two-sided', 'greater' or 'less', "
            f"but got {alternative!r}"
        )


def binomial_cdf_half(k: int, n: int) -> float:
    """P(X ≤ k) for X ~ Binomial(n, ½), computed exactly with integers: Σ_{i≤k} C(n,i) / 2ⁿ."""
    total = sum(math.comb(n, i) for i in range(0, min(k, n) + 1))
    return float(Fraction(total, 2**n))


def mcnemar_exact(b: int, c: int) -> float:
    """Exact two-sided McNemar test on the discordant counts b and c.

    Conditional on n = b + c, b ~ Binomial(n, ½) under the null; p = min(1, 2·P(X ≤ min(b, c))).
    With c = 0 this is 2·2⁻ᵇ (e.g. 31 vs 0 gives 2·2⁻³¹; the one-sided value is half of it).
    """
    b, c = _count(b, "b"), _count(c, "c")
    if b + c == 0:
        return 1.0
    return min(1.0, 2.0 * binomial_cdf_half(min(b, c), b + c))


@dataclass(frozen=True)
class FisherResult:
    """Fisher's exact test on a 2×2 table."""

    odds_ratio: float
    """Sample odds ratio (a·d)/(b·c) of the table [[a, b], [c, d]]."""
    p_value: float


def fisher_exact(table: Any, alternative: Alternative = "two-sided") -> FisherResult:
    """Fisher's exact test on [[a, b], [c, d]] with fixed margins.

    Under the null, a ~ Hypergeometric: P(a = x) = C(a+b, x)·C(c+d, a+c−x) / C(n, a+c).
    Two-sided p sums P over tables no more probable than the observed one (exact integer
    comparison); "less" is P(a ≤ observed), "greater" P(a ≥ observed).
    """
    _check_alternative(alternative)
    array = np.asarray(table)
    if array.shape != (2, 2):
        raise ValueError(f"Expected a 2x2 table, but got shape {array.shape}")
    a, b, c, d = (_count(v, "table") for v in array.ravel().tolist())
    row1, col1, n = a + b, a + c, a + b + c + d
    low, high = max(0, col1 - (c + d)), min(row1, col1)
    weight = {x: math.comb(row1, x) * math.comb(n - row1, col1 - x) for x in range(low, high + 1)}
    total = sum(weight.values())
    if alternative == "less":
        hits = sum(w for x, w in weight.items() if x <= a)
    elif alternative == "greater":
        hits = sum(w for x, w in weight.items() if x >= a)
    else:
        hits = sum(w for w in weight.values() if w <= weight[a])
    with np.errstate(divide="ignore", invalid="ignore"):
        odds = float(np.float64(a * d) / np.float64(b * c)) if (b * c or a * d) else math.nan
    return FisherResult(odds_ratio=odds, p_value=min(1.0, float(Fraction(hits, total))))


def holm(pvalues: Any) -> np.ndarray:
    """Holm step-down adjusted p-values.

    With p₍₁₎ ≤ … ≤ p₍ₘ₎: p̃₍ᵢ₎ = min(1, maxⱼ≤ᵢ (m − j + 1)·p₍ⱼ₎), returned in the input order.
    """
    p = as_float_array(pvalues, "pvalues")
    if np.any((p < 0) | (p > 1)):
        raise ValueError(f"Expected p-values in [0, 1], but got {p[(p < 0) | (p > 1)][0]}")
    m = p.size
    order = np.argsort(p, kind="mergesort")
    adjusted = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    result = np.empty(m)
    result[order] = adjusted
    return result


def intersection_union_test(p_a: float, p_b: float) -> float:
    """Intersection–union test of two directional hypotheses that must both hold: max(p_a, p_b)."""
    for name, p in (("p_a", p_a), ("p_b", p_b)):
        if not 0 <= p <= 1:
            raise ValueError(f"Expected `{name}` in [0, 1], but got {p}")
    return float(max(p_a, p_b))


@dataclass(frozen=True)
class SignFlipResult:
    """A paired sign-flip (randomisation) test of the mean difference."""

    statistic: float
    """Σ dᵢ, the observed sum of paired differences."""
    p_value: float
    exact: bool
    """True when all 2ⁿ sign assignments were enumerated."""
    n_assignments: int


def _all_sign_sums(diffs: np.ndarray) -> np.ndarray:
    """Σ εᵢdᵢ for all 2ⁿ sign vectors ε, built by doubling (no Python loop over assignments)."""
    sums = np.zeros(1)
    for d in diffs:
        sums = np.concatenate((sums + d, sums - d))
    return sums


def sign_flip_test(
    diffs: Any,
    alternative: Alternative = "two-sided",
    *,
    n_resamples: int = 100_000,
    seed: int = 0,
) -> SignFlipResult:
    """Sign-flip test of H₀: paired differences are symmetric about 0.

    T = Σ dᵢ; under H₀ every sign vector ε ∈ {±1}ⁿ is equally likely, T* = Σ εᵢdᵢ.
    p = #{T* ≥ T} / 2ⁿ ("greater"), #{T* ≤ T} / 2ⁿ ("less"), #{|T*| ≥ |T|} / 2ⁿ ("two-sided"),
    by full enumeration for n ≤ 24; beyond that, (1 + #hits) / (1 + R) over R seeded random
    sign vectors. Comparisons allow a relative tolerance of 1e-9 for floating-point sums.
    """
    _check_alternative(alternative)
    d = as_float_array(diffs, "diffs")
    observed = float(d.sum())
    tolerance = 1e-9 * max(1.0, float(np.abs(d).sum()))
    exact = d.size <= EXACT_SIGN_FLIP_LIMIT
    if exact:
        null = _all_sign_sums(d)
    else:
        rng = np.random.default_rng(seed)
        signs = rng.integers(0, 2, size=(check_replicates(n_resamples), d.size), dtype=np.int8)
        null = (2.0 * signs - 1.0) @ d
    if alternative == "greater":
        hits = int(np.sum(null >= observed - tolerance))
    elif alternative == "less":
        hits = int(np.sum(null <= observed + tolerance))
    else:
        hits = int(np.sum(np.abs(null) >= abs(observed) - tolerance))
    p = hits / null.size if exact else (1 + hits) / (1 + null.size)
    return SignFlipResult(
        statistic=observed, p_value=min(1.0, p), exact=exact, n_assignments=int(null.size)
    )
