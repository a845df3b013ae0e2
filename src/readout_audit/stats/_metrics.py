"""Point metrics: AUC, Brier score, accuracy, and the yes/no classification scores."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from readout_audit.stats._validate import (
    as_binary_array,
    as_float_array,
    check_probability,
    same_length,
)


def weighted_auc(scores: np.ndarray, labels: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """AUC under each row of item weights (bootstrap counts), vectorised over rows.

    AUC = Σ_{i∈pos} Σ_{j∈neg} w_i w_j ([s_i > s_j] + ½[s_i = s_j]) / (Σ_pos w · Σ_neg w).
    Scores are sorted once; tied scores form groups, so each row costs O(n).
    Rows without both classes give NaN.
    """
    order = np.argsort(scores, kind="mergesort")
    sorted_scores = scores[order]
    starts = np.flatnonzero(np.r_[True, sorted_scores[1:] != sorted_scores[:-1]])
    w = np.atleast_2d(weights)[:, order]
    positive = labels[order]
    pos = np.add.reduceat(w * positive, starts, axis=1)
    neg = np.add.reduceat(w * ~positive, starts, axis=1)
    below = np.cumsum(neg, axis=1) - neg
    numerator = (pos * (below + 0.5 * neg)).sum(axis=1)
    denominator = pos.sum(axis=1) * neg.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, numerator / denominator, np.nan)


def auc(scores: object, labels: object) -> float:
    """Area under the ROC curve; tied scores count one half.

    AUC = P(s⁺ > s⁻) + ½ P(s⁺ = s⁻) over all positive–negative pairs (Mann–Whitney U / n⁺n⁻),
    equal to scikit-learn's ``roc_auc_score``.
    """
    s = as_float_array(scores, "scores")
    y = as_binary_array(labels, "labels")
    same_length(scores=s, labels=y)
    if y.all() or not y.any():
        raise ValueError(
            f"Expected `labels` to hold both classes, but got only {'1' if y.all() else '0'}s"
        )
    return float(weighted_auc(s, y, np.ones((1, s.size)))[0])


def brier(probs: object, labels: object) -> float:
    """Brier score: mean squared error of probabilities against 0/1 outcomes, Σ(p_i − y_i)²/n."""
    p = check_probability(probs, "probs")
    y = as_binary_array(labels, "labels")
    same_length(probs=p, labels=y)
    return float(np.mean((p - y) ** 2))


def accuracy(pred: object, label: object) -> float:
    """Fraction of items whose prediction equals the label, Σ[pred_i = label_i]/n."""
    p, y = np.asarray(pred), np.asarray(label)
    if p.ndim != 1 or p.size == 0:
        raise ValueError(f"Expected `pred` to be a non-empty 1-D array, but got shape {p.shape}")
    same_length(pred=p, label=y)
    return float(np.mean(p == y))


@dataclass(frozen=True)
class BinaryScores:
    """Confusion counts and scores of a yes/no readout; "yes" (1) is the positive class."""

    tp: int
    fp: int
    fn: int
    tn: int
    precision: float
    recall: float
    f1: float
    yes_rate: float
    accuracy: float

    @property
    def n(self) -> int:
        """Number of items."""
        return self.tp + self.fp + self.fn + self.tn


def binary_scores(pred: object, label: object) -> BinaryScores:
    """Precision TP/(TP+FP), recall TP/(TP+FN), F1 2TP/(2TP+FP+FN), yes-rate, accuracy.

    A ratio whose denominator is zero is reported as 0 (scikit-learn's ``zero_division=0``).
    """
    p = as_binary_array(pred, "pred")
    y = as_binary_array(label, "label")
    same_length(pred=p, label=y)
    tp, fp = int(np.sum(p & y)), int(np.sum(p & ~y))
    fn, tn = int(np.sum(~p & y)), int(np.sum(~p & ~y))

    def ratio(a: int, b: int) -> float:
        return a / b if b else 0.0

    return BinaryScores(
        tp=tp,
        fp=fp,
        fn=fn,
        tn=tn,
        precision=ratio(tp, tp + fp),
        recall=ratio(tp, tp + fn),
        f1=ratio(2 * tp, 2 * tp + fp + fn),
        yes_rate=(tp + fp) / p.size,
        accuracy=(tp + tn) / p.size,
    )
