"""Above-floor repeat controls: the paper's "43 of the 46 rise, three tie, none fall"."""

from __future__ import annotations

from study_banks import repeat_panel

from readout_audit.judge.analysis import RepeatAnalysis, repeat_section, score_shift
from readout_audit.judge.analysis._contrasts import StudyPanel
from readout_audit.judge.protocol import planned_record
from readout_audit.report import MISSING

WEIGHTS = {"drop": 0.7, "halueval": 0.3}


def _panel(scores: list[tuple[float, float]]) -> StudyPanel:
    """Jev's first-pass R (control) and R: (cue) with X, per source (control, cue) scores."""
    requests = [
        r
        for r in repeat_panel().requests
        if r.configuration == "jev" and r.cell in ("x.random", "x.random_colon")
    ]
    by_source = {s: k for k, s in enumerate(dict.fromkeys(r.source_id for r in requests))}
    records = []
    for r in requests:
        p = scores[by_source[r.source_id]][r.cell == "x.random_colon"]
        probs = {"correct": p, "incorrect": 1 - p, "no_answer": 0.0}
        records.append(planned_record(r, "completed", verdict="incorrect", label_probs=probs))
    return StudyPanel(records, "sorted")


def test_the_above_floor_controls_reproduce_the_printed_counts_by_hand():
    # 43 above-floor controls rise, 3 tie; 34 display zero: 26 rise from it, 8 stay
    scores = [(0.1, 0.5)] * 43 + [(0.2, 0.2)] * 3 + [(0.0, 0.3)] * 26 + [(0.0, 0.0)] * 8
    shift = score_shift(_panel(scores), "jev", WEIGHTS, n_boot=200, seed=0)
    assert shift.pairs == 80 and shift.control_at_zero == 34
    assert (shift.rises, shift.ties, shift.falls) == (69, 11, 0)  # "rises on 69/80 sources"
    above = (shift.rises_above_floor, shift.ties_above_floor, shift.falls_above_floor)
    assert above == (43, 3, 0)
    found = RepeatAnalysis(
        gates=[],
        primary=[],
        secondary=[],
        passes=[],
        patterns={},
        agreement=[],
        fixtures=[],
        shift=[shift],
    )
    table = next(b for b in repeat_section(found).blocks if b.title.startswith("Paired score"))
    assert table.rows[0][table.columns.index("above 0: up / tie / down")] == "43/3/0"


def test_a_fall_above_the_floor_is_counted_apart_from_a_rise_from_zero():
    scores = [(0.4, 0.1), (0.2, 0.2), (0.0, 0.6), *[(0.1, 0.3)] * 77]
    shift = score_shift(_panel(scores), "jev", WEIGHTS, n_boot=200, seed=0)
    assert (shift.rises, shift.ties, shift.falls) == (78, 1, 1)
    above = (shift.rises_above_floor, shift.ties_above_floor, shift.falls_above_floor)
    assert above == (77, 1, 1) and shift.control_at_zero == 1


def test_a_summary_written_before_the_count_reads_back_with_the_missing_mark():
    shift = score_shift(_panel([(0.1, 0.3)] * 80), "jev", WEIGHTS, n_boot=200, seed=0)
    old = shift.model_dump(exclude={"rises_above_floor", "ties_above_floor", "falls_above_floor"})
    found = RepeatAnalysis.model_validate(
        {
            "gates": [],
            "primary": [],
            "secondary": [],
            "passes": [],
            "patterns": {},
            "agreement": [],
            "fixtures": [],
            "shift": [old],
        }
    )
    assert found.shift[0].rises_above_floor is None
    table = next(b for b in repeat_section(found).blocks if b.title.startswith("Paired score"))
    assert table.rows[0][table.columns.index("above 0: up / tie / down")] == MISSING
