"""Point metrics against scikit-learn on randomized inputs, and their input checks."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import brier_score_loss, f1_score, precision_score, recall_score, roc_auc_score

from readout_audit.stats import accuracy, auc, binary_scores, brier


@pytest.mark.parametrize("seed", range(8))
def test_auc_equals_sklearn_with_and_without_ties(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 300))
    labels = rng.integers(0, 2, n)
    labels[:2] = [0, 1]
    scores = rng.normal(size=n) + labels
    tied = np.round(scores * 2) / 2  # many ties, which count one half
    for s in (scores, tied):
        assert auc(s, labels) == pytest.approx(roc_auc_score(labels, s), abs=1e-12)


def test_auc_hand_worked():
    # pairs (pos, neg): (0.8, 0.1) win, (0.8, 0.8) tie, (0.4, 0.1) win, (0.4, 0.8) loss
    assert auc([0.8, 0.4, 0.1, 0.8], [1, 1, 0, 0]) == pytest.approx(2.5 / 4)


@pytest.mark.parametrize("seed", range(5))
def test_brier_accuracy_and_binary_scores_equal_sklearn(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 400))
    labels = rng.integers(0, 2, n)
    probs = rng.random(n)
    pred = rng.integers(0, 2, n)
    assert brier(probs, labels) == pytest.approx(brier_score_loss(labels, probs), abs=1e-12)
    scores = binary_scores(pred, labels)
    kwargs = {"zero_division": 0}
    assert scores.precision == pytest.approx(precision_score(labels, pred, **kwargs), abs=1e-12)
    assert scores.recall == pytest.approx(recall_score(labels, pred, **kwargs), abs=1e-12)
    assert scores.f1 == pytest.approx(f1_score(labels, pred, **kwargs), abs=1e-12)
    assert scores.yes_rate == pytest.approx(pred.mean(), abs=1e-12)
    assert scores.accuracy == pytest.approx(accuracy(pred, labels), abs=1e-12)
    assert scores.n == n


def test_binary_scores_printed_in_seed_002():
    # Adversarial split, eight-token rule: TP 1174, TN 1318, FP 182, FN 326 (Table 13).
    pred = np.r_[np.ones(1174), np.zeros(326), np.ones(182), np.zeros(1318)]
    label = np.r_[np.ones(1500), np.zeros(1500)]
    s = binary_scores(pred, label)
    assert (round(s.f1, 4), round(s.precision, 4), round(s.recall, 4), round(s.yes_rate, 3)) == (
        0.8221,
        0.8658,
        0.7827,
        0.452,
    )


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: auc([0.1, 0.2], [1, 0, 1]), "equal length"),
        (lambda: auc([0.1, 0.2], [1, 1]), "both classes"),
        (lambda: auc([0.1, float("nan")], [1, 0]), "finite"),
        (lambda: auc([], []), "non-empty"),
        (lambda: brier([0.5, 1.5], [1, 0]), r"in \[0, 1\]"),
        (lambda: brier([0.5, 0.5], [1, 2]), "0/1"),
        (lambda: binary_scores([1, 0], [1]), "equal length"),
        (lambda: accuracy([], []), "non-empty"),
    ],
)
def test_invalid_input_says_what_was_expected(call, message):
    with pytest.raises(ValueError, match=message) as error:
        call()
    assert "Expected" in str(error.value)
