"""A run reads as finished only when it is: in progress, short of its plan, edited summaries."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
from click.testing import CliRunner
from test_integrity import HOLD

from readout_audit import InputError, Item, read_run, score
from readout_audit._cli import main
from readout_audit.report import run_summary

ITEMS = [
    Item(id="one", prompt="Two plus two is", options=[" four", " five"], target=" four"),
    Item(id="two", prompt="The sky is", options=[" blue", " green"], target=" blue"),
]


@pytest.fixture(scope="module")
def finished_run(model, tmp_path_factory):
    out = tmp_path_factory.mktemp("states") / "run"
    score(model, ITEMS, out, greedy_tokens=2)
    return out


@pytest.fixture
def run_copy(finished_run, tmp_path):
    copy = tmp_path / "run"
    shutil.copytree(finished_run, copy)
    return copy


def _report(run_dir) -> str:
    result = CliRunner().invoke(main, ["report", str(run_dir), "--plain"])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.model
def test_two_items_with_one_id_stop_the_run_before_anything_is_scored(model, tmp_path):
    twins = [ITEMS[0], ITEMS[1].model_copy(update={"id": "one"})]
    with pytest.raises(InputError, match=r"share the key \('one', 'production'\)"):
        score(model, twins, tmp_path / "run", greedy_tokens=2)
    records = tmp_path / "run" / "records.jsonl"
    assert not records.exists() or records.read_text() == ""
    assert read_run(tmp_path / "run").state == "unfinished"


@pytest.mark.model
def test_a_finished_run_whose_records_fall_short_of_its_plan_is_not_finished(model, run_copy):
    run = read_run(run_copy)
    assert run.state == "finished" and run.planned == 2
    records = run_copy / "records.jsonl"
    first, _ = records.read_bytes().splitlines(keepends=True)
    records.write_bytes(first)
    short = read_run(run_copy)
    assert short.state == "incomplete" and len(short.records) == 1
    assert "1 of 2 planned records" in _report(run_copy)
    assert score(model, ITEMS, run_copy, greedy_tokens=2).n_new == 1
    assert read_run(run_copy).state == "finished"


@pytest.mark.model
def test_a_run_another_process_is_writing_is_reported_in_progress(run_copy):
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(run_copy), "60"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        run = read_run(run_copy)
        assert run.state == "running" and run.writer == str(holder.pid)
        output = _report(run_copy)
        assert f"in progress (process {holder.pid} is writing it now" in output
        assert "interrupted" not in output
    finally:
        holder.kill()
        holder.wait(timeout=30)
    assert read_run(run_copy).state == "finished"  # the lock went with the process


@pytest.mark.model
def test_an_edited_summary_is_not_trusted_but_recomputed_from_the_records(run_copy):
    path = run_copy / "summary.json"
    stored = json.loads(path.read_text())
    assert read_run(run_copy).summary is not None
    assert stored["n_records"] == 2 and set(stored["integrity"]) == {
        "records_sha256",
        "summary_sha256",
    }
    path.write_text(json.dumps({**stored, "n_records": 7}))
    run = read_run(run_copy)
    assert run.summary is None and run.state == "finished"
    assert run.summary_problem == (
        "summary.json does not match its hash (edited?); recomputed from the records"
    )
    output = _report(run_copy)
    assert "summary: summary.json does not match its hash" in output
    assert run_summary(run).n_records == 2


@pytest.mark.model
def test_records_changed_after_the_summary_was_written_are_recomputed(run_copy):
    records = run_copy / "records.jsonl"
    first, second = records.read_bytes().splitlines(keepends=True)
    records.write_bytes(second + first)  # the same records, another order: other bytes
    run = read_run(run_copy)
    assert run.summary is None and run.state == "finished"
    assert run.summary_problem == (
        "records.jsonl changed after summary.json was written; recomputed from them"
    )


@pytest.mark.model
def test_a_number_the_manifest_cannot_store_is_refused_before_the_run_directory(model, tmp_path):
    """NaN would be stored as null: the same call could never resume its run."""
    with pytest.raises(InputError, match=r"field 'config.template_kwargs.x': must be a finite"):
        score(model, ITEMS, tmp_path / "run", template_kwargs={"x": float("nan")})
    assert not (tmp_path / "run").exists()
