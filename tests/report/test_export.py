"""``Run.to_pandas`` and ``readout export``: one row per record, read back as written."""

from __future__ import annotations

import csv
import json
import math
import shutil

import pandas as pd
import pytest
from click.testing import CliRunner

from readout_audit import read_run, records_frame
from readout_audit._cli import main
from readout_audit.lmeval import LMEvalRecord
from readout_audit.log import ScoreRecord, flatten_record, record_columns
from readout_audit.log._table import export_path

pytestmark = pytest.mark.cost(10)


def test_columns_come_from_the_record_type_with_nested_models_dotted():
    columns = {c.name: c for c in record_columns(ScoreRecord)}
    assert "greedy" not in columns and columns["greedy.text"].dtype == "string"
    assert columns["option_mass"].dtype == "Float64" and columns["n_tokens"].dtype == "Int64"
    assert columns["argmax_is_option"].dtype == "boolean" and columns["ending"].dtype == "string"
    # lists, objects and the mixed-type target are JSON text
    json_text = {name for name, column in columns.items() if column.json_text}
    assert {"options", "option_probs", "top", "metadata", "target", "greedy.token_ids"} <= json_text
    assert not {"item_id", "greedy.text", "option_mass"} & json_text
    empty = records_frame([], ScoreRecord)
    assert len(empty) == 0 and list(empty.columns) == list(columns)


def _assert_row_matches(row, record):
    """A table row (cells as text or typed values) against its record."""
    assert row["item_id"] == record.item_id and row["variant"] == record.variant
    assert row["greedy.text"] == record.greedy.text
    assert json.loads(row["options"]) == record.options
    assert json.loads(row["top"]) == [t.model_dump() for t in record.top]
    assert json.loads(row["option_token_ids"]) == record.option_token_ids
    if record.target is not None:
        assert json.loads(row["target"]) == record.target


def test_to_pandas_is_one_row_per_record(hostile_run):
    run = read_run(hostile_run)
    frame = run.to_pandas()
    assert len(frame) == len(run.records) > 0
    for (_, row), record in zip(frame.iterrows(), run.records, strict=True):
        _assert_row_matches(row, record)
        assert row["option_mass"] == record.option_mass  # the float as records.jsonl holds it
        assert flatten_record(record)["greedy.text"] == record.greedy.text
    assert frame["target"].isna().sum() == sum(r.target is None for r in run.records)


def test_csv_export_reads_back_as_the_records(hostile_run, tmp_path):
    out = tmp_path / "records.csv"
    result = CliRunner().invoke(main, ["export", str(hostile_run), "--out", str(out)])
    assert result.exit_code == 0, result.output
    run = read_run(hostile_run)
    assert f"{len(run.records)} records written to {out}" in result.output
    with out.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == len(run.records)
    assert list(rows[0]) == [c.name for c in record_columns(ScoreRecord)]
    for row, record in zip(rows, run.records, strict=True):
        _assert_row_matches(row, record)
        if record.option_mass is None:
            assert row["option_mass"] == ""
        else:
            assert math.isclose(float(row["option_mass"]), record.option_mass, abs_tol=1e-12)
        assert row["boundary_preserved"] == str(record.boundary_preserved)
    # pandas reads the same file into the same values
    again = pd.read_csv(out, keep_default_na=False)
    assert again["item_id"].tolist() == [r.item_id for r in run.records]


def test_parquet_export_round_trips(hostile_run, tmp_path):
    out = tmp_path / "records.parquet"
    result = CliRunner().invoke(
        main, ["export", str(hostile_run), "--format", "parquet", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    pd.testing.assert_frame_equal(pd.read_parquet(out), read_run(hostile_run).to_pandas())


def test_default_out_is_beside_the_run_and_kept_unless_forced(hostile_run, tmp_path):
    run_dir = tmp_path / "runs" / "mine"
    shutil.copytree(hostile_run, run_dir)
    assert export_path(run_dir, "csv") == tmp_path / "runs" / "mine.csv"
    assert export_path(f"{run_dir}/", "parquet") == tmp_path / "runs" / "mine.parquet"
    result = CliRunner().invoke(main, ["export", str(run_dir)])
    assert result.exit_code == 0 and (tmp_path / "runs" / "mine.csv").is_file(), result.output
    again = CliRunner().invoke(main, ["export", str(run_dir)])
    assert again.exit_code == 1 and "exists; pass --force to overwrite it" in again.output
    forced = CliRunner().invoke(main, ["export", str(run_dir), "--force"])
    assert forced.exit_code == 0, forced.output


def test_export_refuses_to_write_inside_a_run_directory(hostile_run):
    for name in ("records.csv", "sub/records.parquet"):
        inside = hostile_run / name
        result = CliRunner().invoke(
            main, ["export", str(hostile_run), "--out", str(inside), "--force"]
        )
        assert result.exit_code == 1 and "is inside the run directory" in result.output
        assert not inside.exists()


def test_a_missing_or_garbage_run_directory_is_a_clear_error(tmp_path):
    out = ["--out", str(tmp_path / "x.csv")]
    missing = CliRunner().invoke(main, ["export", str(tmp_path / "nowhere"), *out])
    assert missing.exit_code == 2 and "does not exist" in missing.output
    empty = CliRunner().invoke(main, ["export", str(tmp_path), *out])
    assert empty.exit_code == 1 and "is not a run directory (no manifest.json)" in empty.output
    garbage = tmp_path / "garbage"
    garbage.mkdir()
    (garbage / "manifest.json").write_text("{not json", encoding="utf-8")
    result = CliRunner().invoke(main, ["export", str(garbage), *out])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "manifest.json" in result.output and not (tmp_path / "x.csv").exists()


def test_objects_of_named_values_are_dotted_columns(options_run, tmp_path):
    # lm-eval's per-document metrics on the options run's records, as an lm-eval run has them
    records = [
        LMEvalRecord.model_validate(
            {
                **r.model_dump(),
                "task": "t",
                "doc_id": i,
                "choices": [o.strip() for o in r.options],
                "gold": [i % len(r.options)],
                "moved_whitespace": "",
                "lm_eval_metrics": {"acc": float(i % 2), "acc_norm": 0.5},
            }
        )
        for i, r in enumerate(read_run(options_run).records)
    ]
    frame = records_frame(records, LMEvalRecord)
    names = list(frame.columns)
    assert "lm_eval_metrics" not in names and "readout_choices" not in names
    at = names.index("lm_eval_metrics.acc")
    assert names[at : at + 2] == ["lm_eval_metrics.acc", "lm_eval_metrics.acc_norm"]
    assert str(frame["lm_eval_metrics.acc"].dtype) == "Float64"
    assert frame["lm_eval_metrics.acc"].tolist() == [float(i % 2) for i in range(len(records))]
    # each readout's choice as an integer column; lists stay JSON text
    assert str(frame["readout_choices.loglik"].dtype) == "Int64"
    loglik = [r.readout_choices["loglik"] for r in records]
    assert [None if pd.isna(v) else v for v in frame["readout_choices.loglik"]] == loglik
    assert frame["gold"].tolist() == [json.dumps(r.gold) for r in records]
    assert "logged_metrics.acc" not in names  # no record holds a logged metric
    assert flatten_record(records[1])["lm_eval_metrics.acc"] == 1.0


def test_export_writes_yesno_decisions_as_dotted_columns(yesno_run, tmp_path):
    out = tmp_path / "yesno.csv"
    result = CliRunner().invoke(main, ["export", str(yesno_run), "--out", str(out)])
    assert result.exit_code == 0, result.output
    with out.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    records = read_run(yesno_run).records
    readouts = list(records[0].decisions)
    assert "decisions" not in rows[0] and "string_parse" in readouts
    for row, record in zip(rows, records, strict=True):
        assert [row[f"decisions.{r}"] for r in readouts] == [
            record.decisions[r] or "" for r in readouts
        ]
        assert json.loads(row["set_logprobs"])  # keyed by token id: JSON text
