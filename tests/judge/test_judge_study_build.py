"""Building the studies: one presentation each, and fresh sources for each sourced one."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from study_banks import BANKS, JEV, REPEAT_JUDGES

from readout_audit._cli import main
from readout_audit._exceptions import InputError
from readout_audit.judge import (
    PAPER_SEED,
    build_study_inventory,
    build_switch_inventory,
    read_inventory,
    write_inventory,
)
from readout_audit.judge.inventory import (
    build_decomposition_inventory,
    build_pilot_inventory,
    build_repeat_inventory,
    shared_sources,
    sibling_inventories,
)

FIXTURES = Path(__file__).parent.parent / "fixtures" / "judge"
HALUEVAL = ["--halueval", str(FIXTURES / "halueval_qa_rows.jsonl")]
GSM8K = ["--gsm8k", str(FIXTURES / "gsm8k_test_head.jsonl")]
FINAL3 = ["--configuration", "jev=FINAL3@smollm2-135m"]
JUDGES = [
    *("--configuration", "hall=HALL@smollm2-135m"),
    *("--configuration", "hallr=HALL_R@smollm2-135m"),
    *FINAL3,
]
"""One judge under the decomposition's three contracts."""
SOURCED = {
    "confirmation": ["--per-dataset", "3", "--preflight-per-dataset", "1", *FINAL3],
    "decomposition": ["--per-dataset", "4", *JUDGES],
    "formatting-pilot": ["--per-dataset", "3", *FINAL3],
}
"""Each sourced study on the twelve GSM8K fixture questions: four, four and three of them."""


def test_a_study_is_built_in_the_sorted_presentation_unless_insertion_is_chosen():
    sorted_, insertion = (
        build_switch_inventory(REPEAT_JUDGES[:1], seed=PAPER_SEED, items=4, presentation=p)
        for p in ("sorted", "insertion")
    )
    assert sorted_.settings.study is not None and insertion.settings.study is not None
    assert sorted_.settings.study["presentation"] == "sorted"
    assert insertion.settings.study["presentation"] == "insertion"
    default = build_switch_inventory(REPEAT_JUDGES[:1], seed=PAPER_SEED, items=4)
    assert (default.settings, default.outcome) == (
        sorted_.settings,
        sorted_.outcome,
    )  # the seed's canonical order is the default
    first = sorted_.requests[0]
    twin = next(
        r for r in insertion.requests if (r.cell, r.source_id) == (first.cell, first.source_id)
    )
    # the seed: sorted states order model_reply, question, trusted_reference; insertion states
    # question, trusted_reference, model_reply; the outer request is sorted too
    assert list(first.request["state"]) == ["model_reply", "question", "trusted_reference"]
    assert list(twin.request["state"]) == ["question", "trusted_reference", "model_reply"]
    assert list(first.request) == ["criteria", "instruction", "question", "state"]
    assert list(twin.request) == ["instruction", "state", "question", "criteria"]
    assert twin.content_sha256 == first.content_sha256 and twin.wire_sha256 != first.wire_sha256
    assert first.request_id.endswith(":sorted") and twin.request_id.endswith(":insertion")


def test_the_repeat_panel_keeps_its_decompositions_presentation():
    decomposition = build_decomposition_inventory(
        BANKS, JEV, seed=PAPER_SEED, per_dataset=2, presentation="insertion"
    )
    panel = build_repeat_inventory(decomposition, REPEAT_JUDGES[:1], panel={"drop": 1})
    assert panel.settings.study is not None and panel.settings.study["presentation"] == "insertion"
    assert {r.presentation for r in panel.requests} == {"insertion"}
    with pytest.raises(InputError, match="keeps its decomposition's insertion presentation"):
        build_study_inventory(
            "repeat", REPEAT_JUDGES[:1], seed=PAPER_SEED, reused=decomposition,
            panel={"drop": 1}, presentation="sorted",
        )  # fmt: skip
    with pytest.raises(InputError, match="runs both presentations"):
        build_study_inventory(
            "confirmation", REPEAT_JUDGES[:1], seed=PAPER_SEED, banks=BANKS, presentation="sorted"
        )


def test_each_sourced_study_draws_its_own_sources_from_one_seed():
    decomposition = build_decomposition_inventory(BANKS, JEV, seed=PAPER_SEED, per_dataset=8)
    pilot = build_pilot_inventory(BANKS, REPEAT_JUDGES[:1], seed=PAPER_SEED, per_dataset=8)
    ids, _ = shared_sources(pilot, decomposition.requests)
    # one walk for both would hand the pilot all 16 of the decomposition's sources
    assert len(ids) < 16
    assert pilot.settings.study is not None and decomposition.settings.study is not None
    assert pilot.settings.study["draw_seed"] != decomposition.settings.study["draw_seed"]


def _build(*args: str):
    return CliRunner().invoke(main, ["judge", "build", *args])


def test_the_cli_refuses_a_pilot_beside_an_inventory_it_overlaps_and_records_its_choice(tmp_path):
    decomposition, pilot = tmp_path / "dec", tmp_path / "pilot"
    built = _build("--study", "decomposition", *HALUEVAL, "--per-dataset", "4", *JUDGES,
                   "--out", str(decomposition))  # fmt: skip
    assert built.exit_code == 0, built.output
    dec = read_inventory(decomposition)
    pilot_args = ["--study", "formatting-pilot", *HALUEVAL, "--per-dataset", "3", *FINAL3]
    refused = _build(*pilot_args, "--presentation", "insertion", "--out", str(pilot))
    assert refused.exit_code != 0 and not (pilot / "inventory.jsonl").exists()
    # seven admissible HaluEval sources: four for the decomposition and three for the pilot
    assert "formatting-pilot study draws fresh sources, but shares" in refused.output
    assert f"with the decomposition inventory in {decomposition}: pass --exclude" in refused.output
    assert "halueval:" in refused.output and "cluster(s)" in refused.output
    built = _build(*pilot_args, "--presentation", "insertion", "--exclude", str(decomposition),
                   "--out", str(pilot))  # fmt: skip
    assert built.exit_code == 0, built.output
    fresh = read_inventory(pilot)
    assert fresh.settings.study is not None and fresh.settings.study["presentation"] == "insertion"
    assert {r.presentation for r in fresh.requests} == {"insertion"}
    assert shared_sources(fresh, dec.requests) == ([], [])
    assert dec.settings.study is not None and dec.settings.study["presentation"] == "sorted"
    wrong = _build("--halueval", str(FIXTURES / "halueval_qa_rows.jsonl"), *FINAL3,
                   "--presentation", "sorted", "--out", str(tmp_path / "no"))  # fmt: skip
    assert wrong.exit_code == 2 and "--presentation is not read by the confirmation" in wrong.output


def _files(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


@pytest.mark.parametrize(
    ("first", "second", "shared"),
    [
        ("decomposition", "confirmation", "gsm8k:10"),
        ("confirmation", "decomposition", "gsm8k:10"),
        ("formatting-pilot", "confirmation", "gsm8k:4, gsm8k:5"),
        ("confirmation", "formatting-pilot", "gsm8k:4, gsm8k:5"),
    ],
)
def test_a_study_sharing_a_source_with_a_sibling_is_refused_whichever_was_built_first(
    tmp_path, first, second, shared
):
    earlier, later = tmp_path / "first", tmp_path / "second"
    built = _build("--study", first, *SOURCED[first], *GSM8K, "--out", str(earlier))
    assert built.exit_code == 0, built.output
    before = _files(earlier)
    args = ["--study", second, *SOURCED[second], *GSM8K]
    refused = _build(*args, "--out", str(later))
    assert refused.exit_code == 1 and not later.exists() and _files(earlier) == before
    assert f"the {second} study draws fresh sources, but shares" in refused.output
    assert f"source id(s) ({shared}) and" in refused.output
    assert f"with the {first} inventory in {earlier}: pass --exclude {earlier}" in refused.output
    built = _build(*args, "--exclude", str(earlier), "--out", str(later))
    assert built.exit_code == 0, built.output
    assert shared_sources(read_inventory(later), read_inventory(earlier).requests) == ([], [])


def test_an_inventory_built_from_another_may_share_its_sources_but_no_other_study_may(tmp_path):
    dec, rep, confirmation = (tmp_path / name for name in ("dec", "rep", "confirmation"))
    decomposition = ["--study", "decomposition", *SOURCED["decomposition"], *GSM8K]
    assert _build(*decomposition, "--out", str(dec)).exit_code == 0
    reuse = ["--study", "repeat", "--from-inventory", str(dec), "--panel", "gsm8k=2", *FINAL3]
    built = _build(*reuse, "--out", str(rep))
    assert built.exit_code == 0, built.output
    panel = read_inventory(rep)
    ids, _ = shared_sources(panel, read_inventory(dec).requests)
    assert ids == sorted(e.id for e in panel.outcome.sources)  # the two it reuses
    before = (dec / "inventory.jsonl").read_bytes()
    again = _build(*decomposition, "--out", str(dec))  # now beside the panel built from it
    assert again.exit_code == 0, again.output
    assert (dec / "inventory.jsonl").read_bytes() == before
    args = ["--study", "confirmation", *SOURCED["confirmation"], *GSM8K]
    refused = _build(*args, "--out", str(confirmation))
    assert refused.exit_code == 1 and not confirmation.exists()
    shared = "(gsm8k:10) and 1 cluster(s) (gsm8k/gsm8k:10) with the decomposition inventory"
    assert f"{shared} in {dec}: pass --exclude {dec}" in refused.output
    built = _build(*args, "--exclude", str(dec), "--out", str(confirmation))
    assert built.exit_code == 0, built.output
    fresh = read_inventory(confirmation)
    for sibling in (dec, rep):
        assert shared_sources(fresh, read_inventory(sibling).requests) == ([], [])


def test_an_inventory_written_beside_is_found_but_an_excluded_one_is_not(tmp_path):
    inventory = build_switch_inventory(REPEAT_JUDGES[:1], seed=PAPER_SEED, items=4)
    for name in ("a", "b", "c"):
        write_inventory(tmp_path / name, inventory)
    (tmp_path / "empty").mkdir()
    assert sibling_inventories(tmp_path / "new") == [tmp_path / n for n in ("a", "b", "c")]
    found = sibling_inventories(tmp_path / "b", [tmp_path / "a" / "inventory.jsonl"])
    assert found == [tmp_path / "c"]
