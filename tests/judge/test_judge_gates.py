"""Control gates and qualification on hand-built records: missing verdicts count against."""

from __future__ import annotations

import pytest
from judge_records import panel, source_records

from readout_audit.judge import analyse_judge
from readout_audit.judge.analysis import (
    PAPER_BOOTSTRAP_SEED,
    JudgeAnalysisSettings,
    JudgePanel,
    control_gates,
    qualify,
)

BARE = ("insertion", "bare_correct")


def _preflight(configuration: str, wrong=(), missing=()) -> list:
    """Twenty preflight sources; ``wrong``/``missing``: (source index, (presentation, cell))."""
    found = []
    for k in range(20):
        found += source_records(
            configuration,
            f"pre-{k:02d}",
            phase="preflight",
            wrong=[cell for i, cell in wrong if i == k],
            missing=[cell for i, cell in missing if i == k],
        )
    return found


def _gate(records, phase="preflight", presentation="insertion"):
    gates = control_gates(JudgePanel(records), ["c"])
    return next(g for g in gates if (g.phase, g.presentation) == (phase, presentation))


def test_a_missing_verdict_fails_a_gate_exactly_at_its_threshold():
    # 18 right + 1 wrong + 1 unknown: 18 < 19; the unknown would have been the 19th
    gate = _gate(_preflight("c", wrong=[(0, BARE)], missing=[(1, BARE)]))
    bare = gate.controls[0]
    assert (bare.cell, bare.right, bare.observed, bare.planned, bare.required) == (
        "bare_correct",
        18,
        19,
        20,
        19,
    )
    assert not bare.passed and not gate.passed and gate.n_unparsed == 1
    # 19 right + 1 wrong passes the threshold, and every response parsed
    gate = _gate(_preflight("c", wrong=[(0, BARE)]))
    assert gate.controls[0].right == 19 and gate.passed
    # 19 right + 1 unknown passes the count but not the parse requirement of preflight
    gate = _gate(_preflight("c", missing=[(0, BARE)]))
    assert gate.controls[0].passed and gate.n_unparsed == 1 and not gate.passed


def test_revision_needs_ninety_percent_and_fixtures_do_not_gate():
    revision = ("insertion", "revision")
    gate = _gate(_preflight("c", wrong=[(0, revision), (1, revision)]))
    assert gate.controls[3].right == 18 and gate.controls[3].required == 18 and gate.passed
    gate = _gate(_preflight("c", wrong=[(k, revision) for k in range(3)]))
    assert not gate.passed
    # a wrong no-answer fixture verdict is reported, not gating; an unparsed one fails parsing
    fixture = ("insertion", "no_answer")
    gate = _gate(_preflight("c", wrong=[(k, fixture) for k in range(5)]))
    no_answer = gate.fixtures[0]
    assert (no_answer.right, no_answer.planned, no_answer.required) == (15, 20, None)
    assert gate.passed
    assert not _gate(_preflight("c", missing=[(0, fixture)])).passed


def test_confirmation_189_of_200_fails_and_190_passes():
    wrong = {f"gsm8k-{k:03d}": [("sorted", "wrong_final_only")] for k in range(10)}
    missing = {"gsm8k-199": [("sorted", "wrong_final_only")]}
    records = panel("c", {"gsm8k": 200}, missing=missing)
    records = [r for r in records if r.source_id not in wrong]
    for source, cells in wrong.items():
        records += source_records("c", source, wrong=cells)
    gate = _gate(records, "confirmation", "sorted")
    final_only = gate.controls[2]
    assert (final_only.right, final_only.observed, final_only.required) == (189, 199, 190)
    assert not gate.passed
    # confirmation does not need every response parsed: the unknown only counts against
    assert _gate(panel("c", {"gsm8k": 200}, missing=missing), "confirmation", "sorted").passed


def test_a_planned_request_without_a_record_counts_against_its_gate():
    # 189 right of 200 planned, one record absent: 189/199 passed before the plan was kept
    wrong = {f"gsm8k-{k:03d}": [("sorted", "wrong_final_only")] for k in range(10)}
    planned = panel("c", {"gsm8k": 200})
    records = [r for r in planned if r.source_id not in wrong]
    for source, cells in wrong.items():
        records += source_records("c", source, wrong=cells)
    absent = "confirmation:c:gsm8k-199:wrong_final_only:sorted"
    records = [r for r in records if r.item_id != absent]
    settings = JudgeAnalysisSettings(n_boot=99)

    def final_only(summary):
        sorted_gates = [g for g in summary.gates if g.presentation == "sorted"]
        gate = next(g for g in sorted_gates if g.phase == "confirmation")
        return gate, gate.controls[2]

    gate, control = final_only(analyse_judge(records, settings))
    assert (control.right, control.planned, control.required) == (189, 199, 189) and gate.passed
    summary = analyse_judge(records, settings, planned=planned)
    gate, control = final_only(summary)
    counts = (control.right, control.observed, control.planned, control.required)
    assert counts == (189, 199, 200, 190) and not gate.passed
    assert summary.outcomes["unknown"] == 1 and summary.n_records == len(records)
    assert summary.coverage.missing == [absent]
    check = next(c for c in summary.checks if c.name == "planned")
    assert check.verdict == "fail" and absent in check.finding

    def planned_check(records, planned):
        summary = analyse_judge(records, settings, planned=planned)
        return next(c for c in summary.checks if c.name == "planned").verdict, summary.coverage

    whole = [*records, next(r for r in planned if r.item_id == absent)]
    assert planned_check(whole, planned)[0] == "pass"
    # a record the plan does not hold fails the same check
    verdict, coverage = planned_check(whole, [r for r in planned if r.item_id != absent])
    assert verdict == "fail" and coverage.n_unplanned == 1 and coverage.n_missing == 0


def test_a_request_sent_again_under_an_amendment_is_reported_and_not_counted():
    records = _preflight("c")
    replayed = records[0].model_copy(update={"metadata": {"amendment": "server restarted"}})
    summary = analyse_judge([replayed, *records[1:]], JudgeAnalysisSettings(n_boot=99))
    assert summary.amended == {replayed.item_id: "server restarted"}
    assert summary.outcomes == {"completed": len(records) - 1, "unknown": 1}
    gate = next(g for g in summary.gates if g.presentation == replayed.presentation)
    assert gate.n_unparsed == 1 and not gate.passed  # its right verdict does not count
    check = next(c for c in summary.checks if c.name == "amendment")
    assert check.verdict == "warn" and "server restarted" in check.finding


def test_the_family_is_the_inventorys_and_a_configuration_without_records_keeps_p_one():
    accepted = {f"gsm8k-{k:03d}": [("sorted", "random_colon")] for k in range(30)}
    good = _preflight("good") + panel("good", {"gsm8k": 60}, accepted=accepted)
    settings = JudgeAnalysisSettings.from_config(
        {
            "configurations": [{"name": "good"}],
            "family": [{"name": "bad"}, {"name": "good"}, {"name": "other"}],
            "analysis": {"n_boot": 999},
        }
    )
    summary = analyse_judge(good, settings)
    assert summary.family == ["bad", "good", "other"]
    primary = {p.configuration: p for p in summary.primary}
    assert primary["bad"].p_raw == primary["other"].p_raw == 1.0
    assert primary["good"].p_raw == 1 / 1000
    assert primary["good"].p_holm == pytest.approx(3 / 1000)  # Holm over three, not one
    assert primary["good"].seed == PAPER_BOOTSTRAP_SEED + 1  # its place in the family
    assert {g.configuration for g in summary.gates} == {"good"}  # gates only where records are
    assert len(summary.secondary) == 6 and {
        s.p_raw for s in summary.secondary if s.configuration != "good"
    } == {1.0}


def test_qualification_and_a_skipped_configuration_keeps_p_one():
    accepted = {f"gsm8k-{k:03d}": [("sorted", "random_colon")] for k in range(30)}
    failing = _preflight("bad", wrong=[(k, BARE) for k in range(2)]) + panel(
        "bad", {"gsm8k": 60}, accepted=accepted
    )
    passing = _preflight("good") + panel("good", {"gsm8k": 60}, accepted=accepted)
    settings = JudgeAnalysisSettings(n_boot=999)
    summary = analyse_judge(failing + passing, settings)
    qualification = {q.configuration: q for q in summary.qualification}
    assert qualification["bad"].preflight is False and qualification["bad"].skipped
    assert qualification["bad"].confirmation is True
    assert qualification["good"].preflight and qualification["good"].competent
    primary = {p.configuration: p for p in summary.primary}
    assert primary["bad"].skipped and primary["bad"].p_raw == 1.0 and not primary["bad"].success
    assert primary["bad"].test.estimate == 0.5  # described, not tested
    assert primary["good"].p_raw == 1 / 1000 and primary["good"].p_holm == 2 / 1000
    secondary = [s for s in summary.secondary if s.configuration == "bad"]
    assert [s.p_raw for s in secondary] == [1.0, 1.0] and secondary[1].forward == 30
    failed = [c for c in summary.checks if c.verdict == "fail"]
    assert [c.name for c in failed] == ["gate[preflight:bad:insertion]"]
    assert "bare_correct 18/20 (≥ 19)" in failed[0].finding and "skipped" in failed[0].finding


def test_qualification_is_none_for_a_phase_without_records():
    gates = control_gates(JudgePanel(panel("c", {"gsm8k": 4})), ["c"])
    (only,) = qualify(gates, ["c"])
    assert only.preflight is None and only.confirmation is True and not only.skipped
