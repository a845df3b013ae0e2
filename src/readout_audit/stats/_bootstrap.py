"""Percentile bootstraps, the null-centred bootstrap p-value and cluster-robust standard errors."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from readout_audit.stats._metrics import binary_scores, weighted_auc
from readout_audit.stats._resample import cluster_index, item_weights, multinomial_counts
from readout_audit.stats._validate import (
    as_binary_array,
    as_float_array,
    check_alpha,
    check_replicates,
    same_length,
)

StatisticName = Literal["mean", "auc", "brier", "accuracy"]
Statistic = StatisticName | Callable[..., float]
_ARITY = {"mean": 1, "auc": 2, "brier": 2, "accuracy": 2}


@dataclass(frozen=True)
class Interval:
    """A point estimate with its percentile interval and the replicates behind it."""

    estimate: float
    low: float
    high: float
    alpha: float
    replicates: np.ndarray = field(repr=False)

    @property
    def n_boot(self) -> int:
        """Number of bootstrap replicates."""
        return int(self.replicates.size)


def _prepare(statistic: Statistic, arrays: Sequence[Any]) -> list[np.ndarray]:
    if isinstance(statistic, str):
        if statistic not in _ARITY:
            raise ValueError(
                f"Expected `statistic` to be one of {sorted(_ARITY)} or a callable, "
                f"but got {statistic!r}"
            )
        if len(arrays) != _ARITY[statistic]:
            raise ValueError(
                f"Expected {_ARITY[statistic]} array(s) for statistic {statistic!r}, "
                f"but got {len(arrays)}"
            )
    if not arrays:
        raise ValueError("Expected at least one data array, but got none")
    if statistic in ("auc", "brier"):
        prepared = [as_float_array(arrays[0], "scores"), as_binary_array(arrays[1], "labels")]
    elif statistic == "accuracy":
        prepared = [np.asarray(arrays[0]), np.asarray(arrays[1])]
        if prepared[0].ndim != 1 or prepared[0].size == 0:
            raise ValueError(f"Expected a non-empty 1-D `pred`, got shape {prepared[0].shape}")
    elif statistic == "mean":
        prepared = [as_float_array(arrays[0], "values")]
    else:
        prepared = [np.asarray(a) for a in arrays]
    same_length(**{f"array {i}": a for i, a in enumerate(prepared)})
    return prepared


def evaluate(statistic: Statistic, arrays: Sequence[np.ndarray], weights: np.ndarray) -> np.ndarray:
    """The statistic under each row of item weights, vectorised for the named statistics."""
    weights = np.atleast_2d(weights)
    totals = weights.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        if statistic == "mean":
            per_item = arrays[0]
        elif statistic == "brier":
            per_item = (arrays[0] - arrays[1]) ** 2
        elif statistic == "accuracy":
            per_item = (arrays[0] == arrays[1]).astype(np.float64)
        if statistic == "auc":
            return weighted_auc(arrays[0], arrays[1], weights)
        if isinstance(statistic, str):
            return np.asarray(weights @ per_item / totals, dtype=np.float64)
    assert callable(statistic)
    batched = getattr(statistic, "over_weights", None)
    if batched is not None:  # a statistic that evaluates every replicate at once
        return np.asarray(batched(arrays, weights), dtype=np.float64)
    positions = np.arange(weights.shape[1])
    values = []
    for row in weights:
        index = np.repeat(positions, row.astype(np.int64))
        values.append(statistic(*(a[index] for a in arrays)))
    return np.asarray(values, dtype=np.float64)


def _interval(estimate: float, replicates: np.ndarray, alpha: float) -> Interval:
    finite = replicates[np.isfinite(replicates)]
    if finite.size == 0:
        low = high = float("nan")
    else:
        low, high = np.quantile(finite, [alpha / 2, 1 - alpha / 2])
    return Interval(float(estimate), float(low), float(high), alpha, replicates)


def bootstrap_ci(
    *arrays: Any,
    statistic: Statistic = "mean",
    n_boot: int = 20_000,
    alpha: float = 0.05,
    seed: int = 0,
    clusters: Any = None,
) -> Interval:
    """Percentile bootstrap interval of a statistic over items (or clusters) drawn with replacement.

    Interval = [q_{α/2}, q_{1−α/2}] of the B replicate statistics θ*_b; the estimate is θ on the
    full sample. Named statistics ("mean", "auc", "brier", "accuracy") are vectorised over
    replicates; a callable receives the resampled arrays of each replicate. Replicates where
    the statistic is undefined (an AUC sample with one class) are left out of the quantiles.
    """
    check_alpha(alpha)
    check_replicates(n_boot)
    data = _prepare(statistic, arrays)
    n = len(data[0])
    estimate = evaluate(statistic, data, np.ones((1, n)))[0]
    weights = item_weights(n, n_boot, seed, clusters)
    return _interval(estimate, evaluate(statistic, data, weights), alpha)


BINARY_METRICS = ("f1", "precision", "recall", "yes_rate", "accuracy")


def binary_scores_bootstrap(
    pred: Any,
    label: Any,
    *,
    n_boot: int = 20_000,
    alpha: float = 0.05,
    seed: int = 0,
    clusters: Any = None,
) -> dict[str, Interval]:
    """Percentile intervals of F1, precision, recall, yes-rate and accuracy of a yes/no readout.

    One set of B item (or cluster) resamples serves all five; each replicate's confusion cells
    are weighted counts, so the metrics follow :func:`binary_scores` (a ratio with a zero
    denominator is 0).
    """
    check_alpha(alpha)
    p = as_binary_array(pred, "pred")
    y = as_binary_array(label, "label")
    same_length(pred=p, label=y)
    estimate = binary_scores(p, y)
    weights = item_weights(p.size, n_boot, seed, clusters)
    tp, fp = weights @ (p & y), weights @ (p & ~y)
    fn, tn = weights @ (~p & y), weights @ (~p & ~y)
    total = tp + fp + fn + tn

    def ratio(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.asarray(np.divide(a, b, out=np.zeros_like(a), where=b > 0))

    replicates = {
        "f1": ratio(2 * tp, 2 * tp + fp + fn),
        "precision": ratio(tp, tp + fp),
        "recall": ratio(tp, tp + fn),
        "yes_rate": ratio(tp + fp, total),
        "accuracy": ratio(tp + tn, total),
    }
    return {
        name: _interval(getattr(estimate, name), replicates[name], alpha) for name in BINARY_METRICS
    }


def cluster_bootstrap(
    *arrays: Any,
    clusters: Any,
    statistic: Statistic = "mean",
    n_boot: int = 20_000,
    alpha: float = 0.05,
    seed: int = 0,
) -> Interval:
    """Percentile bootstrap that resamples whole clusters (passages, papers, sources).

    Each replicate draws G clusters with replacement; an item enters as many times as its
    cluster was drawn.
    """
    return bootstrap_ci(
        *arrays, statistic=statistic, n_boot=n_boot, alpha=alpha, seed=seed, clusters=clusters
    )


@dataclass(frozen=True)
class PairedBootstrap:
    """Several readouts scored on the same replicates, with their pairwise differences."""

    readouts: dict[str, Interval]
    differences: dict[str, Interval]
    """Keyed ``"b - a"``: readout b's statistic minus readout a's, replicate by replicate."""


def paired_bootstrap(
    readouts: Mapping[str, Any],
    labels: Any = None,
    *,
    statistic: Statistic = "auc",
    clusters: Any = None,
    n_boot: int = 20_000,
    alpha: float = 0.05,
    seed: int = 0,
    pairs: Sequence[tuple[str, str]] | None = None,
) -> PairedBootstrap:
    """Paired (optionally cluster) bootstrap of several readouts of the same items.

    Every readout is evaluated on the same resampled items in each replicate, so the
    difference θ*_b(b) − θ*_b(a) keeps the pairing. ``pairs`` lists (a, b) for b − a; by
    default every later readout minus every earlier one, in the mapping's order.
    """
    check_alpha(alpha)
    names = list(readouts)
    if not names:
        raise ValueError("Expected at least one readout, but got none")
    data = {
        name: _prepare(statistic, [values] if labels is None else [values, labels])
        for name, values in readouts.items()
    }
    n = len(next(iter(data.values()))[0])
    same_length(**{name: arrays[0] for name, arrays in data.items()})
    weights = item_weights(n, n_boot, seed, clusters)
    full = np.ones((1, n))
    estimates = {name: evaluate(statistic, arrays, full)[0] for name, arrays in data.items()}
    replicates = {name: evaluate(statistic, arrays, weights) for name, arrays in data.items()}
    if pairs is None:
        pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    for a, b in pairs:
        for name in (a, b):
            if name not in readouts:
                raise ValueError(f"Expected pair members among {names}, but got {name!r}")
    return PairedBootstrap(
        readouts={n_: _interval(estimates[n_], replicates[n_], alpha) for n_ in names},
        differences={
            f"{b} - {a}": _interval(
                estimates[b] - estimates[a], replicates[b] - replicates[a], alpha
            )
            for a, b in pairs
        },
    )


def stratified_bootstrap(
    values: Any,
    strata: Any,
    weights: Mapping[Any, float],
    *,
    clusters: Any = None,
    n_boot: int = 20_000,
    alpha: float = 0.05,
    seed: int = 0,
) -> Interval:
    """Dataset-stratified bootstrap of a fixed-weight mean (seed 004, Eq. 8).

    T = Σ_d w_d · mean_{i∈C_d} t_i with planned dataset weights w_d (not the pooled mean).
    Each replicate resamples complete sources (clusters; items when none are given) with
    replacement within each dataset separately and recomputes T.
    """
    check_alpha(alpha)
    n_boot = check_replicates(n_boot)
    t = as_float_array(values, "values")
    labels = np.asarray(strata)
    same_length(values=t, strata=labels)
    present = list(dict.fromkeys(labels.tolist()))
    missing = [s for s in present if s not in weights]
    if missing:
        raise ValueError(f"Expected a weight for every stratum, but {missing} have none")
    rng = np.random.default_rng(seed)
    units = np.arange(t.size) if clusters is None else cluster_index(clusters, t.size)
    estimate, replicates = 0.0, np.zeros(n_boot)
    for stratum in present:
        members = np.flatnonzero(labels == stratum)
        local = np.unique(units[members], return_inverse=True)[1]
        counts = multinomial_counts(int(local.max()) + 1, n_boot, rng)[:, local]
        w = float(weights[stratum])
        estimate += w * float(t[members].mean())
        replicates += w * (counts @ t[members]) / counts.sum(axis=1)
    return _interval(estimate, replicates, alpha)


def centered_bootstrap_pvalue(
    observed: float, replicates: Any, *, null: float = 0.0, tolerance: float = 1e-12
) -> float:
    """Two-sided null-centred bootstrap p-value (seed 004).

    The replicates are centred on the observed value to mimic the null:
    p = (1 + #{b : |T*_b − T| ≥ |T − null| − tol}) / (B + 1), so p ≥ 1/(B + 1) (the
    finite-simulation floor); ties within ``tolerance`` count as hits. A zero-variance sample
    says nothing about the null: use :func:`hoeffding_interval` there instead.
    """
    reps = as_float_array(replicates, "replicates")
    if not np.isfinite(observed):
        raise ValueError(f"Expected a finite `observed`, but got {observed}")
    hits = int(np.sum(np.abs(reps - observed) >= abs(observed - null) - tolerance))
    return (1 + hits) / (reps.size + 1)


def cluster_se(values: Any, clusters: Any, *, small_sample: bool = True) -> float:
    """Cluster-robust standard error of a mean (e.g. paper-clustered, seed 001).

    With residuals e_i = x_i − x̄ and G clusters:
    SE² = c · Σ_g (Σ_{i∈g} e_i)² / n², where c = G/(G − 1) (CR1, statsmodels' default) or 1.
    """
    x = as_float_array(values, "values")
    index = cluster_index(clusters, x.size)
    groups = int(index.max()) + 1
    if small_sample and groups < 2:
        raise ValueError(f"Expected at least 2 clusters, but got {groups}")
    sums = np.bincount(index, weights=x - x.mean(), minlength=groups)
    factor = groups / (groups - 1) if small_sample else 1.0
    return float(np.sqrt(factor * np.sum(sums**2)) / x.size)
