"""Count-preserving permutation null for an accuracy gain (seed 003)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from readout_audit.stats._validate import check_replicates, same_length


@dataclass(frozen=True)
class PermutationNull:
    """Observed accuracy against predictions permuted with their label multiset kept."""

    observed: float
    null_mean: float
    null_low: float
    null_high: float
    """2.5th and 97.5th percentiles of the null accuracies."""
    gap: float
    """Observed minus null mean: alignment beyond matching the label counts."""
    p_value: float
    null: np.ndarray = field(repr=False)


def permutation_null(
    pred: Any, label: Any, n_perm: int = 10_000, seed: int = 0, *, chunk: int = 1_000
) -> PermutationNull:
    """Permutation null of accuracy that keeps the predictions' label counts.

    Each permutation shuffles the predictions across items, so the predicted-label multiset is
    unchanged and only per-item alignment is destroyed. Null accuracy a*_b = mean(π_b(pred) =
    label); gap = a − mean(a*); one-sided p = (1 + #{a*_b ≥ a}) / (1 + B).
    """
    p, y = np.asarray(pred), np.asarray(label)
    if p.ndim != 1 or p.size == 0:
        raise ValueError(f"Expected a non-empty 1-D `pred`, but got shape {p.shape}")
    same_length(pred=p, label=y)
    n_perm = check_replicates(n_perm)
    codes = np.unique(np.concatenate([p, y]), return_inverse=True)[1]
    p_codes, y_codes = codes[: p.size], codes[p.size :]
    observed = float(np.mean(p_codes == y_codes))
    rng = np.random.default_rng(seed)
    null = np.empty(n_perm)
    for start in range(0, n_perm, chunk):
        rows = min(chunk, n_perm - start)
        shuffled = rng.permuted(np.broadcast_to(p_codes, (rows, p.size)), axis=1)
        null[start : start + rows] = np.mean(shuffled == y_codes, axis=1)
    low, high = np.quantile(null, [0.025, 0.975])
    return PermutationNull(
        observed=observed,
        null_mean=float(null.mean()),
        null_low=float(low),
        null_high=float(high),
        gap=observed - float(null.mean()),
        p_value=(1 + int(np.sum(null >= observed))) / (1 + n_perm),
        null=null,
    )
