"""The reference-switch study: its inventory, its arithmetic by hand and scipy, a real run."""

from __future__ import annotations

import math

import numpy as np
import pytest
from click.testing import CliRunner
from scipy import stats

from readout_audit import read_run
from readout_audit._cli import main
from readout_audit._exceptions import InputError
from readout_audit.judge import (
    PAPER_SEED,
    analyse_switch,
    build_switch_inventory,
    parse_configuration,
    read_inventory,
    write_inventory,
)
from readout_audit.judge.analysis import (
    SwitchAnalysis,
    directional_family,
    half_difference,
    slope_check,
    world_effect,
)
from readout_audit.judge.inventory import switch_pairs
from readout_audit.judge.inventory._build import inventory_bytes
from readout_audit.judge.inventory._candidates import random_letters
from readout_audit.judge.inventory._inventory import interleave_key
from readout_audit.judge.protocol import parse_cell
from readout_audit.judge.protocol._record import planned_record

pytestmark = pytest.mark.cost(35)


def test_the_printed_illustration_gives_its_world_effects():
    # refswitch:20260930140:20: R: scores .77 and .75 under reference X = 840 against R's .01
    # in both passes; under Y = 495, .64 and .60 against 1.00 in both
    d_x = world_effect([0.77, 0.75], [0.01, 0.01])
    d_y = world_effect([0.64, 0.60], [1.00, 1.00])
    assert d_x == pytest.approx(0.75) and d_y == pytest.approx(-0.38)
    # one unanswered pass leaves the source unresolved, not averaged over the other
    assert world_effect([0.77, None], [0.01, 0.01]) is None
    with pytest.raises(ValueError, match="one cue and one control per pass"):
        world_effect([0.77], [0.01, 0.01])


def test_an_unresolved_contrast_keeps_its_family_slot_at_p_one():
    complete = ([0.3] * 24, [-0.08] * 24)
    gap = ([0.3] * 23 + [None], [-0.08] * 24)
    nan = ([0.3] * 24, [-0.08] * 23 + [float("nan")])
    family = {r.name: r for r in directional_family({"a": complete, "b": gap, "c": nan})}
    assert family["a"].p_raw == 2.0**-24 and family["a"].unresolved == 0
    # Holm over three slots: the resolved comparison's p is multiplied by three
    assert family["a"].p_holm == pytest.approx(3 * 2.0**-24)
    for name in ("b", "c"):
        row = family[name]
        assert row.unresolved == 1 and row.p_raw == row.p_holm == 1.0
        assert row.p_increase == row.p_decrease == 1.0 and row.n == 24


def test_half_difference_by_hand_and_against_scipy():
    rng = np.random.default_rng(7)
    under_x = list(rng.normal(1.2, 0.5, 24))
    under_y = list(rng.normal(-1.9, 0.6, 24))
    found = half_difference([*under_x, None], [*under_y, -2.0], seed=3)
    halves = (np.array(under_x) - np.array(under_y)) / 2
    assert found.n == 24 and found.unresolved == 1
    assert found.estimate == pytest.approx(halves.mean(), abs=1e-12)
    reference = stats.bootstrap(
        (halves,), np.mean, n_resamples=20_000, method="percentile", random_state=3
    ).confidence_interval
    # two independent 20,000-draw percentile intervals of the same mean: equal to Monte Carlo error
    assert found.low == pytest.approx(reference.low, abs=0.02)
    assert found.high == pytest.approx(reference.high, abs=0.02)
    empty = half_difference([None], [0.5])
    assert empty.estimate is None and empty.n == 0 and empty.unresolved == 1


CONFIGURATIONS = [
    parse_configuration("jev=FINAL3@smollm2-135m", PAPER_SEED),
    parse_configuration("liquid=FINAL3@smollm2-135m", PAPER_SEED + 1),
]


def test_the_inventory_plans_480_requests_per_configuration_in_interleaved_order(tmp_path):
    inventory = build_switch_inventory(CONFIGURATIONS, seed=PAPER_SEED)
    requests = inventory.requests
    assert len(requests) == 960 and inventory.outcome.counts["configurations"] == {
        "jev": 480,
        "liquid": 480,
    }
    keys = [interleave_key(PAPER_SEED, r.request_id) for r in requests]
    assert keys == sorted(keys)
    assert inventory.settings.study is not None
    assert inventory.settings.study["name"] == "reference-switch"
    assert inventory.settings.study["family"] == [
        "jev R:/R",
        "jev colon/blank",
        "liquid R:/R",
        "liquid colon/blank",
    ]
    # rebuilt byte for byte, and read back against its manifest
    again = build_switch_inventory(CONFIGURATIONS, seed=PAPER_SEED)
    assert inventory_bytes(again.requests) == inventory_bytes(requests)
    write_inventory(tmp_path / "inventory", inventory)
    again = read_inventory(tmp_path / "inventory")
    assert (again.settings, again.outcome) == (inventory.settings, inventory.outcome)
    # 24 pairs of positive three-digit values, balanced by distance and by order
    pairs = switch_pairs(PAPER_SEED)
    assert len(pairs) == 24 and all(100 <= v <= 999 for x, y, _ in pairs for v in (x, y))
    for distance, (low, high) in (("near", (1, 9)), ("far", (100, 400))):
        chosen = [(x, y) for x, y, d in pairs if d == distance]
        assert len(chosen) == 12 and all(low <= abs(x - y) <= high for x, y in chosen)
        assert sum(x < y for x, y in chosen) == 6


def test_a_candidate_keeps_its_bytes_in_both_worlds_and_only_the_reference_changes():
    requests = build_switch_inventory(CONFIGURATIONS[:1], seed=PAPER_SEED).requests
    by_cell = {(r.source_id, r.cell): r for r in requests}
    x, y, _ = switch_pairs(PAPER_SEED)[3]
    source = f"refswitch:{PAPER_SEED}:3"
    under_x, under_y = by_cell[(source, "random_colon@x")], by_cell[(source, "random_colon@y")]
    letters = random_letters(PAPER_SEED, source)
    assert under_x.candidate == under_y.candidate == f"{x}\n{letters}:\nFinal answer: {y}."
    assert under_x.request["state"]["trusted_reference"] == [str(x)]
    assert under_y.request["state"]["trusted_reference"] == [str(y)]
    assert (under_x.target_label, under_y.target_label) == ("incorrect", "correct")
    repeat = by_cell[(source, "random_colon@x_repeat")]
    assert repeat.wire_sha256 == under_x.wire_sha256 and repeat.request_id != under_x.request_id
    controls = {c: by_cell[(source, c)] for c in ("final_x@x", "final_y@x", "final_x@y")}
    assert controls["final_x@x"].candidate == f"Final answer: {x}."
    assert [c.target_label for c in controls.values()] == ["correct", "incorrect", "incorrect"]
    assert all(r.contract == "FINAL3" and r.presentation == "sorted" for r in requests)
    refused = parse_configuration("hall=HALL@smollm2-135m", PAPER_SEED)
    with pytest.raises(InputError, match="grades with FINAL3, not HALL"):
        build_switch_inventory([refused], seed=PAPER_SEED)
    for items in (6, 4 * 10**20):  # not a multiple of 4; a typo's size, refused before any work
        with pytest.raises(InputError, match="multiple of 4 items, at most 10,000"):
            build_switch_inventory(CONFIGURATIONS, seed=PAPER_SEED, items=items)


def answered(planned, probs):
    """A completed record of a planned request with these label probabilities."""
    verdict = max(probs, key=probs.get)
    return planned_record(planned, "completed", verdict=verdict, label_probs=probs)


def test_the_analysis_by_hand_on_four_items():
    """Four items: R: raises q_c by .75 under X and lowers it by .37 under Y in every source
    (the printed illustration's numbers, Y's controls at .99); colon and blank read alike."""
    inventory = build_switch_inventory(CONFIGURATIONS[:1], seed=PAPER_SEED, items=4)
    scores = {  # (world, bridge, pass) -> p(correct); the rest is p(incorrect)
        ("x", "random_colon", 1): 0.77,
        ("x", "random_colon", 2): 0.75,
        ("x", "random", 1): 0.01,
        ("x", "random", 2): 0.01,
        ("y", "random_colon", 1): 0.64,
        ("y", "random_colon", 2): 0.60,
        ("y", "random", 1): 0.99,
        ("y", "random", 2): 0.99,
    }
    records = []
    dropped = None
    for request in inventory.requests:
        bridge, world, passes = parse_cell(request.cell)
        if bridge.startswith("final_"):
            right = request.target_label == "correct"
            p_c = 0.9 if right else 0.1
        else:
            p_c = scores.get((world, bridge, passes), 0.5)
        if request.cell == "colon@y_repeat" and dropped is None:
            dropped = request.source_id  # one unanswered pass: that source is unresolved
            records.append(planned_record(request, "unknown"))
            continue
        records.append(answered(request, {"correct": p_c, "incorrect": 1 - p_c, "no_answer": 0}))
    found = analyse_switch(records, n_boot=2_000)
    rows = {r.comparison: r for r in found.comparisons}
    cue = rows["R:/R"]
    assert cue.mean_d_x == pytest.approx(0.75) and cue.mean_d_y == pytest.approx(-0.37)
    assert cue.both_directions == 4 and cue.test.unresolved == 0
    # four positive d_X and four negative d_Y: each one-sided p is 1/16 by enumeration
    assert cue.test.p_increase == cue.test.p_decrease == cue.test.p_raw == 1 / 16
    assert cue.test.p_holm == pytest.approx(2 / 16)  # Holm over the family's two slots

    # S: half the difference of the log-ratio effects, the same in every source
    def logit(p: float) -> float:
        return math.log(p / (1 - p))

    under_x = (logit(0.77) + logit(0.75)) / 2 - logit(0.01)
    under_y = (logit(0.64) + logit(0.60)) / 2 - logit(0.99)
    s = cue.log_ratio
    assert s.n == 4 and s.unresolved == 0
    assert s.estimate == pytest.approx((under_x - under_y) / 2) and s.estimate > 0
    assert s.low == pytest.approx(s.estimate) and s.high == pytest.approx(s.estimate)
    colon = rows["colon/blank"]
    assert colon.test.unresolved == 1 and colon.test.p_raw == colon.test.p_holm == 1.0
    assert colon.mean_d_x == pytest.approx(0.0) and colon.both_directions == 0
    assert all(
        g.planned == 4 and g.right == 4 and g.required == 3 and g.passed for g in found.gates
    )
    assert found.accepted["jev"]["random_colon@x"] == 4 and found.accepted["jev"]["random@x"] == 0


@pytest.mark.model  # the CLI loads the embedded model itself
def test_a_small_study_builds_runs_and_reports_from_the_command_line(tmp_path):
    def invoke(*args: str) -> str:
        result = CliRunner().invoke(main, [*args], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.output

    inventory, run = tmp_path / "inventory", tmp_path / "run"
    config = ["--configuration", "local3=FINAL3@smollm2-135m"]
    out = invoke(
        "judge",
        "build",
        "--study",
        "reference-switch",
        "--items",
        "4",
        *config,
        "--out",
        str(inventory),
    )
    assert "wrote 80 requests" in out
    refused = CliRunner().invoke(
        main,
        [
            "judge",
            "build",
            "--study",
            "reference-switch",
            "--gsm8k",
            "x.jsonl",
            *config,
            "--out",
            str(tmp_path / "no"),
        ],
    )
    assert refused.exit_code == 2 and "reads no dataset: drop --gsm8k" in refused.output
    out = invoke(
        "judge",
        "run",
        str(inventory),
        "--phase",
        "confirmation",
        "--out",
        str(run),
        "--plain",
        "--no-progress",
    )
    report = invoke("judge", "report", str(run), "--plain")
    assert "Directional tests" in report and "Clean controls" in report
    done = read_run(run)
    switch = done.summary.study_result
    assert isinstance(switch, SwitchAnalysis) and len(done.records) == 80
    assert [g.planned for g in switch.gates] == [4, 4, 4, 4]
    # the effects again from the records' label probabilities, by hand
    scores = {}
    for record in done.records:
        p_c, p_i = record.label_probs["correct"], record.label_probs["incorrect"]
        scores[(record.source_id, record.cell)] = p_c / (p_c + p_i)
    sources = sorted({r.source_id for r in done.records})
    for row in switch.comparisons:
        cue, control = {"R:/R": ("random_colon", "random"), "colon/blank": ("colon", "blank")}[
            row.comparison
        ]
        for world, mean in (("x", row.mean_d_x), ("y", row.mean_d_y)):
            effects = [
                sum(
                    scores[(s, f"{cue}@{world}{p}")] - scores[(s, f"{control}@{world}{p}")]
                    for p in ("", "_repeat")
                )
                / 2
                for s in sources
            ]
            assert mean == pytest.approx(sum(effects) / len(effects), abs=1e-12)
        assert row.test.n == 4 and row.test.p_raw >= 1 / 16  # four sources: 2^-4 at best
    right = sum(r.right for r in done.records if r.cell.startswith("final_"))
    assert sum(g.right for g in switch.gates) == right


def test_the_slope_check_by_hand_and_against_scipy():
    rng = np.random.default_rng(11)
    m_x, m_y = rng.normal(-4.0, 1.0, 24), rng.normal(4.0, 1.0, 24)
    k, b = 0.6, 0.3  # a shared affine map m' = k m + b: D = (k − 1) m + b in both worlds
    exact = slope_check((list(m_x), list(m_y)), (list((k - 1) * m_x + b), list((k - 1) * m_y + b)))
    assert exact.n == 24
    for slope in (exact.within_x, exact.within_y, exact.between):
        assert slope == pytest.approx(k - 1, abs=1e-12)
    assert exact.contrast_x == pytest.approx(0.0, abs=1e-12)
    assert exact.contrast_y_low == pytest.approx(0.0, abs=1e-9)
    assert exact.contrast_y_high == pytest.approx(0.0, abs=1e-9)
    # with noise and a world-specific shift the within-world slopes are scipy's OLS slopes
    d_x = (k - 1) * m_x + b + rng.normal(0, 0.2, 24)
    d_y = (k - 1) * m_y + b + 2.0 + rng.normal(0, 0.2, 24)
    found = slope_check(
        ([*m_x, None], [*m_y, 1.0]), ([*d_x, 0.0], [*d_y, float("inf")]), n_boot=2_000, seed=3
    )
    assert found.n == 24  # the incomplete and the infinite source are left out
    assert found.within_x == pytest.approx(stats.linregress(m_x, d_x).slope, abs=1e-12)
    assert found.within_y == pytest.approx(stats.linregress(m_y, d_y).slope, abs=1e-12)
    between = (d_y.mean() - d_x.mean()) / (m_y.mean() - m_x.mean())
    assert found.between == pytest.approx(between, abs=1e-12)
    assert found.contrast_x == pytest.approx(found.within_x - between, abs=1e-12)
    assert found.contrast_x_low < found.contrast_x < found.contrast_x_high
    assert found.contrast_y_low < found.contrast_y < found.contrast_y_high
    # the shift puts the between-world slope above the within-world ones
    assert found.contrast_x_high < 0 and found.contrast_y_high < 0
    assert slope_check(([1.0, 2.0], [3.0, 4.0]), ([0.1, 0.2], [0.3, 0.4])).within_x is None
