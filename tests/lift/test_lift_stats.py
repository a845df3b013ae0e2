"""Lift statistics: clustered SE by hand, normal p against scipy, the paper's printed arithmetic."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats

from readout_audit import InputError
from readout_audit.lift import (
    RULES,
    Contrast,
    LadderRow,
    condition_ladder,
    near_maximum,
    normal_p_value,
    paired_contrast,
    paired_scores,
    rule_scores,
    rule_table,
    window_curve,
)


def cr1_by_hand(d: list[float], papers: list[str]) -> float:
    """The CR1 sandwich for the mean (OLS on a constant), with explicit loops.

    Bread (X'X)⁻¹ = 1/n; meat Σ_g (Σ_{i∈g} eᵢ)²; correction G/(G−1) · (n−1)/(n−k), k = 1.
    """
    n = len(d)
    mean = sum(d) / n
    sums: dict[str, float] = {}
    for value, paper in zip(d, papers, strict=True):
        sums[paper] = sums.get(paper, 0.0) + (value - mean)
    meat = 0.0
    for s in sums.values():
        meat += s * s
    g, k = len(sums), 1
    correction = g / (g - 1) * (n - 1) / (n - k)
    return math.sqrt(correction * meat / (n * n))


@pytest.mark.parametrize("seed", range(5))
def test_contrast_se_is_the_cr1_sandwich(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 200))
    papers = [f"paper{k}" for k in rng.integers(0, int(rng.integers(2, 30)), n)]
    a = rng.normal(-0.6, 0.3, n)
    b = a - rng.normal(0.1, 0.2, n) - 0.05 * np.asarray([int(p[5:]) % 3 for p in papers])
    contrast = paired_contrast(a, b, papers)
    assert contrast.se == pytest.approx(cr1_by_hand(list(a - b), papers), rel=1e-12)
    assert contrast.mean == pytest.approx(float(np.mean(a - b)), rel=1e-12)
    assert (contrast.low, contrast.high) == (
        contrast.mean - 2 * contrast.se,
        contrast.mean + 2 * contrast.se,
    )
    assert (contrast.n_cuts, contrast.n_papers) == (n, len(set(papers)))


def test_equal_paper_sizes_give_the_se_of_paper_means():
    """G papers of m cuts: Σ_{i∈g} eᵢ = m(d̄_g − d̄), so SE² = G/(G−1)·Σ m²(d̄_g − d̄)²/(Gm)²
    = [Σ(d̄_g − d̄)²/(G−1)]/G: the naive SE (ddof 1) of the G paper means."""
    rng = np.random.default_rng(3)
    groups, size = 12, 7
    papers = np.repeat(np.arange(groups), size)
    d = rng.normal(size=groups * size) + 0.5 * rng.normal(size=groups)[papers]
    means = d.reshape(groups, size).mean(axis=1)
    expected = means.std(ddof=1) / math.sqrt(groups)
    assert paired_contrast(d, np.zeros_like(d), papers).se == pytest.approx(expected, rel=1e-12)
    # Unequal sizes weight papers by their cut counts, so the relation no longer holds.
    uneven = np.array([0] * 10 + [1] * 2 + [2] * 3)
    x = np.arange(15.0) ** 1.5
    per_paper = np.array([x[uneven == g].mean() for g in range(3)])
    assert paired_contrast(x, np.zeros(15), uneven).se != pytest.approx(
        per_paper.std(ddof=1) / math.sqrt(3), rel=1e-3
    )


@pytest.mark.parametrize(("mean", "se"), [(0.004, 0.003), (-0.02, 0.004), (1.0, 0.1), (0.0, 1.0)])
def test_normal_p_matches_scipy(mean, se):
    expected = 2 * scipy.stats.norm.sf(abs(mean / se))
    assert normal_p_value(mean, se) == pytest.approx(expected, rel=1e-12)


def test_normal_p_undefined_without_spread_and_rejects_bad_se():
    assert normal_p_value(0.0, 0.0) is None
    with pytest.raises(ValueError, match="SE >= 0"):
        normal_p_value(0.1, -0.01)
    with pytest.raises(ValueError, match="finite"):
        normal_p_value(float("nan"), 0.01)


# Table 6 (mean, SE) of the adjacent contrasts, Qwen then Kimi.
TABLE_6 = {
    "GPT-5.5 high - medium": ((0.004, 0.003), (0.005, 0.002)),
    "GPT-5.5 medium - low": ((0.006, 0.003), (0.006, 0.003)),
    "GPT-5.5 low - none": ((0.025, 0.003), (0.026, 0.003)),
    "Opus 4.7 medium - low": ((0.006, 0.002), (0.007, 0.002)),
    "GPT-5.4 nano high - medium": ((0.007, 0.003), (0.007, 0.003)),
    "GPT-5.4 nano medium - low": ((0.021, 0.003), (0.021, 0.004)),
}


def test_paper_table_6_significance_statement():
    """Figure 1: every adjacent contrast is significant at p < 0.05 except GPT-5.5 high − medium
    under Qwen (0.004, SE 0.003: z = 1.33, p ≈ 0.18, inside 2 SE)."""
    p_high_medium = normal_p_value(0.004, 0.003)
    assert p_high_medium == pytest.approx(0.1824, abs=1e-4)
    not_significant = [
        (name, scorer)
        for name, pairs in TABLE_6.items()
        for scorer, (mean, se) in zip(("qwen", "kimi"), pairs, strict=True)
        if (normal_p_value(mean, se) or 1.0) >= 0.05
    ]
    assert not_significant == [("GPT-5.5 high - medium", "qwen")]


def test_paper_tables_8_and_9_are_paired_differences_of_the_ladder():
    """On shared cuts a paired mean is linear: mean(f − c) = mean(f − e) − mean(c − e), so
    scores with Table 8's ladder means give Table 9's 0.202, 0.134 and 0.271. (Its SFT row,
    0.082 rather than 0.298 − 0.200, is on its own 220-cut subset.)"""
    table_8 = {"empty": 0.0, "same": 0.096, "triple": 0.164, "forecast": 0.298, "truth": 0.569}
    cuts = [f"c{i}" for i in range(8)]
    papers = {c: f"p{i % 3}" for i, c in enumerate(cuts)}
    base = np.linspace(-1.2, -0.4, 8)
    wobble = np.array([1, -1, 2, -2, 0.5, -0.5, 3, -3]) * 0.01  # sums to zero
    scores = {
        name: {c: base[i] + shift + wobble[(i + k) % 8] * (k > 0) for i, c in enumerate(cuts)}
        for k, (name, shift) in enumerate(table_8.items())
    }
    ladder = {r.condition: r.vs_reference for r in condition_ladder(scores, papers, "empty")}
    assert {name: row.mean for name, row in ladder.items()} == pytest.approx(table_8, abs=1e-12)
    paired = paired_scores(scores, papers)
    assert paired.contrast("forecast", "same").mean == pytest.approx(0.202, abs=1e-12)
    assert paired.contrast("forecast", "triple").mean == pytest.approx(0.134, abs=1e-12)
    assert paired.contrast("truth", "forecast").mean == pytest.approx(0.271, abs=1e-12)


def test_paper_intervals_from_printed_mean_and_se():
    """Figure 3's ±2 SE: forecast − SFT 0.082 (SE 0.013) spans [0.056, 0.108], excluding 0."""
    contrast = paired_contrast([0.082 + 0.013, 0.082 - 0.013], [0.0, 0.0], ["p", "q"])
    assert contrast.mean == pytest.approx(0.082)
    assert contrast.se == pytest.approx(0.013)  # two papers, one cut each: SE = |d₁ − d₂|/2
    assert (contrast.low, contrast.high) == (pytest.approx(0.056), pytest.approx(0.108))
    assert contrast.p_value == pytest.approx(2 * scipy.stats.norm.sf(0.082 / 0.013), rel=1e-12)


def test_fraction_positive_counts_ties_separately():
    a = [0.1, 0.0, -0.2, 0.5, 0.3]
    b = [0.0, 0.0, 0.0, 0.5, 0.0]
    contrast = paired_contrast(a, b, ["p", "p", "q", "q", "r"])
    assert (contrast.positive, contrast.ties) == (0.4, 0.4)


def test_one_paper_has_a_mean_but_no_clustered_se_and_lengths_must_match():
    single = paired_contrast([0.1, 0.2], [0.0, 0.0], ["p", "p"])
    assert single.mean == pytest.approx(0.15)
    assert (single.se, single.low, single.high, single.p_value) == (None, None, None, None)
    assert (single.n_cuts, single.n_papers) == (2, 1)
    with pytest.raises(ValueError, match="equal length"):
        paired_contrast([0.1, 0.2], [0.0], ["p", "q"])


SCORES = {
    "empty": {"x": -0.9, "y": -0.8, "z": -0.7, "w": -1.0},
    "forecast": {"w": -0.4, "z": -0.3, "y": -0.5, "x": -0.2},
    "sft": {"x": -0.6, "z": -0.5},
}
PAPERS = {"x": "A", "y": "A", "z": "B", "w": "C"}


def test_pairing_is_by_cut_id_not_by_order():
    paired = paired_scores(SCORES, PAPERS, ("empty", "forecast"))
    assert paired.cuts == ("w", "x", "y", "z")
    assert paired.papers.tolist() == ["C", "A", "A", "B"]
    assert paired.scores["forecast"].tolist() == [-0.4, -0.2, -0.5, -0.3]
    assert paired.contrast("forecast", "empty").mean == pytest.approx((0.6 + 0.7 + 0.3 + 0.4) / 4)


def test_a_cut_missing_a_condition_is_an_error_unless_allowed():
    with pytest.raises(InputError, match=r"'sft' lacks 2: 'w', 'y'.*allow_missing"):
        paired_scores(SCORES, PAPERS)
    paired = paired_scores(SCORES, PAPERS, allow_missing=True)
    assert paired.cuts == ("x", "z")
    assert paired.missing == {"sft": ("w", "y")}
    with pytest.raises(InputError, match=r"no paper for 1 cut\(s\): 'w'"):
        paired_scores(SCORES, {"x": "A", "y": "A", "z": "B"}, ("empty", "forecast"))
    with pytest.raises(ValueError, match="Expected conditions among"):
        paired_scores(SCORES, PAPERS, ("empty", "oracle"))
    with pytest.raises(InputError, match="no cut has every one"):
        paired_scores({"a": {"x": 0.0}, "b": {"y": 0.0}}, PAPERS, allow_missing=True)


def test_condition_ladder_rows_use_the_cuts_shared_with_the_reference():
    rows = condition_ladder(SCORES, PAPERS, "empty")
    assert [r.condition for r in rows] == ["empty", "forecast", "sft"]
    empty, forecast, sft = rows
    assert empty.vs_reference.model_dump() == {
        "mean": 0.0,
        "se": 0.0,
        "low": 0.0,
        "high": 0.0,
        "positive": 0.0,
        "median": 0.0,
        "ties": 1.0,
        "p_value": None,
        "n_cuts": 4,
        "n_papers": 3,
    }
    assert forecast.mean == pytest.approx(-0.35)
    assert forecast.reference_mean == pytest.approx(-0.85)
    assert forecast.vs_reference.mean == pytest.approx(0.5)
    assert (sft.vs_reference.n_cuts, sft.vs_reference.n_papers) == (2, 2)
    assert sft.vs_reference.mean == pytest.approx(((-0.6 + 0.9) + (-0.5 + 0.7)) / 2)
    assert sft.reference_mean == pytest.approx(-0.8)
    assert LadderRow.model_validate_json(sft.model_dump_json()) == sft


def test_ladder_differences_equal_direct_paired_contrasts():
    rng = np.random.default_rng(5)
    cuts = [f"c{i}" for i in range(60)]
    papers = {c: f"p{i % 9}" for i, c in enumerate(cuts)}
    scores = {
        name: {c: float(-rng.uniform(0, 2) + shift) for c in cuts}
        for name, shift in (("empty", 0.0), ("context", 0.1), ("forecast", 0.3))
    }
    ladder = {r.condition: r.vs_reference.mean for r in condition_ladder(scores, papers, "empty")}
    direct = paired_scores(scores, papers).contrast("forecast", "context")
    assert direct.mean == pytest.approx(ladder["forecast"] - ladder["context"], abs=1e-12)


TOKENS_F = {
    "c1": [-0.1, -3.0, -0.5],
    "c2": [-1.0, -0.2],
    "c3": [-0.4, -0.4, -2.5, -0.1],
    "c4": [-0.05],
}
TOKENS_C = {
    "c1": [-1.0, -1.0, -1.0],
    "c2": [-0.5, -4.0],
    "c3": [-0.4, -1.4, -0.5, -0.3],
    "c4": [-0.25],
}
TOKEN_PAPERS = {"c1": "A", "c2": "A", "c3": "B", "c4": "C"}


def test_window_curve_by_hand():
    rows = window_curve(TOKENS_F, TOKENS_C, TOKEN_PAPERS, windows=(1, 2, 10))
    # Per-cut clipLL_2 lifts worked by hand for each window.
    hand = {
        1: [0.9, -0.5, 0.0, 0.2],
        2: [-1.05 + 1.0, -0.6 + 1.25, -0.4 + 0.9, 0.2],
        10: [-2.6 / 3 + 1.0, 0.65, -0.725 + 0.65, 0.2],
    }
    assert [r.window for r in rows] == [1, 2, 10]
    assert [r.truncated for r in rows] == [3, 2, 0]
    assert [r.mean_scored for r in rows] == [1.0, 1.75, 2.5]
    for row in rows:
        d = hand[row.window]
        assert row.lift.mean == pytest.approx(sum(d) / 4, abs=1e-12)
        assert row.lift.se == pytest.approx(cr1_by_hand(d, ["A", "A", "B", "C"]), rel=1e-9)
    assert (rows[0].lift.positive, rows[0].lift.ties) == (0.5, 0.25)


def test_window_curve_rejects_targets_of_different_lengths():
    control = {**TOKENS_C, "c2": [-0.5, -4.0, -0.1]}
    with pytest.raises(InputError, match=r"different numbers of target tokens on 1 cut\(s\): 'c2'"):
        window_curve(TOKENS_F, control, TOKEN_PAPERS)
    with pytest.raises(ValueError, match="window"):
        window_curve(TOKENS_F, TOKENS_C, TOKEN_PAPERS, windows=(0,))


def test_rule_table_by_hand():
    records = {"forecast": TOKENS_F, "control": TOKENS_C}
    rows = rule_table(records, TOKEN_PAPERS, "forecast", "control")
    assert [r.rule for r in rows] == list(RULES)
    by_rule = {r.rule: r.lift for r in rows}
    assert by_rule["raw"].mean == pytest.approx((-0.2 + 1.65 - 0.2 + 0.2) / 4, abs=1e-12)
    assert by_rule["clip2"] == window_curve(TOKENS_F, TOKENS_C, TOKEN_PAPERS, windows=(10,))[0].lift
    for rule, lift in by_rule.items():
        scores = rule_scores(records, rule=rule)
        d = [scores["forecast"][c] - scores["control"][c] for c in sorted(TOKENS_F)]
        assert lift.mean == pytest.approx(np.mean(d), abs=1e-12)
    with pytest.raises(ValueError, match="Expected conditions among"):
        rule_table(records, TOKEN_PAPERS, "forecast", "empty")


def test_score_cuts_names_the_bad_cut_and_condition():
    with pytest.raises(InputError, match="item 'c2', field 'control'"):
        rule_scores({"forecast": TOKENS_F, "control": {**TOKENS_C, "c2": [0.5]}})


def test_near_maximum_counts_scores_at_or_above_the_threshold():
    result = near_maximum([-0.05, -0.10, -0.2, 0.0, -1.3])
    assert (result.count, result.n_cuts, result.fraction, result.threshold) == (3, 5, 0.6, -0.10)
    assert near_maximum([-0.05, -0.2], threshold=-0.01).count == 0


def test_contrast_round_trips_through_json():
    contrast = paired_contrast([0.1, 0.3, 0.2], [0.0, 0.1, 0.3], ["p", "q", "q"])
    assert Contrast.model_validate_json(contrast.model_dump_json()) == contrast
