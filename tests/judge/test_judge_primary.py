"""The primary interaction on hand-worked records: D_i, weights, bootstrap, fallback, bounds."""

from __future__ import annotations

import math

import pytest
from judge_records import panel, source_records

from readout_audit._exceptions import InputError
from readout_audit.judge import analyse_judge
from readout_audit.judge.analysis import (
    JudgeAnalysisSettings,
    JudgePanel,
    interaction_test,
    panel_bounds,
    primary_cells,
)

SORTED_COLON, SORTED_R = ("sorted", "random_colon"), ("sorted", "random")
INSERTION_COLON, INSERTION_R = ("insertion", "random_colon"), ("insertion", "random")


@pytest.mark.parametrize(
    ("accepted", "expected"),
    [
        ([], 0),
        ([SORTED_COLON], 1),
        ([SORTED_COLON, INSERTION_R], 2),
        ([SORTED_R, INSERTION_COLON], -2),
        ([INSERTION_COLON], -1),
        ([SORTED_COLON, SORTED_R, INSERTION_COLON, INSERTION_R], 0),
        ([SORTED_COLON, INSERTION_COLON], 0),
    ],
)
def test_d_is_the_difference_of_the_two_presentations_cue_effects(accepted, expected):
    records = source_records("c", "s", accepted=accepted)
    (cells,) = primary_cells(JudgePanel(records), "c")
    assert cells.complete and cells.interaction == expected


def test_repeats_and_controls_do_not_enter_d_and_an_unknown_cell_leaves_it_incomplete():
    records = source_records("c", "s", accepted=[("sorted", "random_colon_repeat")])
    (cells,) = primary_cells(JudgePanel(records), "c")
    assert cells.interaction == 0
    records = source_records("c", "s", accepted=[SORTED_COLON], missing=[INSERTION_R])
    (cells,) = primary_cells(JudgePanel(records), "c")
    assert not cells.complete and math.isnan(cells.interaction)
    assert cells.values[:3] == (1.0, 0.0, 0.0) and math.isnan(cells.values[3])


def test_weighted_estimate_differs_from_the_pooled_mean_with_unequal_datasets():
    # drop: D = −1, 0 (mean −.5); gsm8k: D = 0, 0, 0, −1 (mean −.25)
    test = interaction_test(
        [-1, 0, 0, 0, 0, -1],
        ["drop", "drop", "gsm8k", "gsm8k", "gsm8k", "gsm8k"],
        {"drop": 0.5, "gsm8k": 0.5},
        n_boot=2_000,
        seed=1,
    )
    assert test.estimate == pytest.approx(-0.375) and test.pooled == pytest.approx(-1 / 3)
    assert test.method == "bootstrap" and test.n_complete == {"drop": 2, "gsm8k": 4}
    assert -2 <= test.low < test.estimate < test.high <= 0
    reweighted = interaction_test(
        [-1, 0, 0, 0, 0, -1],
        ["drop", "drop", "gsm8k", "gsm8k", "gsm8k", "gsm8k"],
        {"drop": 0.7, "gsm8k": 0.3},
        n_boot=2_000,
        seed=1,
    )
    assert reweighted.estimate == pytest.approx(0.7 * -0.5 + 0.3 * -0.25)


def test_centred_bootstrap_p_is_one_at_zero_and_floored_far_from_it():
    at_zero = interaction_test([1, -1, 0, 1, -1], ["a"] * 5, {"a": 1.0}, n_boot=999, seed=3)
    assert at_zero.estimate == 0 and at_zero.p_value == 1.0  # every draw is a hit
    # 99 sources at +1 and one at 0 per dataset: no draw deviates by |θ̂| ≈ .99
    values = ([1] * 99 + [0]) * 2
    floor = interaction_test(
        values, ["drop"] * 100 + ["gsm8k"] * 100, {"drop": 0.5, "gsm8k": 0.5}, n_boot=49_999, seed=5
    )
    assert floor.method == "bootstrap" and floor.p_value == 1 / 50_000


def test_constant_samples_use_the_hoeffding_fallback():
    # every D = +1 in both datasets of ten: S = .25/10 + .25/10 = .05
    test = interaction_test(
        [1] * 20, ["a"] * 10 + ["b"] * 10, {"a": 0.5, "b": 0.5}, n_boot=9, seed=0
    )
    half = 4 * math.sqrt(0.05 * math.log(40) / 2)
    assert test.method == "hoeffding" and test.estimate == 1.0
    assert (test.low, test.high) == pytest.approx((1 - half, 2.0))  # truncated at 2
    assert test.p_value == pytest.approx(2 * math.exp(-1 / (8 * 0.05)))
    # one dataset constant is not enough: the other still varies
    mixed = interaction_test(
        [1] * 10 + [0, 1] * 5, ["a"] * 10 + ["b"] * 10, {"a": 0.5, "b": 0.5}, n_boot=99, seed=0
    )
    assert mixed.method == "bootstrap"


def test_a_weighted_dataset_without_complete_sources_gives_no_inference():
    test = interaction_test([1, 0], ["a", "a"], {"a": 0.5, "b": 0.5}, n_boot=99, seed=0)
    assert test.estimate is None and test.method == "none" and test.p_value == 1.0
    assert test.pooled == 0.5 and test.n_complete == {"a": 2, "b": 0}


def test_missingness_bounds_set_each_unknown_indicator_to_zero_and_one():
    # gsm8k-000: D = +1 complete; gsm8k-001: sorted R unknown (sign −), rest rejected;
    # gsm8k-002: sorted R: unknown (sign +) and insertion R accepted (+1 known)
    records = panel(
        "c",
        {"gsm8k": 3},
        accepted={"gsm8k-000": [SORTED_COLON], "gsm8k-002": [INSERTION_R]},
        missing={"gsm8k-001": [SORTED_R], "gsm8k-002": [SORTED_COLON]},
    )
    cells = primary_cells(JudgePanel(records), "c")
    lower, upper = panel_bounds(cells, {"gsm8k": 1.0})
    # known sum 1 + 1 = 2; unknowns add [−1, 0] and [0, +1]; over three planned sources
    assert (lower, upper) == pytest.approx((1 / 3, 1.0))
    assert panel_bounds(cells, {"gsm8k": 0.5, "drop": 0.5}) is None


def test_settings_from_a_manifest_config():
    settings = JudgeAnalysisSettings.from_config(
        {
            "configurations": [
                {"name": "jev-final3", "bootstrap_seed": 20261007154},
                {"name": "sol", "contract": "FINAL3"},
            ],
            "dataset_weights": {"drop": 0.7, "gsm8k": 0.3},
            "analysis": {"n_boot": 999},
        }
    )
    family = settings.family(["sol"])
    assert family == ["jev-final3", "sol"] and settings.n_boot == 999
    assert settings.seed("jev-final3", family) == 20261007154
    assert settings.seed("sol", family) == 20261007155
    assert settings.weights(["drop"]) == {"drop": 0.7, "gsm8k": 0.3}
    with pytest.raises(InputError, match=r"dataset\(s\) \['halu'\] have no weight"):
        settings.weights(["halu"])
    with pytest.raises(InputError, match="outside the analysis family"):
        settings.family(["other"])
    with pytest.raises(InputError, match="dataset_weights"):
        JudgeAnalysisSettings.from_config({"dataset_weights": {"drop": 0.7, "gsm8k": 0.7}})
    assert JudgeAnalysisSettings().weights(["b", "a"]) == {"a": 0.5, "b": 0.5}


def test_two_records_for_one_planned_request_are_refused():
    records = source_records("c", "s")
    with pytest.raises(InputError, match="two records for one planned request"):
        JudgePanel([*records, records[0]])


def test_a_preflight_only_run_has_an_untested_primary_slot():
    records = source_records("c", "s1", phase="preflight") + source_records(
        "c", "s2", phase="preflight", dataset="drop"
    )
    summary = analyse_judge(records)
    (slot,) = summary.primary
    assert slot.bounds is None and slot.p_raw == 1.0 and not slot.success
    assert [(q.preflight, q.confirmation) for q in summary.qualification] == [(True, None)]
