"""Items a user brings in another shape: a JSON array, hub MMLU's integer answer; an options
run summed up by its production rung."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from readout_audit._cli import main
from readout_audit.log import read_run

ROWS = [
    {"id": "ice", "question": "What is frozen water called?", "choices": ["ice", "fog"]},
    {"id": "bees", "question": "What do bees make?", "choices": ["silk", "honey"]},
]


def options(items: Path, out: Path, *more: str) -> list[str]:
    return ["audit", "options", "--items", str(items), "--spec", "answer", *more, "--out", str(out)]


def test_a_json_array_given_as_json_lines_says_so(tmp_path: Path) -> None:
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps(ROWS, indent=1), encoding="utf-8")
    result = CliRunner().invoke(main, options(items, tmp_path / "run"))
    assert result.exit_code != 0
    assert f"{items}:1: is a JSON array, but items are JSON Lines" in result.output
    assert "Expecting value" not in result.output and not (tmp_path / "run").exists()


def test_an_integer_answer_is_the_choices_index(tmp_path: Path) -> None:
    items = tmp_path / "items.jsonl"
    rows = [ROWS[0] | {"answer": 0}, ROWS[1] | {"answer": 7}]
    items.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    result = CliRunner().invoke(main, options(items, tmp_path / "run"))
    assert result.exit_code != 0
    # the first row's index is read as its letter; the second names the indices there are
    assert f"{items}:2, item 'bees'" in result.output
    assert "answer 7 is not a choice index (0 to 1) nor a choice letter" in result.output


@pytest.mark.model
def test_an_options_run_is_summed_up_by_its_production_rung(tmp_path: Path) -> None:
    items = tmp_path / "items.jsonl"
    rows = [ROWS[0] | {"answer": 0}, ROWS[1] | {"answer": 1}]
    items.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    result = CliRunner().invoke(main, options(items, tmp_path / "run", "--variants", "quick"))
    assert result.exit_code == 0, result.output
    sheet = tmp_path / "table.csv"
    result = CliRunner().invoke(main, ["table", str(tmp_path / "run"), "--csv", str(sheet)])
    assert result.exit_code == 0, result.output
    (row,) = csv.DictReader(sheet.open(encoding="utf-8"))
    rungs = read_run(tmp_path / "run").summary.variants
    production = rungs["production"]
    assert production.accuracy is not None  # the integer answers were read as letters
    assert float(row["median mass"]) == pytest.approx(production.median_mass)
    assert float(row["accuracy"]) == pytest.approx(production.accuracy.loglik.estimate)
    assert float(row["below floor"]) == pytest.approx(
        production.below_floor / production.n_mass_measured
    )
    # not pooled over the ladder, whose other rungs change the prompt on purpose
    pooled = sum(r.below_floor for r in rungs.values()) / sum(
        r.n_mass_measured for r in rungs.values()
    )
    assert pooled != pytest.approx(float(row["below floor"]))
