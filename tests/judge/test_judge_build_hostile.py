"""Hostile input to ``readout judge build``: a user's folder beside ``--out``, an option that is
not read, a key or a configuration named wrongly. Each is one error line naming it, and the
user's files are left byte-identical."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hostile import refused, snapshot, user_files

from readout_audit._cli import main
from readout_audit.judge import read_inventory

FIXTURES = Path(__file__).parent.parent / "fixtures" / "judge"
FILES = {name: FIXTURES / file for name, file in (
    ("gsm8k", "gsm8k_test_head.jsonl"), ("drop", "drop_rows.jsonl"),
    ("halueval", "halueval_qa_rows.jsonl"),
)}  # fmt: skip
PILOT = ["judge", "build", "--study", "formatting-pilot", "--halueval", FILES["halueval"]]
PILOT += ["--per-dataset", "3", "--configuration", "jev=FINAL3@smollm2-135m"]


def usage_error(args: list[object], *names: str) -> str:
    """The command must stop with exit status 2 (before anything is read) and one error line."""
    line = refused(["judge", "build", *args], *names)
    assert CliRunner().invoke(main, [str(a) for a in ["judge", "build", *args]]).exit_code == 2
    return line


def test_a_users_folder_holding_an_inventory_jsonl_beside_out_is_never_read(tmp_path):
    user_files(tmp_path / "mine")
    shop = tmp_path / "myshop"
    shop.mkdir()
    (shop / "inventory.jsonl").write_text(json.dumps({"sku": 1}) + "\n")
    before = snapshot(tmp_path)
    built = CliRunner().invoke(main, [str(a) for a in [*PILOT, "--out", tmp_path / "pilot"]])
    assert built.exit_code == 0, built.output
    assert len(read_inventory(tmp_path / "pilot").requests) > 0
    after = snapshot(tmp_path)
    assert {k: v for k, v in after.items() if not k.startswith("pilot")} == before
    # excluding it is refused: it is not an inventory, and the error says why it was read
    error = refused([*PILOT, "--exclude", shop, "--out", tmp_path / "second"], str(shop))
    assert "field 'exclude': is no judge inventory" in error and "--exclude names it" in error
    assert not (tmp_path / "second").exists() and snapshot(tmp_path) == after


def test_a_damaged_inventory_beside_out_is_named_with_why_it_was_read(tmp_path):
    first = tmp_path / "first"
    built = CliRunner().invoke(main, [str(a) for a in [*PILOT, "--out", first]])
    assert built.exit_code == 0, built.output
    with (first / "inventory.jsonl").open("a") as handle:
        handle.write(json.dumps({"sku": 1}) + "\n")
    before = snapshot(tmp_path)
    error = refused([*PILOT, "--seed", "5", "--out", tmp_path / "second"], "inventory.jsonl:")
    assert "read because it lies beside --out" in error and str(first) in error
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("dataset", list(FILES))
def test_a_split_of_a_local_file_is_refused_naming_both_options(tmp_path, dataset):
    before = snapshot(FIXTURES)
    args = [f"--{dataset}", FILES[dataset], f"--{dataset}-split", "nope"]
    if dataset == "drop":  # a DROP fixture alone holds too few sources for the defaults
        args += ["--drop-dates"]
    error = usage_error(
        [*args, "--configuration", "a=FINAL3@smollm2-135m", "--out", tmp_path / "out"],
        f"--{dataset}-split",
        f"--{dataset} {FILES[dataset]}",
    )
    assert "is a file, read whole" in error
    assert not (tmp_path / "out").exists() and snapshot(FIXTURES) == before


@pytest.mark.parametrize(
    ("given", "names"),
    [
        (["--drop-split", "validation"], ["--drop-split", "without --drop"]),
        (["--drop-dates"], ["--drop-dates", "without --drop"]),
        (["--gsm8k-split", ""], ["--gsm8k-split", "at least 1 character"]),
    ],
)
def test_a_source_setting_no_dataset_reads_is_refused(tmp_path, given, names):
    args = ["--halueval", FILES["halueval"], "--configuration", "a=FINAL3@smollm2-135m"]
    usage_error([*args, *given, "--out", tmp_path / "out"], *names)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("given", [["--limit", "3"], ["--exclude", FIXTURES]])
def test_a_study_that_reads_no_dataset_refuses_a_limit_or_an_exclusion(tmp_path, given):
    args = ["--study", "reference-switch", "--configuration", "a=FINAL3@smollm2-135m", *given]
    usage_error([*args, "--out", tmp_path / "out"], f"drop {given[0]}", "reference-switch")
    assert not (tmp_path / "out").exists()


def test_a_panel_count_in_other_digits_blames_the_panel_and_its_key(tmp_path):
    decomposition = tmp_path / "dec"
    decomposition.mkdir()
    error = usage_error(
        ["--study", "repeat", "--from-inventory", decomposition, "--panel", "halueval=٣",
         "--configuration", "a=FINAL3@smollm2-135m", "--out", tmp_path / "out"],
        "--panel halueval:", "valid integer",
    )  # fmt: skip
    assert "--halueval" not in error


@pytest.mark.parametrize(
    ("configuration", "shown"),
    [
        ("=FINAL3@", "'=FINAL3@'"),
        ("a=FINAL3@", "'a=FINAL3@'"),
        ("=FINAL3@openai:http://user:secret@127.0.0.1:9/v1#m", "//[redacted]@127.0.0.1"),
    ],
)
def test_a_malformed_configuration_is_echoed_as_given_but_its_credentials(
    tmp_path, configuration, shown
):
    args = ["--halueval", FILES["halueval"], "--configuration", configuration]
    error = refused(["judge", "build", *args, "--out", tmp_path / "out"], "configuration", shown)
    assert "secret" not in error and "user" not in error
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("judge", ["openai:nothing", "openai:http://user:secret@127.0.0.1:9/v1#m"])
def test_a_bad_judge_spec_in_a_configuration_blames_the_configuration(tmp_path, judge):
    args = ["--halueval", FILES["halueval"], "--configuration", f"a=FINAL3@{judge}"]
    error = refused(["judge", "build", *args, "--out", tmp_path / "out"], "field 'configuration'")
    assert "field 'model'" not in error and "secret" not in error
    assert not (tmp_path / "out").exists()
