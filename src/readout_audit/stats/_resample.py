"""Seeded resampling weights: how many times each item appears in each bootstrap replicate."""

from __future__ import annotations

from typing import Any

import numpy as np

from readout_audit.stats._validate import check_replicates


def multinomial_counts(n_units: int, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """Counts [B, n_units] of n_units draws with replacement per replicate (vectorised)."""
    draws = rng.integers(0, n_units, size=(n_boot, n_units))
    offsets = (np.arange(n_boot) * n_units)[:, None]
    flat = np.bincount((draws + offsets).ravel(), minlength=n_boot * n_units)
    return flat.reshape(n_boot, n_units).astype(np.float64)


def resampling_clusters(clusters: Any) -> list[Any] | None:
    """The clusters a bootstrap should resample, or None to resample items.

    With fewer than two distinct clusters (every item from one subject, say) a cluster
    bootstrap would redraw the same sample every time and report a zero-width interval.
    """
    labels = list(clusters)
    return labels if len(set(labels)) >= 2 else None


def cluster_index(clusters: Any, n: int) -> np.ndarray:
    """Integer cluster ids 0..G−1 for each of n items, checking the length."""
    labels = np.asarray(clusters)
    if labels.ndim != 1 or labels.size != n:
        raise ValueError(
            f"Expected `clusters` to hold one label per item ({n}), but got {labels.size}"
        )
    return np.unique(labels, return_inverse=True)[1]


def item_weights(
    n: int, n_boot: int, seed: int | np.random.Generator, clusters: Any = None
) -> np.ndarray:
    """Bootstrap weights [B, n]: items resampled directly, or whole clusters when given.

    With clusters, an item's weight is the number of times its cluster was drawn; G clusters
    are drawn with replacement per replicate.
    """
    n_boot = check_replicates(n_boot)
    rng = np.random.default_rng(seed)
    if clusters is None:
        return multinomial_counts(n, n_boot, rng)
    index = cluster_index(clusters, n)
    return multinomial_counts(int(index.max()) + 1, n_boot, rng)[:, index]
