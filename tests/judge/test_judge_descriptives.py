"""Acceptance tables, duplicate requests and label mass on hand-built records."""

from __future__ import annotations

from judge_records import panel, record, source_records

from readout_audit.judge import analyse_judge
from readout_audit.judge.analysis import (
    JudgePanel,
    acceptance_table,
    duplicate_table,
    label_mass_table,
)

SORTED_COLON = ("sorted", "random_colon")


def test_acceptance_per_cell_overall_per_dataset_and_distance():
    records = panel(
        "c",
        {"drop": 2, "gsm8k": 2},
        accepted={"drop-000": [SORTED_COLON], "gsm8k-001": [SORTED_COLON]},
        missing={"gsm8k-000": [("insertion", "random")]},
    )
    rows = {
        (a.presentation, a.cell, a.group): (a.accepted, a.observed, a.planned)
        for a in acceptance_table(JudgePanel(records), ["c"])
    }
    # drop-000 and gsm8k-000 are near, drop-001 and gsm8k-001 far
    assert rows[("sorted", "random_colon", "all")] == (2, 4, 4)
    assert rows[("sorted", "random_colon", "drop")] == (1, 2, 2)
    assert rows[("sorted", "random_colon", "near")] == (1, 2, 2)
    assert rows[("sorted", "random_colon", "far")] == (1, 2, 2)
    assert rows[("insertion", "random", "all")] == (0, 3, 4)
    assert rows[("insertion", "random", "gsm8k")] == (0, 1, 2)
    assert rows[("insertion", "bare_correct", "all")] == (4, 4, 4)  # correct is accepting
    assert len(rows) == 2 * 8 * 5


def test_a_control_without_a_mutation_takes_its_sources_distance():
    records = [
        record("c", "s", "random", "sorted", "incorrect", distance="far"),
        record("c", "s", "bare_correct", "sorted", "correct", distance=None),
    ]
    rows = acceptance_table(JudgePanel(records), ["c"])
    assert {(a.cell, a.group) for a in rows if a.group == "far"} == {
        ("random", "far"),
        ("bare_correct", "far"),
    }


def test_duplicates_count_sources_whose_verdict_changed():
    repeat = ("sorted", "random_colon_repeat")
    records = (
        source_records("c", "s0", accepted=[SORTED_COLON])
        + source_records("c", "s1", accepted=[SORTED_COLON, repeat])
        + source_records("c", "s2", accepted=[repeat])
        + source_records("c", "s3", missing=[repeat])
    )
    rows = {(d.presentation, d.cell): d for d in duplicate_table(JudgePanel(records), ["c"])}
    colon = rows[("sorted", "random_colon")]
    assert (colon.primary_accepted, colon.primary_observed) == (2, 4)
    assert (colon.repeat_accepted, colon.repeat_observed) == (2, 3)
    assert (colon.n_pairs, colon.changed, colon.accepted_both) == (3, 2, 1)
    assert rows[("insertion", "random")].changed == 0 and len(rows) == 4


def test_label_mass_below_the_floor_is_flagged():
    records = [
        record("local", f"s{k}", "random", "sorted", "incorrect", mass=m)
        for k, m in enumerate([0.9, 0.3, 0.2])
    ] + [record("served", "s0", "random", "sorted", "incorrect")]
    local, served = label_mass_table(records, ["local", "served"])
    assert (local.n_measured, local.median, local.min, local.n_below_floor) == (3, 0.3, 0.2, 2)
    assert local.share_below == 2 / 3 and served.n_measured == 0 and served.share_below is None
    checks = {c.name: c for c in analyse_judge(records).checks}
    flagged = checks["label_mass[local]"]
    assert flagged.verdict == "warn" and "2 of 3 records (66.7%)" in flagged.finding
    assert "collapse" in flagged.finding and "label_mass[served]" not in checks
    assert checks["outcomes"].verdict == "pass"
