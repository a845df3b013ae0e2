"""The lift analyses' pure parts by hand: distributions, the hardest slice, token use, Table 2."""

from __future__ import annotations

import pytest

from readout_audit import InputError
from readout_audit.lift._distributions import distribution, hardest_slice
from readout_audit.lift._effort import effort_row
from readout_audit.lift._lift_stats import paired_contrast
from readout_audit.lift._score import check_hardest_by
from readout_audit.lift._toy import recovery_token


def test_a_distribution_by_hand():
    d = distribution("x", [5.0, 1.0, 4.0, 2.0, 3.0])
    assert d.values == [1.0, 2.0, 3.0, 4.0, 5.0] and d.median == 3.0 and d.mean == 3.0
    # linear interpolation: q10 at position 0.4 between 1 and 2, q75 at position 3
    assert d.quantiles == pytest.approx(
        {"q10": 1.4, "q25": 2.0, "q50": 3.0, "q75": 4.0, "q90": 4.6}
    )
    assert (d.minimum, d.maximum) == (1.0, 5.0)
    with pytest.raises(InputError, match="no cuts"):
        distribution("x", [])


def test_the_paired_median_by_hand():
    c = paired_contrast([1.0, 0.5, 0.2, 0.0], [0.0, 0.5, 0.0, 0.4], ["p", "p", "q", "q"])
    assert c.median == pytest.approx(0.1)  # differences 1, 0, 0.2, -0.4: median (0 + 0.2)/2
    assert c.positive == 0.5 and c.ties == 0.25


def test_the_hardest_slice_by_hand():
    cuts = [f"c{i}" for i in range(10)]
    context = dict.fromkeys(cuts, 0.0)
    none = {c: float(v) for c, v in zip(cuts, [5, 1, 7, 1, 9, 3, 8, 6, 2, 4], strict=True)}
    high = {c: none[c] + (0.5 if i % 2 else 0.1) for i, c in enumerate(cuts)}
    low = {c: none[c] + 0.05 for c in cuts}
    papers = {c: f"p{i % 3}" for i, c in enumerate(cuts)}
    scores = {"none": none, "high": high, "low": low, "context": context}
    found = hardest_slice(scores, papers, "none", [("high", "low"), ("low", "none")], "context")
    # lifts 1, 1 (c1, c3: the tie broken by id) are the lowest ⌈0.2 · 10⌉ = 2
    assert found.cuts == ["c1", "c3"] and found.n_cuts == 2 and found.threshold == 1.0
    high_low, low_none = found.contrasts
    assert high_low.hardest.mean == pytest.approx(0.45)  # c1 and c3 are odd: 0.5 − 0.05
    assert high_low.full.mean == pytest.approx((5 * 0.45 + 5 * 0.05) / 10)
    assert not high_low.selected_on and low_none.selected_on
    assert high_low.hardest.n_cuts == 2 and high_low.full.n_cuts == 10
    with pytest.raises(InputError, match="between 0 and 1"):
        hardest_slice(scores, papers, "none", [], "context", fraction=1.0)
    with pytest.raises(InputError, match="is not a setting of the forecasts"):
        check_hardest_by(["high", "low"], "medium")
    check_hardest_by(["high", "low"], None)


def test_token_use_means_over_the_lift_cuts_by_hand():
    lift = paired_contrast([1.0, 2.0, 3.0], [0.0, 0.0, 0.0], ["a", "b", "c"])
    counts = {
        "c1": {"s": {"output": 10, "reasoning": 100}},
        "c2": {"s": {"output": 20, "reasoning": None}},
        "c3": {"s": {"output": 30, "reasoning": 300}, "t": {"output": 1, "reasoning": 1}},
        "c4": {"s": {"output": 1000, "reasoning": 1000}},  # not among the lift's cuts
    }
    row = effort_row("s", lift, ["c1", "c2", "c3"], counts)
    assert row.reasoning_tokens == 200.0 and row.output_tokens == 20.0 and row.reported == 2
    none = effort_row("u", lift, ["c1"], counts)
    assert none.reasoning_tokens is None and none.output_tokens is None and none.reported == 0


def test_the_recovery_token_by_hand():
    # " X + A + B" as the tokens " X", " +", " A", " +", " B" end at 2, 4, 6, 8, 10
    ends = [2, 4, 6, 8, 10]
    assert recovery_token(" X + A + B", " X + B + A", ends) == 4  # P(B) after "X + A +"
    assert recovery_token(" X + A B", " X + B A", [2, 4, 6, 8]) == 3  # the product case
    assert recovery_token(" X + A + B", " X + A + B", ends) is None  # never differs
    assert recovery_token(" X + A + B", " X + Y", ends) is None  # Y never follows


def test_token_counts_are_checked_by_cut_and_field():
    from readout_audit.lift._score import checked_counts

    good = {"c1": {"s": {"output": 3, "reasoning": None}}}
    assert checked_counts(good, {"c1"}) == good
    with pytest.raises(InputError, match="name no cut of this run"):
        checked_counts(good, {"c2"})
    for bad in ({"output": -1}, {"output": 2.5}, {"reasoning": True}, {"hidden": 3}):
        with pytest.raises(InputError, match="integers ≥ 0"):
            checked_counts({"c1": {"s": bad}}, {"c1"})
