"""The recovery audit's added statistics against independent computations.

The null mean against every permutation of a small split, the clustered intervals against the
item bootstrap they reduce to, the fit budgets' macro-F1 and null gaps against scikit-learn and
a refit per subsample, prior radii against separate lattices, depth strata and seed aggregates
by hand.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.stats import bootstrap
from sklearn.metrics import f1_score

from readout_audit._exceptions import InputError
from readout_audit.recover import (
    OffsetGrid,
    budget_curve,
    corrected_predictions,
    depth_strata,
    fit_offsets,
    null_accuracy,
    prior_sensitivity,
    recovery_intervals,
    seed_aggregates,
    seeded_name,
    subsample,
)
from readout_audit.recover._summary import (
    NullResult,
    PriorResult,
    RecoveryResult,
    SliceResult,
    SplitResult,
)
from readout_audit.stats import permutation_null

GRID = OffsetGrid(-4.0, 4.0, 0.1)


def _collapsed(rng, gold, bias=(0.0, 0.4, 2.0), signal=1.2):
    """Scores whose argmax a label-level shift collapses, with some per-example signal."""
    return rng.normal(size=(gold.size, 3)) * 0.6 + np.eye(3)[gold] * signal + np.array(bias)


def test_null_mean_is_the_average_over_every_permutation():
    pred, gold = np.array([0, 0, 1, 2, 2, 2]), np.array([0, 1, 1, 2, 0, 2])
    brute = np.mean(
        [np.mean(pred[list(order)] == gold) for order in itertools.permutations(range(6))]
    )
    assert null_accuracy(pred, gold, 3) == pytest.approx(brute, abs=1e-12)
    mc = permutation_null(pred, gold, n_perm=20_000, seed=1)
    assert mc.null_mean == pytest.approx(null_accuracy(pred, gold, 3), abs=0.005)


def test_intervals_match_scipys_bootstrap_and_cluster_duplicates_collapse_to_items():
    rng = np.random.default_rng(0)
    gold = rng.integers(0, 3, 400)
    scores = _collapsed(rng, gold)
    offsets = fit_offsets(_collapsed(rng, rng.integers(0, 3, 300)), grid=GRID).offsets
    found = recovery_intervals(scores, gold, offsets, n_boot=20_000, seed=3)
    raw = corrected_predictions(scores, np.zeros(3)) == gold
    right = corrected_predictions(scores, offsets) == gold
    reference = bootstrap(
        (right.astype(float),), np.mean, n_resamples=20_000, method="percentile", random_state=5
    ).confidence_interval
    assert found.corrected == pytest.approx((reference.low, reference.high), abs=0.006)
    gain = bootstrap(
        (raw.astype(float), right.astype(float)),
        lambda a, b: np.mean(b) - np.mean(a),
        paired=True,
        n_resamples=20_000,
        method="percentile",
        random_state=5,
    ).confidence_interval
    assert found.gain == pytest.approx((gain.low, gain.high), abs=0.006)
    assert found.gain[0] < right.mean() - raw.mean() < found.gain[1]
    # each example twice, both copies in one cluster: the cluster bootstrap draws the originals
    twice = recovery_intervals(
        np.repeat(scores, 2, axis=0),
        np.repeat(gold, 2),
        offsets,
        clusters=[f"c{i}" for i in np.repeat(np.arange(gold.size), 2)],
        n_boot=20_000,
        seed=3,
    )
    assert twice.corrected == pytest.approx(found.corrected, abs=1e-12)
    assert twice.gain == pytest.approx(found.gain, abs=1e-12)
    with pytest.raises(InputError, match="one cluster per example"):
        recovery_intervals(scores, gold, offsets, clusters=["a"], n_boot=100)


def test_budget_macro_f1_and_null_gaps_refit_by_hand():
    rng = np.random.default_rng(4)
    fit_scores = _collapsed(rng, rng.integers(0, 3, 120))
    gold = rng.integers(0, 3, 90)
    scores = _collapsed(rng, gold)
    rows = budget_curve(fit_scores, scores, gold, budgets=(25, 120), repeats=4, seed=2, grid=GRID)
    for row in rows:
        f1s, gaps = [], []
        for repeat in range(len(row.accuracies)):
            used = subsample(len(fit_scores), row.budget, repeat, 2)
            pred = corrected_predictions(scores, fit_offsets(fit_scores[used], grid=GRID).offsets)
            f1s.append(f1_score(gold, pred, average="macro", labels=[0, 1, 2], zero_division=0))
            counts = [(np.sum(pred == y), np.sum(gold == y)) for y in range(3)]
            gaps.append(np.mean(pred == gold) - sum(c * g for c, g in counts) / gold.size**2)
        assert row.macro_f1s == pytest.approx(f1s, abs=1e-12)
        assert row.null_gaps == pytest.approx(gaps, abs=1e-12)
        assert row.macro_f1 == pytest.approx(np.mean(f1s), abs=1e-12)
        assert row.null_gap == pytest.approx(np.mean(gaps), abs=1e-12)
    assert [len(r.accuracies) for r in rows] == [4, 1]


def test_each_radius_and_a_slice_reuse_the_widest_fits():
    rng = np.random.default_rng(6)
    fit_scores = _collapsed(rng, rng.integers(0, 3, 150))
    gold = rng.integers(0, 3, 120)
    scores = _collapsed(rng, gold)
    widest = prior_sensitivity(fit_scores, scores, gold, grid=GRID)
    for radius, count in ((0.025, 7), (0.05, 19), (0.10, 61)):
        within = widest.within(radius)
        alone = prior_sensitivity(fit_scores, scores, gold, radius=radius, grid=GRID)
        assert within.n_priors == count
        np.testing.assert_array_equal(within.priors, alone.priors)
        np.testing.assert_array_equal(within.offsets, alone.offsets)
        assert (within.worst_accuracy, within.median_accuracy, within.worst_macro_f1) == (
            alone.worst_accuracy,
            alone.median_accuracy,
            alone.worst_macro_f1,
        )
    rows = np.flatnonzero(np.arange(gold.size) % 3 == 0)
    sliced = widest.judged_on(scores[rows], gold[rows])
    again = prior_sensitivity(fit_scores, scores[rows], gold[rows], grid=GRID)
    np.testing.assert_array_equal(sliced.accuracies, again.accuracies)
    assert sliced.raw_accuracy == again.raw_accuracy


def test_depth_strata_by_hand():
    correct = {"a": np.array([1, 0, 1, 1, 0.5]), "b": np.array([0, 0, 1, 0, 1.0])}
    rows = depth_strata(correct, [2, 1, 2, None, 1])
    assert [(r.depth, r.n) for r in rows] == [(1, 2), (2, 2)]
    assert rows[0].accuracies == {"a": 0.25, "b": 0.5}
    assert rows[1].accuracies == {"a": 1.0, "b": 0.5}
    assert depth_strata(correct, [None] * 5) == []
    with pytest.raises(InputError, match="one value per example"):
        depth_strata({"a": np.ones(3)}, [1, 2])


def _recovery(raw, corrected, f1):
    return RecoveryResult(
        n=100,
        raw_accuracy=raw,
        corrected_accuracy=corrected,
        raw_macro_f1=0.2,
        corrected_macro_f1=f1,
        gained=0,
        lost=0,
        p_value=1.0,
        raw_histogram=[0, 0, 100],
        corrected_histogram=[30, 30, 40],
    )


def _null(gap, mean, p):
    return NullResult(
        observed=mean + gap,
        null_mean=mean,
        null_low=0,
        null_high=1,
        gap=gap,
        p_value=p,
        n_perm=100,
        counts=[],
        edges=[],
    )


def _split(name, raw, corrected, f1, gap, missed):
    prior = PriorResult(
        n=missed,
        raw_accuracy=raw,
        n_priors=61,
        radius=0.1,
        step=0.025,
        worst_accuracy=corrected - 0.05,
        median_accuracy=corrected,
        worst_gain=corrected - 0.05 - raw,
        worst_macro_f1=f1 - 0.1,
    )
    return SplitResult(
        split=name,
        n=100,
        gold_histogram=[34, 33, 33],
        readouts=[],
        gaps=[],
        recovery=_recovery(raw, corrected, f1),
        recovery_mean=_recovery(raw, corrected, f1),
        null=_null(gap, 0.33, 0.01),
        budgets=[],
        tfidf=SliceResult(
            tfidf_accuracy=0.4,
            n_missed=missed,
            recovery=_recovery(raw, corrected + 0.01, f1),
            null=_null(gap / 2, 0.3, 0.02 * missed / 60),
            budgets=[],
            priors=[prior],
        ),
    )


def test_seed_aggregates_by_hand():
    splits = [
        _split("id", 0.3, 0.5, 0.45, 0.1, 60),
        _split("lexical@52", 0.3, 0.4, 0.35, 0.05, 60),
        _split("lexical@62", 0.4, 0.6, 0.55, 0.15, 70),
        _split("depth@52", 0.3, 0.4, 0.35, 0.05, 60),  # one seed: no aggregate
    ]
    (row,) = seed_aggregates(splits)
    assert (row.split, row.seeds, row.n) == ("lexical", [52, 62], [100, 100])
    assert row.raw == pytest.approx((0.35, np.std([0.3, 0.4], ddof=1)))
    assert row.corrected == pytest.approx((0.5, np.std([0.4, 0.6], ddof=1)))
    assert row.min_gain == pytest.approx(0.1)
    assert (row.null_gap, row.macro_f1) == pytest.approx((0.1, 0.45))
    assert row.tfidf_n == pytest.approx((65, np.std([60, 70], ddof=1)))
    assert row.tfidf_corrected == pytest.approx((0.51, np.std([0.41, 0.61], ddof=1)))
    assert row.tfidf_null_gap == pytest.approx(0.05) and row.tfidf_null_accuracy == 0.3
    assert row.tfidf_p_max == pytest.approx(0.02 * 70 / 60)
    assert row.tfidf_worst_prior == pytest.approx(0.35)
    assert row.tfidf_median_prior == pytest.approx(0.5)
    assert row.tfidf_worst_prior_gain == pytest.approx(0.05)
    assert seeded_name("lexical@52") == ("lexical", 52)
    assert seeded_name("a@b@7") == ("a@b", 7)
    assert seeded_name("lexical") is None and seeded_name("lexical@") is None
