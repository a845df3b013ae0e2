"""The switch's slope check where the control margin has no spread: undefined, as scipy says."""

from __future__ import annotations

import io

import numpy as np
import pytest
from rich.console import Console
from scipy import stats

from readout_audit.judge.analysis import (
    SlopeCheck,
    SwitchAnalysis,
    slope_check,
    switch_section,
)
from readout_audit.judge.analysis._directional import DirectionalResult
from readout_audit.judge.analysis._study_report import NO_SPREAD
from readout_audit.judge.analysis._switch import HalfDifference, SwitchComparison
from readout_audit.report._terminal import print_sections


def _printed_row(check: SlopeCheck) -> str:
    """The slope table's row of one comparison with this slope check, as the terminal prints it."""
    comparison = SwitchComparison(
        configuration="judge",
        comparison="cue-vs-control",
        mean_d_x=None,
        mean_d_y=None,
        both_directions=0,
        test=DirectionalResult(
            name="judge", n=0, p_increase=1.0, p_decrease=1.0, p_raw=1.0, p_holm=1.0
        ),
        log_ratio=HalfDifference(estimate=None, low=None, high=None, n=0, unresolved=0),
        slopes=check,
    )
    section = switch_section(SwitchAnalysis(comparisons=[comparison], gates=[], accepted={}))
    console = Console(file=io.StringIO(), width=400, color_system=None)
    print_sections([section], console)
    printed = console.file.getvalue().splitlines()  # type: ignore[attr-defined]
    return [line for line in printed if "cue-vs-control" in line][-1]  # after the directional


def test_equal_margins_in_one_world_leave_its_slope_undefined_as_scipy_refuses_it():
    rng = np.random.default_rng(5)
    m_x = np.full(20, 0.1)  # centring equal floats leaves ~1e-17: the naive slope was ~1e15
    m_y = rng.normal(4.0, 1.0, 20)
    d_x, d_y = rng.normal(0.0, 1.0, 20), -0.4 * m_y + rng.normal(0.0, 0.2, 20)
    with pytest.raises(ValueError, match="identical"):
        stats.linregress(m_x, d_x)
    found = slope_check((list(m_x), list(m_y)), (list(d_x), list(d_y)), n_boot=1_000, seed=2)
    assert found.n == 20 and found.no_spread == ("within_x",)
    assert found.within_x is None and found.contrast_x is None
    assert found.contrast_x_low is None and found.contrast_x_high is None
    assert found.within_y == pytest.approx(stats.linregress(m_y, d_y).slope, abs=1e-12)
    between = (d_y.mean() - d_x.mean()) / (m_y.mean() - m_x.mean())
    assert found.between == pytest.approx(between, abs=1e-12)
    assert found.contrast_y_low < found.contrast_y < found.contrast_y_high
    row = _printed_row(found)
    assert row.count(NO_SPREAD) == 2  # within X and its contrast
    assert f"{found.within_y:.4f}" in row and "e+1" not in row


def test_equal_margins_in_both_worlds_leave_every_slope_undefined():
    margins = [0.3] * 6
    found = slope_check((margins, margins), ([0.1, 0.4, 0.2, 0.0, 0.5, 0.3], [0.2] * 6))
    assert found.no_spread == ("within_x", "within_y", "between")
    assert found.within_x is found.within_y is found.between is None
    assert found.contrast_y_low is None
    row = _printed_row(found)
    assert row.count(NO_SPREAD) == 5


def test_regular_margins_match_scipy_and_name_nothing_undefined():
    rng = np.random.default_rng(8)
    m_x, m_y = rng.normal(-3.0, 1.0, 15), rng.normal(3.0, 1.0, 15)
    d_x, d_y = 0.2 * m_x + rng.normal(0, 0.3, 15), 0.1 * m_y + rng.normal(0, 0.3, 15)
    found = slope_check((list(m_x), list(m_y)), (list(d_x), list(d_y)), n_boot=500)
    assert found.no_spread == ()
    assert found.within_x == pytest.approx(stats.linregress(m_x, d_x).slope, abs=1e-12)
    assert found.within_y == pytest.approx(stats.linregress(m_y, d_y).slope, abs=1e-12)
    assert NO_SPREAD not in _printed_row(found)


def test_bootstrap_draws_without_spread_are_left_out_not_read_as_huge_slopes():
    # two of three sources share a margin in X: a draw of only those has no spread there
    found = slope_check(
        ([0.1, 0.1, 0.7], [2.0, 2.5, 3.5]), ([0.3, -0.2, 0.5], [0.1, 0.4, -0.3]), n_boot=2_000
    )
    assert found.no_spread == ()
    assert found.contrast_x_low is not None and found.contrast_x_high is not None
    assert abs(found.contrast_x_low) < 1e3 and abs(found.contrast_x_high) < 1e3
