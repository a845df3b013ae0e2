"""The user's files are never replaced, deleted or raced over: outputs only over regular files,
inventories never over their own inputs, one writer at a time, and inert text on the way out.
Every hostile input is made here; a folder of the user's files is checked unchanged after."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from hostile import first_writer, refused, snapshot, user_files

from readout_audit._cli import main
from readout_audit.log import Manifest

ROOT = Path(__file__).resolve().parents[1]
SWITCH = ["judge", "build", "--study", "reference-switch", "--items", "4"]
SWITCH += ["--configuration", "a=FINAL3@smollm2-135m"]


def lm_eval_line(item_id: str, doc_id: int, text: str = " yes", value: float | None = None) -> str:
    """One valid lm-eval record, written by hand (no model needed)."""
    record = {
        "schema_version": 2,
        "item_id": item_id,
        "variant": "production",
        "options": [" yes", " no"],
        "cluster": item_id,
        "rendered_sha256": "0" * 64,
        "rendered_tail": "Is it?",
        "n_tokens": 3,
        "scored_index": 2,
        "last_token_id": 7,
        "ending": "none",
        "argmax_id": 5,
        "argmax_token": " yes",
        "argmax_prob": 0.6,
        "argmax_is_option": True,
        "top": [],
        "option_token_ids": [[5], [6]],
        "option_first_ids": [5, 6],
        "boundary_preserved": True,
        "distinct_first_tokens": True,
        "option_mass": 0.9,
        "option_logprobs": [-0.5, -1.0],
        "option_token_logprobs": [[-0.5], [-1.0]],
        "option_probs": [0.62, 0.38],
        "expected_value": value,
        "greedy": {"token_ids": [5], "text": text},
        "spec": "lm-eval",
        "item_letters": ["A", "B"],
        "argmax_class": "option",
        "letter_pull": False,
        "continuation_class": "other",
        "answer_then_option": False,
        "option_anywhere": False,
        "letter_anywhere": False,
        "isolated_first_ids": [5, 6],
        "isolated_mass": 0.9,
        "mass_argmax_disagree": False,
        "readout_choices": {},
        "readouts_agree": True,
        "task": "t",
        "doc_id": doc_id,
        "choices": ["yes", "no"],
        "gold": [0],
        "moved_whitespace": " ",
    }
    return json.dumps(record) + "\n"


def lm_eval_run(folder: Path, *lines: str) -> Path:
    """A run directory of lm-eval records made by hand: a manifest and ``lines``."""
    folder.mkdir(parents=True)
    manifest = Manifest(kind="lm-eval", model={"spec": "smollm2-135m"}, config={})
    (folder / "manifest.json").write_text(manifest.model_dump_json())
    (folder / "records.jsonl").write_text("".join(lines) or lm_eval_line("q1", 1))
    return folder


def ok(args: list[object]) -> str:
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


def specials(folder: Path) -> list[Path]:
    """The user's entries that are no regular file: a FIFO, and the device node where made."""
    return [folder / name for name in ("pipe", "null") if (folder / name).exists()]


def test_forced_outputs_never_replace_a_fifo_or_a_device(tmp_path):
    mine = user_files(tmp_path / "mine")
    run = lm_eval_run(tmp_path / "run")
    before = snapshot(mine)
    for path in specials(mine):
        for command in (
            ["export", run, "--out", path],
            ["report", run, "--html", path],
            ["compare", run, run, "--json", path],
            ["table", run, "--csv", path],
        ):
            error = refused([*command, "--force"], str(path), "not a regular file")
            assert "never replaced, even with --force" in error
            assert "pass --force" not in refused(command, str(path))  # no hint to force it
    assert snapshot(mine) == before


def test_judge_build_never_overwrites_its_own_inventory_inputs(tmp_path):
    folder = user_files(tmp_path / "inventory")
    ok([*SWITCH, "--out", folder])
    before = snapshot(folder)
    inventory = folder / "inventory.jsonl"
    halueval = ROOT / "tests" / "fixtures" / "judge" / "halueval_qa_rows.jsonl"
    pilot = ["judge", "build", "--study", "formatting-pilot", "--halueval", halueval]
    pilot += ["--per-dataset", "3", "--configuration", "jev=FINAL3@smollm2-135m"]
    for reads in (["--exclude", folder], ["--exclude", inventory]):  # a study drawing fresh data
        error = refused([*pilot, *reads, "--force", "--out", folder], str(inventory))
        assert "field 'out': is also an input of this command" in error
    repeat = ["judge", "build", "--study", "repeat", "--from-inventory", folder]
    error = refused(
        [*repeat, "--configuration", "a=FINAL3@smollm2-135m", "--force", "--out", folder]
    )
    assert f"{inventory}, field 'out': is also an input of this command" in error
    assert snapshot(folder) == before


def test_a_second_judge_build_is_refused_while_the_first_builds(tmp_path):
    folder = user_files(tmp_path / "inventory")
    ok([*SWITCH, "--out", folder])
    with first_writer(folder, "build") as pid:
        before = snapshot(folder)
        refused([*SWITCH, "--force", "--out", folder], str(folder), f"by process {pid}")
        assert snapshot(folder) == before
    assert "wrote 80 requests" in ok([*SWITCH, "--force", "--out", folder])  # free again


def test_a_failed_judge_build_leaves_no_directory_behind(tmp_path):
    out = tmp_path / "new" / "inventory"
    bad = ["judge", "build", "--study", "repeat", "--configuration", "a=FINAL3@smollm2-135m"]
    refused([*bad, "--out", out], "from-inventory")  # the repeat panel needs its inventory
    assert not (tmp_path / "new").exists()


@pytest.mark.parametrize(
    ("study", "option", "value"),
    [
        ("confirmation", "--items", "8"),
        ("repeat", "--items", "8"),
        ("reference-switch", "--preflight-per-dataset", "3"),
        ("decomposition", "--preflight-per-dataset", "0"),
    ],
)
def test_judge_build_refuses_a_study_option_the_study_does_not_read(tmp_path, study, option, value):
    args = ["judge", "build", "--study", study, option, value]
    args += ["--configuration", "a=FINAL3@smollm2-135m", "--out", tmp_path / "inventory"]
    error = refused(args, option, f"not read by the {study} study")
    assert "only" in error
    assert not (tmp_path / "inventory").exists()


HOSTILE_NAME = "run\x1b]8;;https://evil.example\x07click\x1b]8;;\x07\x1b[31m\u202ename"


def test_output_paths_are_printed_with_controls_and_bidi_escaped(tmp_path):
    run = lm_eval_run(tmp_path / HOSTILE_NAME)
    printed = [
        ok(["export", run]),  # beside the run, named after it
        ok(["table", run, "--csv", tmp_path / f"{HOSTILE_NAME}-table.csv"]),
        ok(["compare", run, run, "--n-boot", "100", "--json", tmp_path / f"{HOSTILE_NAME}.json"]),
        ok(["report", run, "--plain", "--html", tmp_path / f"{HOSTILE_NAME}.html"]),
    ]
    for output in printed:
        assert "\x1b" not in output and "\x07" not in output and "\u202e" not in output
        assert "<U+202E>name" in output
    assert printed[0].endswith(f"written to {tmp_path}/runclick<U+202E>name.csv\n")
    assert (tmp_path / f"{HOSTILE_NAME}-table.csv").is_file()  # the file keeps the name given


def test_csv_export_writes_formulas_as_text_and_numbers_as_numbers(tmp_path):
    formula = '=HYPERLINK("https://evil.example","click")'
    lines = [
        lm_eval_line(formula, 1, text="@SUM(A1:A9)", value=-3.5),
        lm_eval_line("+q2", 2, text="\rcarriage", value=-0.25),
        lm_eval_line("q3", 3, text="-1", value=None),
    ]
    run = lm_eval_run(tmp_path / "run", *lines)
    ok(["export", run, "--out", tmp_path / "run.csv"])
    with (tmp_path / "run.csv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["item_id"] for r in rows] == [f"'{formula}", "'+q2", "q3"]
    assert [r["greedy.text"] for r in rows] == ["'@SUM(A1:A9)", "'\rcarriage", "-1"]
    assert [r["expected_value"] for r in rows] == ["-3.5", "-0.25", ""]  # numbers untouched
    assert [r["option_logprobs"] for r in rows] == ["[-0.5,-1.0]"] * 3


@pytest.mark.parametrize("table_format", ["csv", "parquet"])
def test_export_keeps_doc_ids_up_to_2_64_minus_1(tmp_path, table_format):
    top = (1 << 64) - 1
    run = lm_eval_run(tmp_path / "run", lm_eval_line("a", top), lm_eval_line("b", 1 << 63))
    out = tmp_path / f"run.{table_format}"
    assert "2 records written" in ok(["export", run, "--format", table_format, "--out", out])
    if table_format == "csv":
        with out.open(newline="", encoding="utf-8") as handle:
            assert [r["doc_id"] for r in csv.DictReader(handle)] == [str(top), str(1 << 63)]
    else:
        assert pd.read_parquet(out)["doc_id"].tolist() == [top, 1 << 63]


def test_a_second_writer_is_refused_before_its_model_loads(tmp_path, no_model_loads):
    out = user_files(tmp_path / "run")
    items = ROOT / "examples" / "items.jsonl"
    with first_writer(out, "run-directory") as pid:  # the first writer is loading its model
        before = snapshot(out)
        refused(["score", "--items", items, "--out", out], str(out), f"by process {pid}")
        assert snapshot(out) == before


def test_a_folder_whose_manifest_is_no_runs_is_refused_before_the_model_loads(
    tmp_path, no_model_loads
):
    out = user_files(tmp_path / "extension")
    (out / "manifest.json").write_text('{"manifest_version": 3, "name": "my extension"}')
    before = snapshot(out)
    items = ROOT / "examples" / "items.jsonl"
    refused(["score", "--items", items, "--out", out], "manifest.json", "is no run directory")
    assert snapshot(out) == before
