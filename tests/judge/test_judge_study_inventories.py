"""The natural-source studies' inventories: HaluEval's layout, planned counts, order, reuse."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from study_banks import BANKS, JEV, REPEAT_JUDGES, bank, decomposition, repeat_panel

from readout_audit._cli import main
from readout_audit._exceptions import InputError
from readout_audit.judge import (
    PAPER_SEED,
    Inventory,
    build_study_inventory,
    load_bank,
    load_halueval_json,
    parse_configuration,
    read_inventory,
    write_inventory,
)
from readout_audit.judge.inventory import (
    build_decomposition_inventory,
    build_pilot_inventory,
    build_repeat_inventory,
    read_planned,
    study_draw_seed,
)
from readout_audit.judge.inventory._build import inventory_bytes
from readout_audit.judge.inventory._candidates import prefixed_values, random_letters
from readout_audit.judge.inventory._inventory import interleave_key, stream_key
from readout_audit.judge.inventory._select import PriorSources

FIXTURES = Path(__file__).parent.parent / "fixtures" / "judge"
HALUEVAL = FIXTURES / "halueval_qa_rows.jsonl"


def test_halueval_rows_in_their_layout_become_numeric_sources(tmp_path):
    found = load_halueval_json(HALUEVAL)
    assert found.rows == 10 and len(found.sources) == 8
    assert found.skipped == {"non_numeric_answer": 2}  # a director and a town
    first = found.sources[0]
    assert first.id == "halueval:0" and first.references == (1948.0,)
    assert first.evidence.startswith("The Harbour Lights Theatre opened in 1921")
    # two questions on one passage share its declared cluster; "12,500" reads as a number
    assert found.sources[0].cluster == found.sources[1].cluster != found.sources[2].cluster
    assert [s.references for s in found.sources if s.id == "halueval:8"] == [(12500.0,)]
    # one JSON array holds the same rows; load_bank reads either by file
    array = tmp_path / "qa.json"
    array.write_text(json.dumps([json.loads(line) for line in HALUEVAL.read_text().splitlines()]))
    assert load_halueval_json(array).sources == found.sources
    assert load_bank(HALUEVAL, "halueval") == found
    broken = tmp_path / "broken.jsonl"
    broken.write_text(json.dumps({"question": "q?", "right_answer": "3"}) + "\n")
    with pytest.raises(InputError) as error:
        load_halueval_json(broken)
    assert error.value.item_id == "halueval:0" and error.value.field == "knowledge"
    with pytest.raises(InputError, match="only as DROP references"):
        load_bank(HALUEVAL, "halueval", dates=True)


def test_the_earlier_wrong_value_sits_between_x_and_y():
    assert prefixed_values(1900.0, "near") == (1901.0, 1902.0)  # the paper's printed witness
    assert prefixed_values(76.0, "far") == (152.0, 228.0)
    assert prefixed_values(3.0, "far") == (23.0, 43.0)  # s = max(|X|, 20)
    assert prefixed_values(87.5, "near") == (88.5, 89.5)
    assert prefixed_values(0.1, "near") == (1.1, 2.1)  # exact decimals, not 1.1000000000000001


def test_the_decomposition_plans_14_calls_per_source_under_three_contracts(tmp_path):
    inventory = decomposition()
    settings, outcome = inventory.settings, inventory.outcome
    assert len(inventory.requests) == 240 * 14 * 3 == 10_080
    assert outcome.counts["configurations"] == {"jev": 3360, "jev-hall": 3360, "jev-hallr": 3360}
    assert outcome.counts["sources"]["confirmation"] == 240
    study = settings.study
    assert study is not None and study["name"] == "decomposition"
    assert study["dataset_weights"] == {"drop": 0.5, "halueval": 0.5}
    assert study["judges"] == {
        "smollm2-135m": {"HALL": "jev-hall", "HALL_R": "jev-hallr", "FINAL3": "jev"}
    }
    assert len(study["primary"]) == 2 and len(study["secondary"]) == 17
    keys = [interleave_key(PAPER_SEED, r.request_id) for r in inventory.requests]
    assert keys == sorted(keys)
    # byte-identical rebuild; written and read back against its manifest
    again = build_decomposition_inventory(BANKS, JEV, seed=PAPER_SEED, per_dataset=120)
    assert inventory_bytes(again.requests) == inventory_bytes(inventory.requests)
    write_inventory(tmp_path, inventory)
    again = read_inventory(tmp_path)
    assert (again.settings, again.outcome) == (settings, outcome)
    # one source's candidates: X or Z, the bridge, the wrong final Y
    entry = outcome.sources[0]
    assert entry.z is not None and float(entry.x) < float(entry.z) < float(entry.y)
    by_cell = {(r.configuration, r.cell): r for r in inventory.requests if r.source_id == entry.id}
    assert len(by_cell) == 42
    # the study walks the banks in its own order, and its letters come from that draw
    assert study["draw_seed"] == study_draw_seed(PAPER_SEED, "decomposition") != PAPER_SEED
    letters = random_letters(study["draw_seed"], entry.id)
    assert letters == entry.letters
    expected = {
        "x.blank": f"{entry.x}\n\nFinal answer: {entry.y}.",
        "x.actual": f"{entry.x}\nActual\nFinal answer: {entry.y}.",
        "z.correct_answer": f"{entry.z}\nCorrect answer\nFinal answer: {entry.y}.",
        "z.marker": f"{entry.z}\nNeutral answer\nFinal answer: {entry.y}.",
        "x.random_colon": f"{entry.x}\n{letters}:\nFinal answer: {entry.y}.",
        "bare_correct": entry.x,
        "bare_wrong": entry.y,
    }
    for name, candidate in expected.items():
        hall, final3 = by_cell[("jev-hall", name)], by_cell[("jev", name)]
        assert hall.candidate == final3.candidate == candidate
        right = name == "bare_correct"
        assert hall.target_label == ("supported" if right else "hallucinated")
        assert final3.target_label == ("correct" if right else "incorrect")
    hall_r = by_cell[("jev-hallr", "x.actual")].request["state"]
    assert hall_r["trusted_reference"] == [entry.x] and "trusted_evidence" in hall_r


def test_the_decomposition_refuses_a_judge_without_its_three_contracts():
    with pytest.raises(InputError, match="missing HALL_R") as error:
        build_decomposition_inventory(BANKS, [JEV[0], JEV[2]], seed=PAPER_SEED, per_dataset=2)
    assert error.value.field == "configuration"
    final4 = parse_configuration("four=FINAL4@smollm2-135m", PAPER_SEED)
    with pytest.raises(InputError, match="grades with HALL, HALL_R, FINAL3, not FINAL4"):
        build_decomposition_inventory(BANKS, [*JEV, final4], seed=PAPER_SEED, per_dataset=2)
    twice = parse_configuration("again=HALL@smollm2-135m", PAPER_SEED)
    with pytest.raises(InputError, match="already grades under HALL"):
        build_decomposition_inventory(BANKS, [*JEV, twice], seed=PAPER_SEED, per_dataset=2)
    with pytest.raises(InputError, match="only 130 sources can be admitted; 200 are needed"):
        build_decomposition_inventory(BANKS, JEV, seed=PAPER_SEED, per_dataset=200)


def test_the_repeat_panel_reuses_80_decomposition_sources_in_1448_calls_each():
    panel, source = repeat_panel(), decomposition()
    requests = panel.requests
    assert panel.outcome.counts["configurations"] == {"jev": 1448, "liquid": 1448}
    again = build_repeat_inventory(source, REPEAT_JUDGES)
    assert inventory_bytes(again.requests) == inventory_bytes(requests)
    study = panel.settings.study
    assert study is not None and study["dataset_weights"] == {"drop": 0.7, "halueval": 0.3}
    assert study["reused_from"]["inventory_sha256"] == source.outcome.inventory_sha256
    # the first 56 DROP and 24 HaluEval sources of the decomposition, in its sampling order
    reused = [e.id for e in panel.outcome.sources]
    drop = [e.id for e in source.outcome.sources if e.dataset == "drop"][:56]
    halueval = [e.id for e in source.outcome.sources if e.dataset == "halueval"][:24]
    assert reused == drop + halueval
    # its cue and blank requests are the decomposition's FINAL3 requests, byte for byte
    planned = {r.request_id: r for r in source.requests}
    jev = [r for r in requests if r.configuration == "jev"]
    shared = [r for r in jev if r.request_id in planned]
    assert len(shared) == 80 * 8  # 4 first-pass cue cells, 2 blank cells, bare X, bare Y
    assert all(planned[r.request_id].wire_sha256 == r.wire_sha256 for r in shared)
    # the later passes repeat the first pass's body under their own ids
    first = {(r.source_id, r.cell): r for r in jev}
    for r in jev:
        if r.cell.endswith((".p2", ".p3")):
            assert r.wire_sha256 == first[(r.source_id, r.cell[:-3])].wire_sha256
    # the fixtures open and close each configuration's stream; the rest is interleaved
    cells = [r.cell for r in requests]
    assert all(c.startswith("fixture.open.") for c in cells[:8])
    assert all(c.startswith("fixture.close.") for c in cells[-8:])
    keys = [stream_key(PAPER_SEED, r) for r in requests]
    assert keys == sorted(keys)
    fixture = [r for r in jev if r.cell.startswith("fixture.")]
    assert {r.source_id for r in fixture} == {reused[0]} and len(fixture) == 8
    target = {r.cell: r.target_label for r in fixture}
    assert target["fixture.open.revision"] == target["fixture.close.bare_correct"] == "correct"


def test_the_repeat_panel_refuses_what_it_cannot_reuse(tmp_path):
    with pytest.raises(InputError, match="the panel wants 200") as error:
        build_repeat_inventory(decomposition(), REPEAT_JUDGES, panel={"drop": 200})
    assert error.value.field == "panel"
    pilot = build_pilot_inventory(BANKS, REPEAT_JUDGES[:1], seed=PAPER_SEED, per_dataset=2)
    with pytest.raises(InputError, match="reuses a decomposition inventory, not formatting-pilot"):
        build_repeat_inventory(pilot, REPEAT_JUDGES)
    with pytest.raises(InputError, match="grades with FINAL3, not HALL"):
        build_repeat_inventory(decomposition(), JEV[:1])
    # an edited source no longer rebuilds to its manifest hash
    write_inventory(tmp_path, decomposition())
    tampered = read_inventory(tmp_path)
    entry = tampered.outcome.sources[0]
    fake = tampered.outcome.model_copy(
        update={"sources": [entry.model_copy(update={"sha256": "0" * 64})]}
    )
    with pytest.raises(InputError, match="does not rebuild from its requests"):
        build_repeat_inventory(
            Inventory(tampered.requests, tampered.settings, fake), REPEAT_JUDGES, panel={"drop": 1}
        )


def test_the_pilot_plans_192_calls_on_16_fresh_sources(tmp_path):
    prior = decomposition()
    write_inventory(tmp_path, prior)
    pilot = build_study_inventory(
        "formatting-pilot",
        REPEAT_JUDGES,
        seed=PAPER_SEED + 7,
        banks=[bank("drop", 260), bank("halueval", 260, start=1900)],
        priors=[read_planned(tmp_path / "inventory.jsonl")],
    )
    assert pilot.outcome.counts["configurations"] == {"jev": 192, "liquid": 192}
    again = build_study_inventory(
        "formatting-pilot",
        REPEAT_JUDGES,
        seed=PAPER_SEED + 7,
        banks=[bank("drop", 260), bank("halueval", 260, start=1900)],
        priors=[read_planned(tmp_path / "inventory.jsonl")],
    )
    assert inventory_bytes(again.requests) == inventory_bytes(pilot.requests)
    assert (again.settings, again.outcome) == (pilot.settings, pilot.outcome)
    assert pilot.settings.study is not None
    assert pilot.settings.study["primary"] == ["jev T", "liquid T"]
    # zero exact-id and declared-cluster overlap with the decomposition
    used = PriorSources()
    used.add(prior.requests)
    chosen = {(r.source_id, r.dataset, r.cluster) for r in pilot.requests}
    assert len(chosen) == 16
    assert not {s for s, _, _ in chosen} & used.ids
    assert not {(d, c) for _, d, c in chosen} & used.clusters
    assert pilot.outcome.exclusions["drop"]["prior_id"] == 120
    cells = {r.cell for r in pilot.requests}
    assert cells == {
        *(f"{p}.{b}" for p in "xz" for b in ("blank", "colon", "random", "random_colon")),
        "bare_correct",
        "bare_wrong",
        "wrong_final_only",
        "revision",
    }


def test_a_study_is_built_by_name_with_what_it_reads():
    with pytest.raises(InputError, match="the reference-switch study reads no dataset sources"):
        build_study_inventory("reference-switch", REPEAT_JUDGES, seed=1, banks=BANKS)
    with pytest.raises(InputError, match="the decomposition study needs dataset sources"):
        build_study_inventory("decomposition", JEV, seed=1)
    with pytest.raises(InputError, match="reuses a decomposition inventory") as error:
        build_study_inventory("repeat", REPEAT_JUDGES, seed=1)
    assert error.value.field == "from-inventory"
    with pytest.raises(InputError, match="'nope' is not one of"):
        build_study_inventory("nope", JEV, seed=1)
    with pytest.raises(InputError, match="only the repeat panel takes a panel"):
        build_study_inventory("decomposition", JEV, seed=1, banks=BANKS, panel={"drop": 2})
    with pytest.raises(InputError, match="draws no sources per dataset"):
        build_study_inventory("reference-switch", REPEAT_JUDGES, seed=1, per_dataset=5)


def test_the_command_line_refuses_a_judge_before_reading_any_dataset(tmp_path):
    # a hub id that is not there would fail on reading; the configuration fails first
    result = CliRunner().invoke(
        main,
        [
            "judge",
            "build",
            "--study",
            "decomposition",
            "--halueval",
            "no-such-org/no-such-dataset",
            "--configuration",
            "f=FINAL3@smollm2-135m",
            "--out",
            str(tmp_path / "out"),
        ],
    )
    assert result.exit_code != 0 and "needs a configuration for each of HALL" in result.output
    assert not (tmp_path / "out").exists()
