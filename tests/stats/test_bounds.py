"""Hoeffding bounds, fallback interval, missingness bounds and threshold crossings (seed 004)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from readout_audit.stats import (
    hoeffding_epsilon,
    hoeffding_interval,
    missingness_bounds,
    threshold_crossings,
)


def test_hoeffding_epsilon_printed_value():
    # "For M=145, n=12, and delta=.05, the bound is about .60."
    assert hoeffding_epsilon(145, 12, 0.05) == pytest.approx(0.60089, abs=1e-5)
    assert hoeffding_epsilon(1, 200, 0.1) == pytest.approx(math.sqrt(math.log(20) / 400))
    with pytest.raises(ValueError, match="delta"):
        hoeffding_epsilon(10, 10, 1.5)


def test_fallback_interval_printed_value():
    # "Sol's zero empirical interaction on 196 sources therefore has interval [-38.8, 38.8] pp"
    # (99 DROP and 97 GSM8K complete sources, weights .5/.5, contrasts in [-2, 2]).
    result = hoeffding_interval(0.0, [99, 97], [0.5, 0.5])
    assert (round(result.low * 100, 1), round(result.high * 100, 1)) == (-38.8, 38.8)
    assert result.p_value == 1.0
    s = 0.25 / 99 + 0.25 / 97
    assert result.high == pytest.approx(math.sqrt(8 * s * math.log(2 / 0.05)))
    # Truncated to the value range, and the bound's p-value away from zero.
    wide = hoeffding_interval(1.9, [3, 3], [0.5, 0.5])
    assert wide.high == 2.0 and wide.p_value == pytest.approx(
        min(1, 2 * math.exp(-(1.9**2) / (8 * (0.25 / 3 + 0.25 / 3))))
    )


def test_fallback_interval_covers_at_the_stated_rate():
    rng = np.random.default_rng(0)
    misses = 0
    for _ in range(2000):
        a, b = rng.choice([-2, 0, 2], size=20), rng.choice([-2, 0, 2], size=30)
        estimate = 0.5 * a.mean() + 0.5 * b.mean()
        interval = hoeffding_interval(estimate, [20, 30], [0.5, 0.5])
        misses += not (interval.low <= 0 <= interval.high)
    assert misses / 2000 <= 0.05


def test_missingness_bounds_hand_worked_and_printed_width():
    values = [1, np.nan, 0, np.nan]
    coefficients = [0.25, 0.25, -0.25, -0.25]
    assert missingness_bounds(values, coefficients) == pytest.approx((0.0, 0.5))
    # Seed 004: four unresolved cells, each moving the estimate by 0.5 pp -> width 2 pp.
    rng = np.random.default_rng(1)
    cells = rng.integers(0, 2, 400).astype(float)
    signs = np.tile([1.0, -1.0, -1.0, 1.0], 100) * 0.5 / 100
    cells[[3, 7, 11, 15]] = np.nan
    low, high = missingness_bounds(cells, signs)
    assert high - low == pytest.approx(0.02)
    for fill in rng.integers(0, 2, size=(20, 4)):
        filled = cells.copy()
        filled[[3, 7, 11, 15]] = fill
        assert low - 1e-12 <= float(filled @ signs) <= high + 1e-12
    with pytest.raises(ValueError, match="domain"):
        missingness_bounds([2.0, np.nan], [1, 1])


@pytest.mark.parametrize("seed", range(4))
def test_threshold_crossing_area_equals_weighted_mean_shift(seed):
    rng = np.random.default_rng(seed)
    n = 60
    before = rng.random(n)
    after = np.clip(before + rng.normal(0.05, 0.2, n), 0, 1)
    after[:5] = [0, 1, 1, 0, before[4]]  # exact zeros, ones and an unchanged score
    weights = rng.random(n)
    weights /= weights.sum()
    grid = np.linspace(0, 1, 200_001)
    curves = threshold_crossings(before, after, weights, thresholds=grid)
    shift = float(weights @ (after - before))
    assert curves.area == pytest.approx(shift, abs=1e-12)
    assert curves.mean_shift == pytest.approx(shift, abs=1e-12)
    numeric = np.trapezoid(curves.up - curves.down, grid)
    assert numeric == pytest.approx(shift, abs=2e-4)


def test_threshold_crossing_input_checks():
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        threshold_crossings([0.2, 1.2], [0.1, 0.3])
    with pytest.raises(ValueError, match="sum"):
        threshold_crossings([0.2, 0.4], [0.1, 0.3], [0.2, 0.2])
