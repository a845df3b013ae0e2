"""Held-out evaluation of frozen offsets: gains, exact test, macro-F1, the fit-budget curve."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binomtest
from sklearn.metrics import f1_score

from readout_audit._exceptions import InputError
from readout_audit.recover import (
    OffsetGrid,
    budget_curve,
    evaluate_recovery,
    fit_offsets,
    macro_f1,
    subsample,
)

HELD_OUT = np.array(
    [
        [-1.0, -3.0, 0.0],  # gold false: raw unknown (wrong), corrected false (right)
        [-3.0, -1.1, 0.0],  # gold true: raw wrong, corrected right
        [-3.0, -3.0, 0.0],  # gold unknown: both right
        [-1.1, -3.0, 0.0],  # gold unknown: raw right, corrected false (wrong)
        [-2.0, -1.0, 0.0],  # gold false: raw wrong, corrected true (wrong)
    ]
)
GOLD = [0, 1, 2, 2, 0]


def test_gains_and_histograms_worked_by_hand():
    result = evaluate_recovery(HELD_OUT, GOLD, np.array([1.25, 1.25, 0.0]))
    assert (result.gained, result.lost, result.gain) == (2, 1, 1)
    assert result.raw_accuracy == pytest.approx(2 / 5)
    assert result.corrected_accuracy == pytest.approx(3 / 5)
    assert result.raw_histogram == (0, 0, 5) and result.corrected_histogram == (2, 2, 1)
    assert result.corrected_collapse == pytest.approx(2 / 5)  # Table 18's "Cal. Collapse"
    assert result.p_value == pytest.approx(binomtest(2, 3, 0.5).pvalue)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_macro_f1_equals_scikit_learn(seed):
    rng = np.random.default_rng(seed)
    pred, label = rng.integers(0, 3, 60), rng.integers(0, 3, 60)
    pred[pred == 2] = 0  # a label never predicted
    expected = f1_score(label, pred, average="macro", labels=[0, 1, 2], zero_division=0)
    assert macro_f1(pred, label, 3) == pytest.approx(expected, abs=1e-12)


def test_budget_curve_is_deterministic_and_uses_disjoint_subsamples():
    rng = np.random.default_rng(7)
    gold_fit, gold_eval = rng.integers(0, 3, 300), rng.integers(0, 3, 200)
    bias = np.array([0.0, 0.3, 2.5])  # a label-level shift that collapses the raw argmax

    def scores(gold):
        return rng.normal(size=(gold.size, 3)) * 0.5 + np.eye(3)[gold] * 1.5 + bias

    fit_scores, eval_scores = scores(gold_fit), scores(gold_eval)
    grid = OffsetGrid(-5.0, 5.0, 0.1)
    kwargs = {"budgets": (25, 100, 300), "repeats": 5, "seed": 3, "grid": grid}
    curve = budget_curve(fit_scores, eval_scores, gold_eval, **kwargs)
    assert curve == budget_curve(fit_scores, eval_scores, gold_eval, **kwargs)
    assert [len(r.accuracies) for r in curve] == [5, 5, 1]  # the full budget is one fit
    full = evaluate_recovery(eval_scores, gold_eval, fit_offsets(fit_scores, grid=grid).offsets)
    assert curve[-1].accuracies == (full.corrected_accuracy,)
    assert curve[-1].raw_accuracy == pytest.approx(full.raw_accuracy)
    assert full.corrected_accuracy > full.raw_accuracy and curve[0].n_positive == 5
    first = subsample(300, 25, 0, 3)
    assert np.array_equal(first, subsample(300, 25, 0, 3)) and len(set(first)) == 25
    assert not np.array_equal(first, subsample(300, 25, 1, 3))
    assert curve[0].sd == pytest.approx(np.std(curve[0].accuracies, ddof=1))


def test_bad_labels_are_named():
    with pytest.raises(InputError, match="labels"):
        evaluate_recovery(HELD_OUT, [0, 1, 2], np.zeros(3))
    with pytest.raises(InputError, match="labels"):
        evaluate_recovery(HELD_OUT, [0, 1, 2, 3, 0], np.zeros(3))
