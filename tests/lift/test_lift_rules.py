"""Scoring rules on per-token log-probabilities: hand-worked values, relations, bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest

from readout_audit import InputError
from readout_audit.lift import HEADLINE, RULES, TokenScore, score_tokens, token_values

LAMBDA = [-0.1, -3.0, -0.5]
HAND = {
    "raw": (-0.1 - 3.0 - 0.5) / 3,
    "clip2": (-0.1 - 2.0 - 0.5) / 3,
    "clip3": (-0.1 - 3.0 - 0.5) / 3,
    "clip5": (-0.1 - 3.0 - 0.5) / 3,
    "sqrt": -(math.sqrt(0.1) + math.sqrt(3.0) + math.sqrt(0.5)) / 3,
    "log1p": -(math.log(1.1) + math.log(4.0) + math.log(1.5)) / 3,
}


def test_rules_in_appendix_b_order_with_clip2_headline():
    assert RULES == ("raw", "clip2", "clip3", "clip5", "sqrt", "log1p")
    assert HEADLINE == "clip2"


@pytest.mark.parametrize("rule", RULES)
def test_hand_worked_scores(rule):
    result = score_tokens(LAMBDA, rule)
    assert result.score == pytest.approx(HAND[rule], abs=1e-15)
    assert (result.scored, result.tokens, result.rule) == (3, 3, rule)


def test_hand_worked_numbers_written_out():
    assert score_tokens(LAMBDA, "clip2").score == pytest.approx(-0.8666666666666667)
    assert score_tokens(LAMBDA, "raw").score == pytest.approx(-1.2)
    assert score_tokens(LAMBDA, "sqrt").score == pytest.approx(-0.918462, abs=1e-6)
    assert score_tokens(LAMBDA, "log1p").score == pytest.approx(-0.629023, abs=1e-6)


def test_window_scores_the_first_tokens_and_records_how_many():
    first_two = score_tokens(LAMBDA, "clip2", window=2)
    assert first_two.score == pytest.approx((-0.1 - 2.0) / 2)
    assert (first_two.scored, first_two.tokens) == (2, 3)
    longer = score_tokens(LAMBDA, "clip2", window=400)
    assert longer == score_tokens(LAMBDA, "clip2")
    assert (longer.scored, longer.tokens) == (3, 3)
    assert score_tokens(LAMBDA, "raw", window=1).score == pytest.approx(-0.1)


def test_tiny_positive_rounding_is_clamped():
    assert score_tokens([5e-7, -1.0], "raw").score == -0.5
    assert score_tokens([1e-6], "sqrt").score == 0.0


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ([-0.5, 2e-6], r"log-probabilities <= 0 .* got 2e-06 at token 1"),
        ([-0.5, float("nan")], "got nan at token 1"),
        ([float("-inf")], "got -inf at token 0"),
        ([], "non-empty 1-D"),
        ([[-0.1, -0.2]], "non-empty 1-D"),
    ],
)
def test_bad_log_probabilities_are_rejected_with_item_and_field(values, message):
    with pytest.raises(InputError, match=message) as caught:
        score_tokens(values, "clip2", item_id="p1:eq3", field="forecast")
    assert "item 'p1:eq3', field 'forecast'" in str(caught.value)


@pytest.mark.parametrize("window", [0, -1, True, 2.5])
def test_bad_window(window):
    with pytest.raises(ValueError, match="window"):
        score_tokens(LAMBDA, "clip2", window=window)


def test_unknown_rule():
    with pytest.raises(ValueError, match="rule"):
        score_tokens(LAMBDA, "clip4")  # type: ignore[arg-type]


def test_relations_between_rules_on_random_targets():
    """Appendix A/B: raw ≤ clip5 ≤ clip3 ≤ clip2 ≤ 0, with clip2 − raw = mean(max(0, −2 − λ))."""
    rng = np.random.default_rng(11)
    for _ in range(200):
        lam = -rng.exponential(rng.choice([0.3, 1.5, 4.0]), size=int(rng.integers(1, 60)))
        s = {rule: score_tokens(lam, rule).score for rule in RULES}
        assert s["raw"] <= s["clip5"] <= s["clip3"] <= s["clip2"] <= 0
        assert s["clip2"] - s["raw"] == pytest.approx(np.mean(np.maximum(0, -2 - lam)))
        assert s["log1p"] >= s["raw"]  # log(1 + x) <= x
        if lam.min() >= -2:
            assert s["clip2"] == s["raw"]


def test_sqrt_rule_is_harsher_than_raw_above_minus_one_and_softer_below():
    near = np.array([-0.01, -0.25, -0.9])
    far = np.array([-1.5, -4.0, -9.0])
    assert np.all(token_values(near, "sqrt") < near)
    assert np.all(token_values(far, "sqrt") > far)
    assert token_values(np.array([-1.0]), "sqrt")[0] == -1.0


# Appendix A Table 1 (Qwen3-8B): (raw, clipLL_2, vs. empty) per condition, per case.
TABLE_1 = {
    "X+A+B": {
        "context": (-1.949, -1.103, 0.440),
        "exact": (-0.008, -0.008, 1.534),
        "reordered": (-0.713, -0.407, 1.135),
        "wrong": (-3.238, -0.900, 0.642),
        "empty": (-3.305, -1.543, 0.000),
    },
    "X+B+A": {
        "context": (-3.154, -1.529, 0.393),
        "exact": (-0.011, -0.011, 1.911),
        "reordered": (-0.869, -0.438, 1.484),
        "wrong": (-4.129, -1.200, 0.721),
        "empty": (-4.241, -1.922, 0.000),
    },
}


@pytest.mark.parametrize("case", TABLE_1)
def test_paper_table_1_obeys_the_rule_relations(case):
    """clipLL_2 ≥ raw on every row; "vs. empty" is the clipLL_2 difference (to rounding)."""
    rows = TABLE_1[case]
    empty_clip = rows["empty"][1]
    for raw, clip, vs_empty in rows.values():
        assert clip >= raw
        assert vs_empty == pytest.approx(clip - empty_clip, abs=0.0015)


def test_token_score_round_trips_through_json():
    result = score_tokens(LAMBDA, "log1p", window=2)
    assert TokenScore.model_validate_json(result.model_dump_json()) == result
