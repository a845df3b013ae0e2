"""The reference switch's per-source effects and its directional family, by hand and scipy."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from readout_audit.judge import directional_family, half_difference, world_effect


def test_the_printed_illustration_gives_its_world_effects():
    # refswitch:20260930140:20: R: scores .77 and .75 under reference X = 840 against R's .01
    # in both passes; under Y = 495, .64 and .60 against 1.00 in both
    d_x = world_effect([0.77, 0.75], [0.01, 0.01])
    d_y = world_effect([0.64, 0.60], [1.00, 1.00])
    assert d_x == pytest.approx(0.75) and d_y == pytest.approx(-0.38)
    # one unanswered pass leaves the source unresolved, not averaged over the other
    assert world_effect([0.77, None], [0.01, 0.01]) is None
    with pytest.raises(ValueError, match="one cue and one control per pass"):
        world_effect([0.77], [0.01, 0.01])


def test_an_unresolved_contrast_keeps_its_family_slot_at_p_one():
    complete = ([0.3] * 24, [-0.08] * 24)
    gap = ([0.3] * 23 + [None], [-0.08] * 24)
    nan = ([0.3] * 24, [-0.08] * 23 + [float("nan")])
    family = {r.name: r for r in directional_family({"a": complete, "b": gap, "c": nan})}
    assert family["a"].p_raw == 2.0**-24 and family["a"].unresolved == 0
    # Holm over three slots: the resolved comparison's p is multiplied by three
    assert family["a"].p_holm == pytest.approx(3 * 2.0**-24)
    for name in ("b", "c"):
        row = family[name]
        assert row.unresolved == 1 and row.p_raw == row.p_holm == 1.0
        assert row.p_increase == row.p_decrease == 1.0 and row.n == 24


def test_half_difference_by_hand_and_against_scipy():
    rng = np.random.default_rng(7)
    under_x = list(rng.normal(1.2, 0.5, 24))
    under_y = list(rng.normal(-1.9, 0.6, 24))
    found = half_difference([*under_x, None], [*under_y, -2.0], seed=3)
    halves = (np.array(under_x) - np.array(under_y)) / 2
    assert found.n == 24 and found.unresolved == 1
    assert found.estimate == pytest.approx(halves.mean(), abs=1e-12)
    reference = stats.bootstrap(
        (halves,), np.mean, n_resamples=20_000, method="percentile", random_state=3
    ).confidence_interval
    # two independent 20,000-draw percentile intervals of the same mean: equal to Monte Carlo error
    assert found.low == pytest.approx(reference.low, abs=0.02)
    assert found.high == pytest.approx(reference.high, abs=0.02)
    empty = half_difference([None], [0.5])
    assert empty.estimate is None and empty.n == 0 and empty.unresolved == 1
