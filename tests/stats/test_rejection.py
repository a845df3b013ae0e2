"""PRR against lm-polygraph's own code (PredictionRejectionArea, normalize_metric)."""

from __future__ import annotations

import numpy as np
import pytest

from readout_audit.stats import PredictionRejectionRatio, prr
from readout_audit.stats._resample import item_weights


# --- Reference: lm-polygraph 0.7.0, ue_metrics/ue_metric.py and ue_metrics/pred_rej_area.py ---
def _lmp_normalize(target):
    min_t, max_t = np.min(target), np.max(target)
    if np.isclose(min_t, max_t):
        min_t -= 1
        max_t += 1
    return (np.array(target) - min_t) / (max_t - min_t)


def _lmp_pra(estimator, target, max_rejection=1.0):
    target = _lmp_normalize(target)
    ue = np.array(estimator)
    num_obs = len(ue)
    num_rej = int(max_rejection * num_obs)
    ue_argsort = np.argsort(ue)
    sorted_metrics = np.array(target)[ue_argsort]
    cumsum = np.cumsum(sorted_metrics)[-num_rej:]
    scores = (cumsum / np.arange((num_obs - num_rej) + 1, num_obs + 1))[::-1]
    return np.sum(scores) / num_rej


def _lmp_random(max_rejection, metrics, num_iter=1000, seed=42):
    np.random.seed(seed)
    rand_scores = np.arange(len(metrics))
    value = []
    for _ in range(num_iter):
        np.random.shuffle(rand_scores)
        value.append(_lmp_pra(rand_scores, metrics, max_rejection))
    return np.mean(value)


def _lmp_prr(uncertainty, metric, max_rejection=1.0):
    value = _lmp_pra(uncertainty, metric, max_rejection)
    oracle = _lmp_pra(-metric, metric, max_rejection)
    random = _lmp_random(max_rejection, metric)
    return value if oracle == random else (value - random) / (oracle - random)


# --- end of reference ---


@pytest.mark.parametrize("max_rejection", [1.0, 0.5])
@pytest.mark.parametrize("seed", range(4))
def test_prr_equals_lm_polygraph(seed, max_rejection):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 200))
    quality = (rng.random(n) < 0.6).astype(float) if seed % 2 else rng.random(n)
    confidence = quality + rng.normal(scale=0.7, size=n)
    expected = _lmp_prr(-confidence, quality, max_rejection)
    got = prr(confidence, quality, max_rejection, random="lm-polygraph")
    assert got == pytest.approx(expected, abs=1e-12)
    # The exact expectation of random rejection is the mean normalised quality.
    exact = prr(confidence, quality, max_rejection)
    assert exact == pytest.approx(expected, abs=0.02)


def test_prr_oracle_and_reversed():
    quality = np.linspace(0, 1, 50)
    assert prr(quality, quality) == pytest.approx(1.0)
    assert prr(-quality, quality) < -0.9


def test_prr_input_checks():
    with pytest.raises(ValueError, match="max_rejection"):
        prr([0.1, 0.2], [1, 0], max_rejection=0)
    with pytest.raises(ValueError, match="equal length"):
        prr([0.1, 0.2], [1.0])
    with pytest.raises(ValueError, match="random"):
        prr([0.1, 0.2], [1.0, 0.0], random="uniform")


@pytest.mark.parametrize("clustered", [False, True])
def test_prr_over_bootstrap_weights_equals_prr_of_each_expanded_sample(clustered):
    rng = np.random.default_rng(3)
    n = 60
    confidence = np.round(rng.normal(size=n), 1)  # ties between items of different quality
    quality = rng.random(n) < 0.6
    clusters = rng.integers(0, 15, size=n) if clustered else None
    weights = item_weights(n, 300, 5, clusters)
    statistic = PredictionRejectionRatio(0.5)
    positions = np.arange(n)
    expected = []
    for row in weights:
        index = np.repeat(positions, row.astype(np.int64))
        c, q = confidence[index], quality[index].astype(float)
        value, oracle = _lmp_pra(-c, q, 0.5), _lmp_pra(-q, q, 0.5)
        random = np.mean(_lmp_normalize(q))  # the expected baseline
        expected.append(value if oracle == random else (value - random) / (oracle - random))
    # float64, lm-polygraph's operations on the same expanded rows: equal to the last bit
    assert np.array_equal(statistic.over_weights([confidence, quality], weights), expected)
    assert statistic(confidence, quality) == prr(confidence, quality, 0.5)
