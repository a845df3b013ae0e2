"""A study run read as a whole: the inventory's family, gates as checks, the plan's size."""

from __future__ import annotations

import pytest
from statsmodels.stats.multitest import multipletests
from study_banks import BANKS, REPEAT_JUDGES

from readout_audit._exceptions import InputError
from readout_audit.judge import (
    PAPER_SEED,
    JudgeSummary,
    Study,
    analyse_judge,
    build_study_inventory,
    build_switch_inventory,
    register_study,
)
from readout_audit.judge.analysis import (
    Chronology,
    JudgeAnalysisSettings,
    PilotAnalysis,
    SwitchAnalysis,
    switch_section,
)
from readout_audit.judge.inventory import build_pilot_inventory
from readout_audit.judge.protocol import parse_cell, planned_record
from readout_audit.judge.run._run import run_config
from readout_audit.judge.studies import STUDIES, get_study
from readout_audit.report._blocks import TableBlock

JEV, LIQUID = REPEAT_JUDGES
ITEMS = 8
CUE = {  # (bridge, world) -> p(correct): R: raises q_c under X and lowers it under Y
    ("random_colon", "x"): 0.8,
    ("random", "x"): 0.2,
    ("random_colon", "y"): 0.3,
    ("random", "y"): 0.9,
}
COLON = {("colon", "x"): 0.7, ("blank", "x"): 0.5, ("colon", "y"): 0.4, ("blank", "y"): 0.6}
"""colon/blank in the first five sources; the other three read colon as blank (d = 0)."""


def _p_correct(request, wrong_controls: set[str]) -> float:
    bridge, world, _ = parse_cell(request.cell)
    index = int(request.source_id.rsplit(":", 1)[1])
    if bridge.startswith("final_"):
        right = request.target_label == "correct"
        if index < 3 and bridge == f"final_{world}" and f"final_{world}@{world}" in wrong_controls:
            right = not right  # three of eight misgraded: 5/8 against the required 7
        return 0.9 if right else 0.1
    if (bridge, world) in CUE:
        return CUE[(bridge, world)]
    return COLON[(bridge, world)] if index < 5 else 0.5


def jev_run(wrong_controls: frozenset[str] = frozenset()):
    """A Jev run of a Jev+Liquid switch inventory: its records and its run's settings."""
    inventory = build_switch_inventory([JEV, LIQUID], seed=PAPER_SEED, items=ITEMS)
    planned = [r for r in inventory.requests if r.configuration == JEV.name]
    records = []
    for request in planned:
        p = _p_correct(request, set(wrong_controls))
        probs = {"correct": p, "incorrect": 1 - p, "no_answer": 0.0}
        verdict = "correct" if p > 0.5 else "incorrect"
        records.append(planned_record(request, "completed", verdict=verdict, label_probs=probs))
    config = {**run_config(inventory, [JEV]), "analysis": {"n_boot": 99}}
    return records, planned, JudgeAnalysisSettings.from_config(config)


def test_a_run_of_one_judge_adjusts_over_the_inventorys_four_comparisons():
    records, planned, settings = jev_run()
    summary = analyse_judge(records, settings, [planned_record(r, "unknown") for r in planned])
    switch = summary.study_result
    assert isinstance(switch, SwitchAnalysis)
    rows = {(c.configuration, c.comparison): c for c in switch.comparisons}
    assert list(rows) == [
        ("jev", "R:/R"),
        ("jev", "colon/blank"),
        ("liquid", "R:/R"),
        ("liquid", "colon/blank"),
    ]
    # eight sources all in the predicted directions: 2^-8; five nonzero colon effects: 2^-5
    assert rows[("jev", "R:/R")].test.p_raw == 2.0**-8
    assert rows[("jev", "colon/blank")].test.p_raw == 2.0**-5
    raw = [c.test.p_raw for c in rows.values()]
    assert raw[2:] == [1.0, 1.0]  # Liquid was not run: p = 1 holds its slots
    _, expected, _, _ = multipletests(raw, method="holm")
    assert [c.test.p_holm for c in rows.values()] == pytest.approx(list(expected), abs=1e-15)
    # 2^-5 at Holm rank 2 of 4: 3 x .03125, no longer the .03125 of a two-slot family
    assert rows[("jev", "colon/blank")].test.p_holm == pytest.approx(0.09375)
    # only the judge run has gates; the one not run is said to be, not shown as 0/0 failed
    assert {g.configuration for g in switch.gates} == {"jev"}
    assert [c.qualified for c in rows.values()] == [True, True, None, None]
    assert rows[("liquid", "R:/R")].test.n == 0 and rows[("liquid", "R:/R")].slopes is None
    section = switch_section(switch)
    text = str([block.rows for block in section.blocks if isinstance(block, TableBlock)])
    assert "not run" in text and "0/0" not in text
    checks = {c.name: c.verdict for c in summary.checks}
    assert checks["gate[reference-switch:jev]"] == "pass" and checks["planned"] == "pass"
    assert not any(name.endswith(":liquid]") for name in checks)


def test_failed_switch_gates_fail_a_check_and_leave_the_tests_unqualified():
    records, planned, settings = jev_run(frozenset({"final_x@x", "final_y@y"}))
    summary = analyse_judge(records, settings, [planned_record(r, "unknown") for r in planned])
    switch = summary.study_result
    assert isinstance(switch, SwitchAnalysis)
    failed = [g.cell for g in switch.gates if not g.passed]
    assert failed == ["final_x@x", "final_y@y"]  # 5/8 right where ⌊95 × 8 / 100⌋ = 7 are needed
    check = next(c for c in summary.checks if c.name == "gate[reference-switch:jev]")
    assert check.verdict == "fail" and "2 of 4 clean controls failed" in check.finding
    assert "final_x@x 5/8 (≥ 7)" in check.finding
    jev = [c for c in switch.comparisons if c.configuration == "jev"]
    assert [c.qualified for c in jev] == [False, False]
    assert jev[0].test.p_raw == 2.0**-8  # the p-value stands, beside its unqualified mark
    tests = switch_section(switch).blocks[1]
    assert isinstance(tests, TableBlock) and tests.title.startswith("Directional tests")
    gates = tests.columns.index("gates")
    assert [row[gates] for row in tests.rows] == [
        "failed: unqualified",
        "failed: unqualified",
        "not run",
        "not run",
    ]


def test_a_plan_that_lost_a_request_fails_against_the_inventorys_counts():
    records, planned, settings = jev_run()
    assert settings.inventory_counts == {"jev": {"confirmation": 20 * ITEMS}}
    lost = planned[5]
    kept = [planned_record(r, "unknown") for r in planned if r is not lost]
    answered = [r for r in records if r.item_id != lost.request_id]
    summary = analyse_judge(answered, settings, kept)
    assert summary.coverage is not None
    assert summary.coverage.short == [f"jev confirmation: kept {20 * ITEMS - 1}, inventory 160"]
    check = next(c for c in summary.checks if c.name == "planned")
    assert check.verdict == "fail" and "disagrees with the inventory" in check.finding


def test_a_study_run_has_no_chronology_check():
    records, _, settings = jev_run()
    unbalanced = Chronology(n_sent=4, counts=[{}] * 4, missing=["q1: random/sorted"])
    summary = analyse_judge(records, settings, chronology=unbalanced)
    assert summary.chronology is None
    assert "chronology" not in {c.name for c in summary.checks}


def test_the_pilot_gates_and_qualifies_only_the_configurations_run():
    inventory = build_pilot_inventory(BANKS, [JEV, LIQUID], seed=PAPER_SEED, per_dataset=2)
    records = [
        planned_record(r, "completed", verdict=r.target_label or "incorrect")
        for r in inventory.requests
        if r.configuration == LIQUID.name
    ]
    config = {**run_config(inventory, [LIQUID]), "analysis": {"n_boot": 99}}
    summary = analyse_judge(records, JudgeAnalysisSettings.from_config(config))
    pilot = summary.study_result
    assert isinstance(pilot, PilotAnalysis)
    assert {g.configuration for g in pilot.gates} == {"liquid"}
    assert all(g.planned == 4 and g.passed for g in pilot.gates)
    assert [t.qualified for t in pilot.primary] == [None, True]
    assert pilot.primary[0].p_holm == 1.0
    assert {c.name for c in summary.checks if c.name.startswith("gate[")} == {
        "gate[formatting-pilot:liquid]"
    }


def test_a_summary_written_with_one_field_per_study_reads_as_its_study_result():
    records, planned, settings = jev_run()
    summary = analyse_judge(records, settings, [planned_record(r, "unknown") for r in planned])
    written = summary.model_dump(mode="json")
    old = {k: v for k, v in written.items() if k != "study_result"}
    old["switch"] = {k: v for k, v in written["study_result"].items() if k != "study"}
    read = JudgeSummary.model_validate(old)  # a summary.json from before study_result
    assert read.study_result == summary.study_result
    assert isinstance(read.study_result, SwitchAnalysis) and read == summary


def test_a_registered_study_is_built_and_refused_by_name():
    inventory = build_switch_inventory([JEV], seed=PAPER_SEED, items=ITEMS)
    built: list[int] = []
    study = Study(
        "echo-study",
        build=lambda inputs: built.append(inputs.seed) or inventory,
        check_configurations=lambda configurations: None,
    )
    register_study(study)
    try:
        assert build_study_inventory("echo-study", [JEV], seed=7) is inventory
        assert built == [7]
        with pytest.raises(ValueError, match="'echo-study' is already registered"):
            register_study(study)
        with pytest.raises(InputError, match="the echo-study study draws no sources per dataset"):
            build_study_inventory("echo-study", [JEV], seed=7, per_dataset=3)
    finally:
        del STUDIES["echo-study"]
    with pytest.raises(InputError, match="'echo-study' is not one of confirmation, decomposition"):
        get_study("echo-study")
