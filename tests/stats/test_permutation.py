"""The count-preserving permutation null of an accuracy gain (seed 003)."""

from __future__ import annotations

import numpy as np
import pytest

from readout_audit.stats import permutation_null


def _balanced(n_correct: int, seed: int = 0):
    """1000 items, gold 333/333/334; predictions with the same counts, n_correct right."""
    rng = np.random.default_rng(seed)
    gold = np.repeat([0, 1, 2], [333, 333, 334])
    pred = gold.copy()
    per_class, rest = divmod(1000 - n_correct, 3)
    assert rest in (0, 2)
    for c in range(3):  # rotate k items of every class to the next class: counts unchanged
        chosen = rng.choice(np.flatnonzero(gold == c), per_class, replace=False)
        pred[chosen] = (c + 1) % 3
    if rest:  # one swap between two still-correct items of different classes
        i = np.flatnonzero((gold == 0) & (pred == 0))[0]
        j = np.flatnonzero((gold == 1) & (pred == 1))[0]
        pred[i], pred[j] = pred[j], pred[i]
    order = rng.permutation(1000)
    return pred[order], gold[order]


def test_predictions_keep_their_label_counts_and_the_null_mean_is_exact():
    pred, gold = _balanced(644)
    result = permutation_null(pred, gold, n_perm=4_000, seed=1)
    counts_pred, counts_gold = np.bincount(pred), np.bincount(gold)
    expected_null = float(counts_pred @ counts_gold) / 1000**2
    assert result.null_mean == pytest.approx(expected_null, abs=0.002)
    assert result.gap == pytest.approx(result.observed - result.null_mean)


def test_values_printed_in_seed_003():
    # Table 30: Qwen3.5-4B 0.644, null 0.333 [0.304, 0.363], gap +0.311, p 0.0001 (B = 9,999).
    pred, gold = _balanced(644)
    assert np.mean(pred == gold) == 0.644
    assert (np.bincount(pred) == np.bincount(gold)).all()
    result = permutation_null(pred, gold, n_perm=9_999, seed=0)
    assert result.p_value == pytest.approx(1e-4)
    assert round(result.null_mean, 3) in (0.333, 0.334)
    assert abs(result.null_low - 0.305) <= 0.002 and abs(result.null_high - 0.362) <= 0.002
    assert round(result.gap, 2) == 0.31
    # Pythia-12B: 0.335 -> p 0.4625; the one-sided p counts ties (>=).
    weak = permutation_null(*_balanced(335, seed=2), n_perm=9_999, seed=0)
    assert abs(weak.p_value - 0.4625) < 0.02


def test_permutation_input_checks():
    with pytest.raises(ValueError, match="equal length"):
        permutation_null([1, 2], [1])
    with pytest.raises(ValueError, match="replicates"):
        permutation_null([1, 2], [1, 2], n_perm=0)
