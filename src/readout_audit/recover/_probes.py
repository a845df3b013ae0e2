"""Linear probes on frozen hidden states (seed 003, §3 "Probe training", Appendix B).

A probe is a multinomial logistic regression on standardised features, fitted on at most 2,000
in-domain rows per seed (seeds 42, 123, 456) and judged on disjoint held-out splits; with
shuffled training labels it is the randomized-label control of Table 14. With rows enough for
every seed, the seeds take disjoint blocks of them, as the paper's seeds each draw their own
data. With no more rows than one probe takes, each seed fits its own bootstrap replicate of
them: the same rows would give every seed the same probe (L-BFGS is deterministic) and a spread
of 0 that says nothing, but a replicate holds about 63% distinct rows and understates what a
probe on all of them reads, so the analysis reports that one fit beside the replicates.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from readout_audit._exceptions import InputError
from readout_audit.recover._linear import class_labels, feature_matrix, fit_logistic, two_classes

PROBE_SEEDS = (42, 123, 456)
"""The paper's three probe seeds (Appendix B, format-matched reruns)."""
PROBE_ROWS = 2000
"""The paper's probe-training rows (Appendix B)."""


@dataclass(frozen=True)
class Probe:
    """A fitted probe: the standardisation and the linear map, enough to predict."""

    mean: np.ndarray = field(repr=False)
    """Per-feature mean of the training rows."""
    scale: np.ndarray = field(repr=False)
    """Per-feature standard deviation of the training rows (1 where it is 0, as scikit-learn)."""
    coef: np.ndarray = field(repr=False)
    """Shape (classes, features); one row when two classes were seen (a binary fit)."""
    intercept: np.ndarray = field(repr=False)
    classes: np.ndarray
    """The label indices seen in training, in increasing order."""
    rows: np.ndarray = field(repr=False)
    """Indices of the training rows used, in increasing order (repeated in a replicate)."""
    converged: bool
    """False when L-BFGS stopped at its iteration cap."""

    def predict(self, features: Any) -> np.ndarray:
        """Label indices for rows of features, as scikit-learn's pipeline would predict them."""
        x = feature_matrix(features, "features", width=self.mean.size)
        scores = (x - self.mean) / self.scale @ self.coef.T + self.intercept
        index = (scores[:, 0] > 0).astype(np.int64) if self.coef.shape[0] == 1 else scores.argmax(1)
        return np.asarray(self.classes[index], dtype=np.int64)


def fit_probe(
    features: Any,
    labels: Any,
    *,
    seed: int,
    max_rows: int = PROBE_ROWS,
    k: int = 3,
    shuffle_labels: bool = False,
    replicate: bool = True,
    seeds: Sequence[int] = (),
) -> Probe:
    """Fit one probe: a StandardScaler, then a multinomial L-BFGS logistic regression (C = 1).

    ``seeds``: every seed whose probe is fitted on these rows, ``seed`` among them. With at
    least ``max_rows`` rows for each distinct one (two or more), they take disjoint blocks of
    ``max_rows`` from one permutation drawn by ``np.random.default_rng(seeds)`` (the seeds in
    first-seen order), ``seed`` the block at its place. Otherwise ``np.random.default_rng(seed)``
    picks ``max_rows`` rows without replacement when there are more, and with fewer draws a
    bootstrap replicate of them (as many rows, with replacement), or takes them all when
    ``replicate`` is False. ``shuffle_labels`` then permutes the rows' labels with that seed's
    generator (the randomized-label control). The scaler sees the training rows only.
    """
    x = feature_matrix(features, "features")
    y = class_labels(labels, x.shape[0], k, "labels")
    if isinstance(max_rows, bool) or not isinstance(max_rows, int | np.integer) or max_rows < 2:
        raise InputError(f"expected an integer >= 2, got {max_rows!r}", field="max_rows")
    shared = list(dict.fromkeys(seeds))
    if shared and seed not in shared:
        raise InputError(f"seed {seed} is not one of the seeds {shared}", field="seeds")
    rng = np.random.default_rng(seed)
    n = x.shape[0]
    if len(shared) > 1 and n >= len(shared) * max_rows:
        start = shared.index(seed) * max_rows
        order = np.random.default_rng(shared).permutation(n)
        rows = np.sort(order[start : start + max_rows])
    elif n > max_rows:
        rows = np.sort(rng.choice(n, size=max_rows, replace=False))
    else:
        rows = np.sort(rng.choice(n, size=n, replace=True)) if replicate else np.arange(n)
    train_y = rng.permutation(y[rows]) if shuffle_labels else y[rows]
    two_classes(train_y, "labels")
    from sklearn.preprocessing import StandardScaler

    scaler = StandardScaler().fit(x[rows])
    model, converged = fit_logistic(scaler.transform(x[rows]), train_y)
    return Probe(
        mean=np.asarray(scaler.mean_, dtype=np.float64),
        scale=np.asarray(scaler.scale_, dtype=np.float64),
        coef=np.asarray(model.coef_, dtype=np.float64),
        intercept=np.asarray(model.intercept_, dtype=np.float64),
        classes=np.asarray(model.classes_, dtype=np.int64),
        rows=rows,
        converged=converged,
    )


def probe_predictions(
    train_x: Any,
    train_y: Any,
    evals: Mapping[str, Any],
    *,
    seeds: Sequence[int] = PROBE_SEEDS,
    max_rows: int = PROBE_ROWS,
    k: int = 3,
    shuffle_labels: bool = False,
) -> dict[str, np.ndarray]:
    """One probe per seed, fitted on the training split; predictions (seeds, rows) per eval split.

    The seeds share the training rows out as :func:`fit_probe` says (disjoint blocks when
    there are ``max_rows`` for each). A readout gap averages a probe's correctness over its seeds:
    ``(predictions[name] == labels).mean(axis=0)``.
    """
    if not seeds:
        raise InputError("expected at least one seed", field="seeds")
    x = feature_matrix(train_x, "train_x")
    y = class_labels(train_y, x.shape[0], k, "train_y")
    tables = {
        name: feature_matrix(e, f"evals[{name!r}]", width=x.shape[1]) for name, e in evals.items()
    }
    fitted = {
        s: fit_probe(
            x, y, seed=s, max_rows=max_rows, k=k, shuffle_labels=shuffle_labels, seeds=seeds
        )
        for s in dict.fromkeys(seeds)
    }
    probes = [fitted[s] for s in seeds]
    return {name: np.stack([p.predict(e) for p in probes]) for name, e in tables.items()}
