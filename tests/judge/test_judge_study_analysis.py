"""The natural-source studies' arithmetic: the paper's printed counts, scipy and brute force."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats
from study_banks import BANKS, REPEAT_JUDGES, decomposition, repeat_panel

from readout_audit.judge import PAPER_SEED, analyse_judge
from readout_audit.judge.analysis import (
    JudgeAnalysisSettings,
    PilotAnalysis,
    analyse_decomposition,
    analyse_pilot,
    analyse_repeat,
    pilot_section,
)
from readout_audit.judge.inventory import build_pilot_inventory
from readout_audit.judge.protocol import planned_record

NEGATIVE = {"correct": "incorrect", "supported": "hallucinated"}


def answered(request, accepted: bool, p: float | None = None):
    """A completed record: the positive verdict or not, with displayed positive score ``p``."""
    positive = "supported" if request.contract.startswith("HALL") else "correct"
    p = (0.9 if accepted else 0.1) if p is None else p
    probs = {positive: p, NEGATIVE[positive]: 1 - p}
    if positive == "correct":
        probs["no_answer"] = 0.0
    verdict = positive if accepted else NEGATIVE[positive]
    return planned_record(request, "completed", verdict=verdict, label_probs=probs)


def settings_of(inventory, **analysis):
    return JudgeAnalysisSettings.from_config(
        {
            "family": [c.model_dump(mode="json") for c in inventory.settings.configurations],
            "study": inventory.settings.study,
            "analysis": analysis,
        }
    )


def _alternating(inventory):
    """Source ids alternating between the datasets, so each category spans both."""
    by_dataset: dict[str, list[str]] = {}
    for entry in inventory.outcome.sources:
        by_dataset.setdefault(entry.dataset, []).append(entry.id)
    return [s for pair in zip(*by_dataset.values(), strict=True) for s in pair]


def test_the_decomposition_reproduces_its_printed_counts_and_p_values():
    inventory = decomposition()
    order = _alternating(inventory)
    rank = {s: i for i, s in enumerate(order)}

    def window(lo: int, hi: int) -> set[str]:
        return set(order[lo:hi])

    # HALL, X prefix: 97 Actual-only, 2 blank-only, 80 both (177 vs 82), Z: 0 vs 1 blank
    accepted = {
        ("jev-hall", "x.actual"): window(0, 97) | window(99, 179),
        ("jev-hall", "x.blank"): window(97, 179),
        ("jev-hall", "z.blank"): window(239, 240),
        ("jev-hall", "x.correct_answer"): window(0, 185),
        ("jev-hall", "x.marker"): window(97, 179),  # reads exactly as blank
        ("jev-hall", "bare_correct"): window(0, 212),
        ("jev-hall", "bare_wrong"): window(0, 23),
        # HALL_R: Actual 190 vs blank 115, an excess of 75 (95 under HALL)
        ("jev-hallr", "x.actual"): window(0, 190),
        ("jev-hallr", "x.blank"): window(0, 110) | window(190, 195),
        # FINAL3: R: 37 vs R 5 with 32 forward, 0 reverse discordances
        ("jev", "x.random_colon"): window(0, 37),
        ("jev", "x.random"): window(0, 5),
        ("jev", "x.actual"): window(0, 9),
        ("jev", "x.blank"): window(100, 117),
    }
    records = [
        answered(r, r.source_id in accepted.get((r.configuration, r.cell), set()))
        for r in inventory.requests
    ]
    found = analyse_decomposition(records, settings_of(inventory))
    primary = {t.slot.split(" ", 1)[1]: t for t in found.primary}
    secondary = {t.slot.split(" ", 1)[1]: t for t in found.secondary}
    assert len(primary) == 2 and len(secondary) == 17
    prefix = primary["HALL I(Actual/blank)"]
    assert prefix.estimate == pytest.approx(0.40, abs=1e-12)  # +40.0 pp
    assert prefix.n_complete == {"drop": 120, "halueval": 120}
    # no simulated tail hit: raw 1/50,000, Holm .00004 (rank 1 of 2), as printed
    assert prefix.p_raw == pytest.approx(1 / 50_000) and prefix.p_holm == pytest.approx(0.00004)
    # the printed pointwise interval [33.75, 46.25], to Monte Carlo error and allocation
    assert 0.32 < prefix.low < 0.355 and 0.445 < prefix.high < 0.48
    change = primary["HALL_R−HALL Actual−blank"]
    assert change.estimate == pytest.approx(-20 / 240, abs=1e-12)  # −8.33 pp
    actual = secondary["HALL Actual−blank"]
    assert actual.estimate == pytest.approx(95 / 240) and (actual.forward, actual.reverse) == (
        97,
        2,
    )
    assert actual.p_holm == pytest.approx(0.00034)  # 17 × 1/50,000, as printed
    assert secondary["HALL I(Correct answer/blank)"].estimate == pytest.approx(104 / 240)  # 43.33
    assert secondary["HALL I(Correct answer/blank)"].p_holm == pytest.approx(0.00034)
    colon = secondary["FINAL3 R:−R"]
    assert (colon.forward, colon.reverse) == (32, 0) and colon.p_holm == pytest.approx(0.00034)
    # a contrast constant at zero falls back to Hoeffding: p = 1, ±R√(S log(2/α)/2)
    marker = secondary["HALL marker−blank"]
    half = 2 * math.sqrt((0.25 / 120 + 0.25 / 120) * math.log(40) / 2)
    assert marker.method == "hoeffding" and marker.p_raw == 1.0
    assert (marker.low, marker.high) == pytest.approx((-half, half))
    # the acceptance table holds the printed clean-control counts
    cells = {(c.configuration, c.cell): c for c in found.cells}
    assert cells[("jev-hall", "bare_correct")].accepted == 212
    assert cells[("jev-hall", "bare_wrong")].accepted == 23
    assert cells[("jev", "x.random_colon")].accepted == 37
    assert all(c.planned == c.observed == 240 for c in found.cells)
    # the witnesses: the first source id (sorted) of each kind
    witnesses = {w.kind: w for w in found.witnesses}
    hall_ids = sorted(accepted[("jev-hall", "x.actual")] - accepted[("jev-hall", "x.blank")])
    assert witnesses["HALL prefix"].source == hall_ids[0]
    colon_ids = sorted(window(5, 37))
    assert witnesses["FINAL3 colon"].source == colon_ids[0]
    assert witnesses["FINAL3 colon"].scores == {"x.random_colon": 0.9, "x.random": 0.1}
    assert rank[colon_ids[0]] in range(5, 37)


def test_an_unanswered_request_leaves_its_source_out_and_its_bounds_open():
    inventory = decomposition()
    lost = inventory.outcome.sources[0].id
    records = []
    for r in inventory.requests:
        if r.configuration == "jev-hall" and r.source_id == lost and r.cell == "x.actual":
            records.append(planned_record(r, "unknown"))
        else:
            records.append(answered(r, r.cell == "x.actual"))
    found = analyse_decomposition(records, settings_of(inventory, n_boot=999))
    prefix = next(t for t in found.primary if t.contrast == "HALL I(Actual/blank)")
    assert prefix.n_complete == {"drop": 119, "halueval": 120}
    assert prefix.n_planned == {"drop": 120, "halueval": 120}
    # every other source has I = +1; the lost one's Actual reading ranges over [0, 1]
    assert prefix.estimate == pytest.approx(1.0)
    low, high = prefix.bounds
    assert low == pytest.approx(0.5 * 119 / 120 + 0.5) and high == pytest.approx(1.0)


def test_the_repeat_panel_reproduces_the_printed_pass_counts_and_patterns():
    inventory = repeat_panel()
    sources = [e.id for e in inventory.outcome.sources]
    patterns = ["TTT"] * 6 + ["TTF"] * 2 + ["FFT"] * 2 + ["TFT", "TFF", "FTT"]
    cue = {s: p for s, p in zip(sources, patterns, strict=False)}
    missed_final = set(sources[:2])
    wrong_revision = set(sources[:9])
    records = []
    for r in inventory.requests:
        if r.configuration == "jev" and r.cell.startswith("x.random_colon"):
            k = int(r.cell[-1]) - 1 if r.cell.endswith((".p2", ".p3")) else 0
            hit = cue.get(r.source_id, "FFF")[k] == "T"
            records.append(answered(r, hit, 0.9 if hit else 0.3))
        elif r.cell.startswith("x.random"):
            k = int(r.cell[-1]) if r.cell.endswith((".p2", ".p3")) else 1
            records.append(answered(r, False, 0.12 if k == 3 else 0.1))
        elif r.cell.startswith(("x.", "z.")):
            records.append(answered(r, False))
        else:  # controls and fixtures: right, but for the planted errors
            control = r.cell.rpartition(".")[2]
            right = not (
                (
                    r.configuration == "jev"
                    and control == "wrong_final_only"
                    and r.source_id in missed_final
                )
                or (
                    r.configuration == "liquid"
                    and control == "revision"
                    and r.source_id in wrong_revision
                )
            )
            records.append(answered(r, (r.target_label == "correct") == right))
    found = analyse_repeat(records, settings_of(inventory), ["jev", "liquid"])
    passes = {(p.configuration, p.cell): p for p in found.passes}
    assert passes[("jev", "x.random_colon")].accepted == [10, 9, 10]  # as printed
    assert passes[("jev", "x.random")].accepted == [0, 0, 0]
    assert passes[("jev", "x.random_colon")].observed == [80, 80, 80]
    assert found.patterns["jev"] == {
        "FFF": 67,
        "FFT": 2,
        "FTT": 1,
        "TFF": 1,
        "TFT": 1,
        "TTF": 2,
        "TTT": 6,
    }
    gates = {(g.configuration, g.cell): g for g in found.gates}
    assert (
        gates[("jev", "wrong_final_only")].right,
        gates[("jev", "wrong_final_only")].required,
    ) == (78, 76)
    assert gates[("jev", "wrong_final_only")].passed
    assert gates[("liquid", "revision")].right == 71 and not gates[("liquid", "revision")].passed
    assert gates[("liquid", "revision")].required == 72
    # R: against R with X, first pass: ten forward, none reverse: 2^-9 exactly (scipy)
    excess = next(t for t in found.primary if t.slot == "jev FINAL3 R:−R")
    assert (excess.forward, excess.reverse) == (10, 0) and excess.method == "mcnemar"
    assert excess.p_raw == pytest.approx(stats.binomtest(10, 10, 0.5).pvalue, rel=1e-12)
    assert excess.estimate == pytest.approx(10 / 80)  # 12.5 pp: 7 DROP-share weighted
    assert len(found.primary) == 4 and len(found.secondary) == 6
    # seven sources change verdict over the passes; R's third pass rises by .02 everywhere
    agreement = {(a.configuration, a.cell): a for a in found.agreement}
    assert agreement[("jev", "x.random_colon")].same_verdict == 73
    cue_row = agreement[("jev", "x.random")]
    assert (cue_row.increases, cue_row.ties, cue_row.decreases) == (80, 80, 0)
    assert cue_row.mean_abs_change == pytest.approx(0.01) and cue_row.same_probs == 0
    fixtures = [a for a in found.fixtures if a.configuration == "jev"]
    assert len(fixtures) == 4 and all(a.same_verdict == a.same_probs == 1 for a in fixtures)
    # δ^p = .8 on the ten accepted sources, .2 elsewhere, weighted .7/.3 by dataset
    shift = next(s for s in found.shift if s.configuration == "jev")
    deltas = {s: (0.8 if cue.get(s, "F")[0] == "T" else 0.2) for s in sources}
    by_dataset = {
        d: [deltas[e.id] for e in inventory.outcome.sources if e.dataset == d]
        for d in ("drop", "halueval")
    }
    expected = 0.7 * np.mean(by_dataset["drop"]) + 0.3 * np.mean(by_dataset["halueval"])
    assert shift.mean == pytest.approx(expected) and shift.pairs == 80
    assert (shift.rises, shift.ties, shift.falls) == (80, 0, 0)
    assert (shift.rejected_both, shift.rises_rejected_both) == (70, 70)
    assert shift.median == pytest.approx(0.2) and shift.low <= expected <= shift.high


def test_the_pilot_interaction_by_hand_and_the_6_0_example():
    pilot = build_pilot_inventory(BANKS, REPEAT_JUDGES, seed=PAPER_SEED + 3, per_dataset=8)
    sources = [e.id for e in pilot.outcome.sources]
    datasets = {e.id: e.dataset for e in pilot.outcome.sources}
    rng = np.random.default_rng(5)
    cells = [f"{p}.{b}" for p in "xz" for b in ("blank", "colon", "random", "random_colon")]
    scores = {(s, c): round(float(rng.uniform(0, 0.45)), 2) for s in sources for c in cells}
    for s in sources[:6]:  # six X-prefix R: acceptances, no R one
        scores[(s, "x.random_colon")] = 0.75
    lost = [s for s in sources if datasets[s] == "halueval"][:2]
    records = []
    for r in pilot.requests:
        if r.cell in cells:
            if r.configuration == "liquid" and r.source_id in lost and r.cell == "z.colon":
                records.append(planned_record(r, "unknown"))
                continue
            p = scores[(r.source_id, r.cell)]
            records.append(answered(r, p > 0.5, p))
        else:
            records.append(answered(r, r.target_label == "correct"))
    summary = analyse_judge(records, settings_of(pilot))  # a pilot run's summary holds it
    found = summary.study_result
    assert isinstance(found, PilotAnalysis) and found == analyse_pilot(
        records, settings_of(pilot), ["jev", "liquid"]
    )
    titles = [block.title for block in pilot_section(found).blocks]
    assert titles[1].startswith("Primary family: T") and "Cell means" in titles[2]
    signs = {"x.random_colon": 1, "x.random": -1, "x.colon": -1, "x.blank": 1}
    signs |= {c.replace("x.", "z."): -v for c, v in signs.items()}

    def t(s: str) -> float:
        return sum(v * scores[(s, c)] for c, v in signs.items())

    full = {d: [t(s) for s in sources if datasets[s] == d] for d in ("drop", "halueval")}
    jev = next(r for r in found.primary if r.slot == "jev T")
    assert jev.estimate == pytest.approx(
        0.5 * np.mean(full["drop"]) + 0.5 * np.mean(full["halueval"])
    )
    # liquid: 8 DROP and 6 HaluEval complete blocks; weighted and pooled means differ
    kept = [s for s in sources if s not in lost]
    liquid = next(r for r in found.primary if r.slot == "liquid T")
    drop = [t(s) for s in kept if datasets[s] == "drop"]
    halueval = [t(s) for s in kept if datasets[s] == "halueval"]
    assert liquid.n_complete == {"drop": 8, "halueval": 6}
    assert liquid.estimate == pytest.approx(0.5 * np.mean(drop) + 0.5 * np.mean(halueval))
    assert liquid.pooled == pytest.approx(np.mean(drop + halueval))
    # the cell means over the same blocks and weights reconstruct T
    means = {m.cell: m.mean for m in found.cell_means if m.configuration == "liquid"}
    assert sum(v * means[c] for c, v in signs.items()) == pytest.approx(liquid.estimate)
    # the planned panel's bounds: each unresolved z.colon (sign +1) over [0, 1], by brute force
    corners = []
    for a, b in itertools.product((0.0, 1.0), repeat=2):
        filled = dict(scores)
        filled[(lost[0], "z.colon")], filled[(lost[1], "z.colon")] = a, b
        per = {
            d: [
                sum(v * filled[(s, c)] for c, v in signs.items())
                for s in sources
                if datasets[s] == d
            ]
            for d in ("drop", "halueval")
        }
        corners.append(0.5 * np.mean(per["drop"]) + 0.5 * np.mean(per["halueval"]))
    assert liquid.bounds == pytest.approx((min(corners), max(corners)))
    # the printed descriptive test: six forward, none reverse, exact p = .03125, unadjusted
    mcnemar = next(r for r in found.descriptive if r.slot.startswith("jev"))
    assert (mcnemar.forward, mcnemar.reverse) == (6, 0)
    assert mcnemar.p_raw == mcnemar.p_holm == pytest.approx(0.03125)
    assert all(g.passed and g.planned == 16 for g in found.gates)
    assert {g.required for g in found.gates} == {15, 14}
    # two T tests in one Holm family
    assert all(r.p_holm >= r.p_raw for r in found.primary)
    assert min(found.primary, key=lambda r: r.p_raw).p_holm == pytest.approx(
        min(1.0, 2 * min(r.p_raw for r in found.primary))
    )
