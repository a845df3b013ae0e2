"""Offsets frozen on a fit split, judged on a disjoint held-out split (seed 003, §3 and App. A).

Per-example gains count the held-out examples the corrected rule gets right and the raw rule
gets wrong, minus the reverse, with an exact McNemar test on those two counts, and a paired
(cluster) bootstrap interval on the corrected accuracy and on the corrected − raw gain
(Table 18). The fit-budget curve refits the offsets on deterministic subsamples of the
unlabelled fit scores and keeps each subsample's accuracy, macro-F1 and gap over the
count-preserving null (Tables 20 and 26).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from readout_audit._exceptions import InputError
from readout_audit.recover._offsets import OffsetGrid, corrected_predictions, fit_offsets
from readout_audit.stats import mcnemar_exact, paired_bootstrap, resampling_clusters

BUDGETS = (25, 50, 100, 250, 500, 1000)
"""Unlabelled fit sizes of the sample-efficiency curve (the paper's)."""
REPEATS = 30
"""Deterministic subsamples per budget."""


def macro_f1(pred: np.ndarray, label: np.ndarray, k: int) -> float:
    """Mean over the ``k`` labels of 2TP / (2TP + FP + FN) (0 for a label never seen nor said)."""
    scores = []
    for y in range(k):
        tp = int(np.sum((pred == y) & (label == y)))
        wrong = int(np.sum(pred == y)) + int(np.sum(label == y)) - 2 * tp
        scores.append(2 * tp / (2 * tp + wrong) if tp or wrong else 0.0)
    return float(np.mean(scores))


def null_accuracy(pred: np.ndarray, label: np.ndarray, k: int) -> float:
    """The count-preserving permutation null's mean accuracy, exactly: Σ_y c_y·g_y / n².

    Shuffling the predictions across examples puts predicted label y on a gold-y example with
    probability c_y / n for each of its g_y examples (c, g: predicted and gold counts), so the
    Monte Carlo null of :func:`~readout_audit.stats.permutation_null` averages to this.
    """
    predicted = np.bincount(pred, minlength=k).astype(np.float64)
    gold = np.bincount(label, minlength=k).astype(np.float64)
    return float(predicted @ gold) / float(len(label)) ** 2


@dataclass(frozen=True)
class RecoveryIntervals:
    """Paired bootstrap intervals of a held-out recovery (whole clusters resampled when given)."""

    corrected: tuple[float, float]
    """The corrected accuracy's percentile interval."""
    gain: tuple[float, float]
    """The interval of corrected − raw accuracy, raw and corrected read on the same resamples."""


def recovery_intervals(
    scores: np.ndarray,
    labels: Sequence[int] | np.ndarray,
    offsets: np.ndarray,
    *,
    clusters: Sequence[object] | None = None,
    n_boot: int = 10_000,
    seed: int = 0,
    alpha: float = 0.05,
) -> RecoveryIntervals:
    """Intervals on the corrected accuracy and the gain, from one set of resamples."""
    table = np.asarray(scores, dtype=np.float64)
    gold = _labels(table, labels)
    if clusters is not None and len(clusters) != gold.size:
        raise InputError(
            f"expected one cluster per example ({gold.size}), got {len(clusters)}",
            field="clusters",
        )
    right = {
        "raw": (corrected_predictions(table, np.zeros(table.shape[1])) == gold).astype(float),
        "corrected": (corrected_predictions(table, offsets) == gold).astype(float),
    }
    boot = paired_bootstrap(
        right,
        statistic="mean",
        n_boot=n_boot,
        alpha=alpha,
        seed=seed,
        clusters=None if clusters is None else resampling_clusters(clusters),
        pairs=[("raw", "corrected")],
    )
    corrected, gain = boot.readouts["corrected"], boot.differences["corrected - raw"]
    return RecoveryIntervals((corrected.low, corrected.high), (gain.low, gain.high))


@dataclass(frozen=True)
class Recovery:
    """Raw against corrected predictions on held-out examples."""

    n: int
    raw_accuracy: float
    corrected_accuracy: float
    raw_macro_f1: float
    corrected_macro_f1: float
    gained: int
    """Corrected right, raw wrong."""
    lost: int
    """Raw right, corrected wrong."""
    p_value: float
    """Exact McNemar test on (gained, lost), two-sided."""
    raw_histogram: tuple[int, ...]
    corrected_histogram: tuple[int, ...]
    corrected_collapse: float
    """The largest share of one label among the corrected held-out predictions (Table 18's
    "Cal. Collapse"): offsets fitted to a prior on the fit split may still collapse here."""

    @property
    def gain(self) -> int:
        """The per-example gain: gained − lost."""
        return self.gained - self.lost


def _labels(scores: np.ndarray, labels: Sequence[int] | np.ndarray) -> np.ndarray:
    gold = np.asarray(labels)
    k = scores.shape[1]
    if gold.shape != (scores.shape[0],) or not np.all((gold >= 0) & (gold < k)):
        raise InputError(
            f"labels must be one index in 0..{k - 1} per score row ({scores.shape[0]})",
            field="labels",
        )
    return gold


def evaluate_recovery(
    scores: np.ndarray, labels: Sequence[int] | np.ndarray, offsets: np.ndarray
) -> Recovery:
    """Raw argmax against the offset-corrected argmax on held-out score rows."""
    table = np.asarray(scores, dtype=np.float64)
    gold = _labels(table, labels)
    k = table.shape[1]
    raw = corrected_predictions(table, np.zeros(k))
    corrected = corrected_predictions(table, offsets)
    raw_right, corrected_right = raw == gold, corrected == gold
    gained = int(np.sum(corrected_right & ~raw_right))
    lost = int(np.sum(raw_right & ~corrected_right))
    return Recovery(
        n=int(gold.size),
        raw_accuracy=float(raw_right.mean()),
        corrected_accuracy=float(corrected_right.mean()),
        raw_macro_f1=macro_f1(raw, gold, k),
        corrected_macro_f1=macro_f1(corrected, gold, k),
        gained=gained,
        lost=lost,
        p_value=mcnemar_exact(gained, lost),
        raw_histogram=tuple(int(c) for c in np.bincount(raw, minlength=k)),
        corrected_histogram=tuple(int(c) for c in np.bincount(corrected, minlength=k)),
        corrected_collapse=float(np.bincount(corrected, minlength=k).max() / gold.size),
    )


@dataclass(frozen=True)
class BudgetRow:
    """Held-out accuracy of offsets fitted on subsamples of one size."""

    budget: int
    accuracies: tuple[float, ...]
    """One per subsample, in subsample order."""
    raw_accuracy: float
    macro_f1s: tuple[float, ...] = ()
    """Each subsample's held-out macro-F1."""
    null_gaps: tuple[float, ...] = ()
    """Each subsample's accuracy minus its count-preserving null mean (:func:`null_accuracy`)."""

    @property
    def mean(self) -> float:
        """Mean corrected accuracy over the subsamples."""
        return float(np.mean(self.accuracies))

    @property
    def sd(self) -> float:
        """Sample standard deviation over the subsamples (0 for one)."""
        return float(np.std(self.accuracies, ddof=1)) if len(self.accuracies) > 1 else 0.0

    @property
    def n_positive(self) -> int:
        """Subsamples whose corrected accuracy beats the raw accuracy."""
        return sum(a > self.raw_accuracy for a in self.accuracies)

    @property
    def macro_f1(self) -> float:
        """Mean held-out macro-F1 over the subsamples."""
        return float(np.mean(self.macro_f1s))

    @property
    def null_gap(self) -> float:
        """Mean observed − null accuracy over the subsamples."""
        return float(np.mean(self.null_gaps))


def subsample(n_fit: int, budget: int, repeat: int, seed: int) -> np.ndarray:
    """Row indices of one deterministic subsample, drawn from ``[seed, budget, repeat]`` alone.

    Each subsample has its own generator, so a budget or repeat gives the same rows whatever
    else is run; the whole fit set is used when the budget covers it.
    """
    if budget >= n_fit:
        return np.arange(n_fit)
    rng = np.random.default_rng([seed, budget, repeat])
    return np.sort(rng.choice(n_fit, size=budget, replace=False))


def budget_curve(
    fit_scores: np.ndarray,
    eval_scores: np.ndarray,
    eval_labels: Sequence[int] | np.ndarray,
    *,
    budgets: Sequence[int] = BUDGETS,
    repeats: int = REPEATS,
    seed: int = 0,
    prior: np.ndarray | None = None,
    reference: int | None = None,
    grid: OffsetGrid | None = None,
) -> list[BudgetRow]:
    """Offsets refitted on ``repeats`` subsamples per budget, each judged on the held-out split.

    A budget at or above the fit set's size is the full fit (one fit, as the paper's 0.000 sd).
    """
    fit_table = np.asarray(fit_scores, dtype=np.float64)
    eval_table = np.asarray(eval_scores, dtype=np.float64)
    gold = _labels(eval_table, eval_labels)
    k = eval_table.shape[1]
    raw = float(np.mean(corrected_predictions(eval_table, np.zeros(k)) == gold))
    rows = []
    for budget in budgets:
        if budget < 1:
            raise InputError(f"a fit budget must be at least 1, got {budget}", field="budgets")
        draws = 1 if budget >= len(fit_table) else repeats
        accuracies, f1s, gaps = [], [], []
        for repeat in range(draws):
            rows_used = subsample(len(fit_table), budget, repeat, seed)
            fit = fit_offsets(fit_table[rows_used], prior, reference=reference, grid=grid)
            predicted = corrected_predictions(eval_table, fit.offsets)
            accuracies.append(float(np.mean(predicted == gold)))
            f1s.append(macro_f1(predicted, gold, k))
            gaps.append(accuracies[-1] - null_accuracy(predicted, gold, k))
        rows.append(BudgetRow(budget, tuple(accuracies), raw, tuple(f1s), tuple(gaps)))
    return rows
