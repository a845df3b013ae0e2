"""Resampling: vectorised replicates against naive loops, scikit-learn and statsmodels."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats
import statsmodels.api as sm
from sklearn.metrics import roc_auc_score

from readout_audit.stats import (
    bootstrap_ci,
    centered_bootstrap_pvalue,
    cluster_bootstrap,
    cluster_se,
    paired_bootstrap,
    stratified_bootstrap,
)
from readout_audit.stats._bootstrap import evaluate
from readout_audit.stats._resample import item_weights


@pytest.fixture
def data():
    rng = np.random.default_rng(7)
    n = 120
    labels = rng.integers(0, 2, n)
    labels[:2] = [0, 1]
    clusters = rng.integers(0, 30, n)
    return {
        "labels": labels,
        "clusters": clusters,
        "a": np.round(rng.random(n) * 0.6 + 0.2 * labels, 2),
        "b": rng.random(n) * 0.5 + 0.4 * labels,
    }


def test_weighted_replicates_equal_a_naive_resample(data):
    weights = item_weights(len(data["labels"]), 50, seed=3, clusters=data["clusters"])
    index = np.arange(len(data["labels"]))
    auc = evaluate("auc", [data["a"], data["labels"].astype(bool)], weights)
    brier = evaluate("brier", [data["b"], data["labels"].astype(bool)], weights)
    for row, w in enumerate(weights):
        sample = np.repeat(index, w.astype(int))
        y = data["labels"][sample]
        assert auc[row] == pytest.approx(roc_auc_score(y, data["a"][sample]), abs=1e-12)
        assert auc[row] == pytest.approx(
            roc_auc_score(data["labels"], data["a"], sample_weight=w), abs=1e-12
        )
        assert brier[row] == pytest.approx(np.mean((data["b"][sample] - y) ** 2), abs=1e-12)
        # whole clusters: every item of a cluster has its cluster's weight
        for cluster in np.unique(data["clusters"]):
            assert len(set(w[data["clusters"] == cluster])) == 1


def test_percentile_interval_matches_scipy(data):
    values = data["b"]
    ours = bootstrap_ci(values, n_boot=20_000, seed=1)
    theirs = scipy.stats.bootstrap(
        (values,), np.mean, n_resamples=20_000, method="percentile", rng=np.random.default_rng(1)
    ).confidence_interval
    se = values.std() / np.sqrt(values.size)
    assert ours.estimate == pytest.approx(values.mean())
    assert abs(ours.low - theirs.low) < 0.1 * se and abs(ours.high - theirs.high) < 0.1 * se
    assert ours.replicates.std() == pytest.approx(se, rel=0.05)
    again = bootstrap_ci(values, n_boot=20_000, seed=1)
    assert (again.low, again.high) == (ours.low, ours.high)  # seeded


def test_callable_statistic_equals_named_statistic(data):
    named = bootstrap_ci(data["b"], statistic="mean", n_boot=200, seed=4)
    custom = bootstrap_ci(data["b"], statistic=np.mean, n_boot=200, seed=4)
    np.testing.assert_allclose(named.replicates, custom.replicates, rtol=1e-12)


def test_paired_cluster_bootstrap_keeps_the_pairing(data):
    result = paired_bootstrap(
        {"a": data["a"], "b": data["b"]},
        data["labels"],
        statistic="auc",
        clusters=data["clusters"],
        n_boot=2_000,
        seed=5,
    )
    a, b = result.readouts["a"], result.readouts["b"]
    diff = result.differences["b - a"]
    assert a.estimate == pytest.approx(roc_auc_score(data["labels"], data["a"]))
    assert diff.estimate == pytest.approx(b.estimate - a.estimate)
    np.testing.assert_allclose(diff.replicates, b.replicates - a.replicates)
    alone = cluster_bootstrap(
        data["a"], data["labels"], clusters=data["clusters"], statistic="auc", n_boot=2_000, seed=5
    )
    np.testing.assert_allclose(alone.replicates, a.replicates)  # same seed, same replicates
    # Pairing shrinks the spread of the difference below that of independent replicates.
    independent = np.std(b.replicates - np.random.default_rng(0).permutation(a.replicates))
    assert np.std(diff.replicates) < independent


def test_stratified_bootstrap_fixed_weights(data):
    rng = np.random.default_rng(11)
    t = rng.choice([-2, -1, 0, 1, 2], size=200, p=[0.05, 0.1, 0.5, 0.25, 0.1]).astype(float)
    strata = np.r_[np.full(150, "DROP"), np.full(50, "HaluEval")]
    result = stratified_bootstrap(t, strata, {"DROP": 0.7, "HaluEval": 0.3}, n_boot=20_000, seed=2)
    assert result.estimate == pytest.approx(0.7 * t[:150].mean() + 0.3 * t[150:].mean())
    assert result.estimate != pytest.approx(t.mean())  # not the pooled mean
    expected_se = np.sqrt(0.49 * t[:150].var() / 150 + 0.09 * t[150:].var() / 50)
    assert result.replicates.std() == pytest.approx(expected_se, rel=0.05)
    with pytest.raises(ValueError, match="weight for every stratum"):
        stratified_bootstrap(t, strata, {"DROP": 1.0}, n_boot=10)


def test_centered_pvalue_floor_and_hand_worked_value():
    assert centered_bootstrap_pvalue(0.0, np.zeros(49_999)) == 1.0
    # A constant nonzero sample has no variance to test with: hence the Hoeffding fallback.
    assert centered_bootstrap_pvalue(0.5, np.full(49_999, 0.5)) == 1 / 50_000
    far = np.random.default_rng(0).normal(0.4, 0.01, 49_999)
    assert centered_bootstrap_pvalue(0.4, far) == 1 / 50_000  # the finite-simulation floor
    # replicates centred on T = 1: |T*-T| = [0, .5, 1, 1.5, 2]; hits with >= |T| = 1: three
    assert centered_bootstrap_pvalue(1.0, [1.0, 1.5, 2.0, 2.5, 3.0]) == pytest.approx(4 / 6)
    assert centered_bootstrap_pvalue(1.0, [1.0, 1.5, 2.0 - 1e-13, 2.5, 3.0]) == pytest.approx(4 / 6)


@pytest.mark.parametrize("seed", range(4))
def test_cluster_se_equals_statsmodels(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(30, 300))
    clusters = rng.integers(0, int(rng.integers(3, 40)), n)
    values = rng.normal(size=n) + 0.3 * clusters
    fit = sm.OLS(values, np.ones((n, 1))).fit(cov_type="cluster", cov_kwds={"groups": clusters})
    assert cluster_se(values, clusters) == pytest.approx(fit.bse[0], rel=1e-10)
    # One item per cluster, no correction: the ordinary (1/n) plug-in SE.
    singletons = cluster_se(values, np.arange(n), small_sample=False)
    assert singletons == pytest.approx(values.std() / np.sqrt(n), rel=1e-10)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: bootstrap_ci([1.0, 2.0], n_boot=0), "replicates"),
        (lambda: bootstrap_ci([], n_boot=10), "non-empty"),
        (lambda: bootstrap_ci([1.0, np.nan]), "finite"),
        (lambda: bootstrap_ci([1.0, 2.0], alpha=1.5), "alpha"),
        (lambda: bootstrap_ci([1.0, 2.0], statistic="median"), "statistic"),
        (lambda: bootstrap_ci([0.2, 0.4], [1, 0, 1], statistic="auc"), "equal length"),
        (lambda: cluster_bootstrap([1.0, 2.0], clusters=[1]), "one label per item"),
        (lambda: paired_bootstrap({}, None), "at least one readout"),
        (lambda: cluster_se([1.0, 2.0], [0, 0]), "at least 2 clusters"),
    ],
)
def test_invalid_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_binary_scores_bootstrap_equals_scikit_learn_on_each_resample(data):
    """The vectorised yes/no intervals equal metrics recomputed on explicit resamples."""
    from sklearn.metrics import accuracy_score, f1_score, precision_score, recall_score

    from readout_audit.stats import binary_scores_bootstrap

    rng = np.random.default_rng(5)
    pred = rng.integers(0, 2, data["labels"].size)
    intervals = binary_scores_bootstrap(
        pred, data["labels"], n_boot=300, seed=4, clusters=data["clusters"]
    )
    weights = item_weights(pred.size, 300, 4, data["clusters"])
    for row, w in enumerate(weights[:25]):
        index = np.repeat(np.arange(pred.size), w.astype(int))
        p, y = pred[index], data["labels"][index]
        expected = {
            "f1": f1_score(y, p, zero_division=0),
            "precision": precision_score(y, p, zero_division=0),
            "recall": recall_score(y, p, zero_division=0),
            "accuracy": accuracy_score(y, p),
            "yes_rate": p.mean(),
        }
        for name, value in expected.items():
            assert intervals[name].replicates[row] == pytest.approx(value, abs=1e-12)
    assert intervals["f1"].estimate == pytest.approx(f1_score(data["labels"], pred))
    for interval in intervals.values():
        assert interval.low <= interval.estimate <= interval.high and interval.n_boot == 300


def test_one_cluster_falls_back_to_resampling_items(data):
    from readout_audit.stats import resampling_clusters

    assert resampling_clusters(["x"] * 5) is None
    assert resampling_clusters(["x", "y", "x"]) == ["x", "y", "x"]
    one = bootstrap_ci(data["a"], clusters=["x"] * data["a"].size, n_boot=200)
    assert one.low == one.high  # what a single cluster gives: no variation at all
    fallback = bootstrap_ci(
        data["a"], clusters=resampling_clusters(["x"] * data["a"].size), n_boot=200
    )
    assert fallback.low < fallback.estimate < fallback.high
