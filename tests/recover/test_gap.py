"""The readout-gap table against hand-worked values, direct resampling and scipy."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats

from readout_audit._exceptions import InputError
from readout_audit.recover import readout_gap


def collapsed_and_probe(n: int = 1000, seed: int = 3) -> dict[str, np.ndarray]:
    """A string score at chance and a three-seed probe at ~0.8, on the same examples."""
    rng = np.random.default_rng(seed)
    probe = (rng.random((3, n)) < 0.8).mean(axis=0)  # correctness averaged over three seeds
    return {"probe": probe, "string": (rng.random(n) < 1 / 3).astype(float)}


def test_hand_worked_difference():
    correct = {"probe": [1, 2 / 3, 1 / 3, 0], "logits": [1, 1, 0, 0], "string": [0, 1, 0, 0]}
    rows = readout_gap(correct, [("probe", "string"), ("logits", "string")], n_boot=200)
    assert [(r.a, r.b) for r in rows] == [("probe", "string"), ("logits", "string")]
    assert rows[0].difference == pytest.approx(0.5 - 0.25, abs=1e-15)
    assert rows[1].difference == 0.25 and rows[1].low <= 0.25 <= rows[1].high


def test_interval_and_p_value_equal_direct_resampling():
    correct, n_boot, seed = collapsed_and_probe(200), 2000, 11
    row = readout_gap(correct, [("probe", "string")], n_boot=n_boot, seed=seed)[0]
    index = np.random.default_rng(seed).integers(0, 200, size=(n_boot, 200))
    replicates = correct["probe"][index].mean(axis=1) - correct["string"][index].mean(axis=1)
    observed = correct["probe"].mean() - correct["string"].mean()
    low, high = np.quantile(replicates, [0.025, 0.975])
    hits = np.sum(np.abs(replicates - observed) >= abs(observed) - 1e-12)
    assert (row.a, row.b) == ("probe", "string")
    assert (row.difference, row.low, row.high, row.p_value) == pytest.approx(
        (observed, low, high, (1 + hits) / (n_boot + 1)), abs=1e-12
    )


def test_interval_agrees_with_scipy_bootstrap_of_paired_differences():
    correct = collapsed_and_probe()
    row = readout_gap(correct, [("probe", "string")])[0]
    reference = scipy.stats.bootstrap(
        (correct["probe"], correct["string"]),
        lambda a, b, axis: a.mean(axis=axis) - b.mean(axis=axis),
        paired=True,
        n_resamples=10_000,
        method="percentile",
        rng=np.random.default_rng(5),
    ).confidence_interval
    # different draws: a 2.5% quantile at B = 10,000 varies by ~0.002; allow three times that
    assert row.low == pytest.approx(reference.low, abs=0.006)
    assert row.high == pytest.approx(reference.high, abs=0.006)


def test_cluster_resampling_equals_a_direct_cluster_bootstrap():
    correct = collapsed_and_probe(60)
    clusters = [f"passage-{i % 12}" for i in range(60)]
    row = readout_gap(correct, [("probe", "string")], n_boot=300, seed=2, clusters=clusters)[0]
    groups = np.unique(clusters, return_inverse=True)[1]
    draws = np.random.default_rng(2).integers(0, 12, size=(300, 12))
    replicates = []
    for drawn in draws:
        items = np.concatenate([np.flatnonzero(groups == g) for g in drawn])
        replicates.append(correct["probe"][items].mean() - correct["string"][items].mean())
    low, high = np.quantile(replicates, [0.025, 0.975])
    assert (row.low, row.high) == pytest.approx((low, high), abs=1e-12)


def test_a_clear_gap_is_significant_and_identical_readouts_are_not():
    correct = collapsed_and_probe()
    correct["same"] = correct["string"].copy()
    clear, none = readout_gap(correct, [("probe", "string"), ("same", "string")])
    assert clear.difference > 0.4 and clear.low > 0.4
    assert clear.p_value == 1 / 10_001  # the floor: no replicate reaches the null
    assert (none.difference, none.low, none.high, none.p_value) == (0.0, 0.0, 0.0, 1.0)


def test_bad_input_names_the_field():
    good = {"a": [1, 0, 1], "b": [0, 0, 1]}
    alike = {"x - y": [1], "x": [0], "y - z": [1], "z": [0]}  # both pairs read "x - y - z"
    cases = [
        (lambda: readout_gap(good, [("a", "c")]), "field 'pairs'.*'c' is not among"),
        (lambda: readout_gap(good, []), "field 'pairs'"),
        (lambda: readout_gap({**good, "b": [0, 1]}, [("a", "b")]), "same examples"),
        (lambda: readout_gap({**good, "b": [0, 2, 1]}, [("a", "b")]), "value 2.0 at 1"),
        (lambda: readout_gap({**good, "a": [0, np.nan, 1]}, [("a", "b")]), "\"correct\\['a'\\]\""),
        (lambda: readout_gap(good, [("a", "b")], clusters=[1, 2]), "field 'clusters'"),
        (lambda: readout_gap(alike, [("x - y", "z"), ("x", "y - z")]), "alike"),
    ]
    for call, message in cases:
        with pytest.raises(InputError, match=message):
            call()
