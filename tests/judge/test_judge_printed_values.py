"""Seed 004's printed arithmetic, from its printed counts, through the judge analysis."""

from __future__ import annotations

import math

import pytest
from judge_records import panel

from readout_audit.judge import analyse_judge
from readout_audit.judge.analysis import JudgeAnalysisSettings, directional_family, required_correct
from readout_audit.stats import hoeffding_epsilon

SORTED_COLON = ("sorted", "random_colon")


def _accepting(n_drop: int, n_gsm8k: int) -> dict[str, list[tuple[str, str]]]:
    """Sources whose sorted R: candidate is accepted (every other primary cell rejected)."""
    return {
        **{f"drop-{k:03d}": [SORTED_COLON] for k in range(n_drop)},
        **{f"gsm8k-{k:03d}": [SORTED_COLON] for k in range(n_gsm8k)},
    }


@pytest.fixture(scope="module")
def confirmation():
    """The confirmation study's counts: 100 DROP + 100 GSM8K sources per configuration.

    Jev FINAL3 accepts 50 sorted R: candidates and Jev FINAL4 47, nothing else; Sol accepts
    nothing and has six unknown outcomes: four primary cells (one DROP, three GSM8K sources)
    and two controls.
    """
    sizes = {"drop": 100, "gsm8k": 100}
    sol_missing = {
        "drop-000": [("sorted", "random")],
        **{f"gsm8k-{k:03d}": [SORTED_COLON] for k in range(3)},
        "gsm8k-050": [("insertion", "bare_correct")],
        "gsm8k-051": [("insertion", "bare_correct")],
    }
    records = (
        panel("jev-final3", sizes, accepted=_accepting(25, 25))
        + panel("jev-final4", sizes, accepted=_accepting(24, 23))
        + panel("sol-final3", sizes, missing=sol_missing)
    )
    settings = JudgeAnalysisSettings(configurations=["jev-final3", "jev-final4", "sol-final3"])
    return analyse_judge(records, settings)


def test_secondary_holm_values_of_50_0_and_47_0_in_a_six_test_family(confirmation):
    rows = {(s.configuration, s.presentation): s for s in confirmation.secondary}
    assert len(rows) == 6
    final3, final4 = rows[("jev-final3", "sorted")], rows[("jev-final4", "sorted")]
    assert (final3.forward, final3.reverse, final4.forward, final4.reverse) == (50, 0, 47, 0)
    assert final3.p_raw == 2 * 2.0**-50 and final4.p_raw == 2 * 2.0**-47
    assert f"{final3.p_holm:.2e}" == "1.07e-14" and f"{final4.p_holm:.2e}" == "7.11e-14"
    others = [s.p_holm for k, s in rows.items() if s not in (final3, final4)]
    assert others == [1.0, 1.0, 1.0, 1.0]
    assert final3.excess == 0.25
    # Sol's four unknown primary cells are all sorted ones: four pairs lost there
    assert [rows[("sol-final3", s)].n_pairs for s in ("sorted", "insertion")] == [196, 200]


def test_primary_bootstrap_floor_and_sol_hoeffding_fallback(confirmation):
    primary = {p.configuration: p for p in confirmation.primary}
    jev3, jev4, sol = primary["jev-final3"], primary["jev-final4"], primary["sol-final3"]
    assert [jev3.seed, jev4.seed, sol.seed] == [20261007154, 20261007155, 20261007156]
    assert jev3.test.estimate == pytest.approx(0.25) and jev4.test.estimate == pytest.approx(0.235)
    # no draw moves θ* by |θ̂|: the raw Monte Carlo floor, adjusted .00006 at Holm ranks 1-2
    assert jev3.p_raw == jev4.p_raw == 1 / 50_000 and jev3.test.method == "bootstrap"
    assert [jev3.p_holm, jev4.p_holm] == pytest.approx([6e-5, 6e-5])
    assert jev3.success and jev4.success and not sol.success
    # Sol: zero interaction on 99 + 97 complete sources, both samples constant
    assert sol.test.n_complete == {"drop": 99, "gsm8k": 97} and sol.test.method == "hoeffding"
    assert sol.test.estimate == 0.0 and sol.p_raw == 1.0 and sol.p_holm == 1.0
    assert f"{100 * sol.test.high:.1f}" == "38.8" and sol.test.low == -sol.test.high
    expected = 4 * math.sqrt((0.25 / 99 + 0.25 / 97) * math.log(40) / 2)
    assert sol.test.high == pytest.approx(expected)
    # the full planned panel: one unknown indicator with a negative sign, three positive
    assert sol.bounds == pytest.approx((-0.005, 0.015))
    assert jev3.bounds == pytest.approx((0.25, 0.25))


def test_missing_controls_count_against_the_gates_but_pass_here(confirmation):
    gates = {(g.configuration, g.presentation): g for g in confirmation.gates}
    insertion = {c.cell: c for c in gates[("sol-final3", "insertion")].controls}
    assert (insertion["bare_correct"].right, insertion["bare_correct"].planned) == (198, 200)
    assert insertion["bare_correct"].required == 190 and insertion["revision"].required == 180
    assert all(g.passed for g in confirmation.gates)
    assert confirmation.outcomes == {"completed": 9594, "unknown": 6}


def test_mcnemar_32_0_is_two_to_the_minus_31():
    accepted = {f"gsm8k-{k:03d}": [SORTED_COLON] for k in range(32)}
    summary = analyse_judge(panel("final3", {"gsm8k": 240}, accepted=accepted))
    sorted_test = next(s for s in summary.secondary if s.presentation == "sorted")
    assert (sorted_test.forward, sorted_test.reverse) == (32, 0)
    assert sorted_test.p_raw == 2.0**-31 and f"{sorted_test.p_raw:.4e}" == "4.6566e-10"
    assert sorted_test.p_holm == 2.0**-30  # Holm over this configuration's two presentations


def test_gate_thresholds_printed_in_the_paper():
    assert [required_correct("bare_correct", n) for n in (200, 20, 80, 16, 24)] == [
        190,
        19,
        76,
        15,
        22,
    ]
    assert [required_correct("revision", n) for n in (200, 20, 80, 16)] == [180, 18, 72, 14]


def test_hoeffding_epsilon_of_the_cue_search_screen():
    assert f"{hoeffding_epsilon(145, 12, 0.05):.2f}" == "0.60"


def test_sign_flip_floor_03125_becomes_0625_at_holm_rank_three():
    zeros = [0.0] * 9
    family = directional_family(
        {
            "jev R:/R": ([0.3] * 24, [-0.08] * 24),
            "liquid colon/blank": ([0.1] * 24, [-0.05] * 24),
            # fifteen nonzero differences under X and five under Y: the floor is 2^-5
            "jev colon/blank": ([0.2] * 15 + zeros, [-0.1] * 5 + zeros + [0.0] * 10),
            "liquid R:/R": ([0.1, -0.1] * 12, [-0.1, 0.1] * 12),
        }
    )
    rows = {r.name: r for r in family}
    colon_blank = rows["jev colon/blank"]
    assert colon_blank.p_increase == 2.0**-15 and colon_blank.p_decrease == 0.03125
    assert colon_blank.p_raw == 0.03125 and colon_blank.p_holm == 0.0625
    assert rows["jev R:/R"].p_raw == 2.0**-24 and rows["jev R:/R"].p_holm == 4 * 2.0**-24
    assert rows["liquid R:/R"].p_holm == rows["liquid R:/R"].p_raw > 0.5
