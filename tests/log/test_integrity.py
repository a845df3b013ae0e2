"""Run directories that cannot be corrupted or mixed: lock, framing, cut lines, corrupt files."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest
from rich.console import Console

from readout_audit import Item, RunDirectoryError, read_run, score
from readout_audit.log import SUMMARY_SCHEMA_VERSION, RunDirectory
from readout_audit.report import print_report
from readout_audit.scoring import SCORE

HOLD = """
import sys, time
from readout_audit.log import RunDirectory
from readout_audit.scoring import SCORE
held = RunDirectory(sys.argv[1], SCORE)
print("held", flush=True)
time.sleep(float(sys.argv[2]))
"""


def test_a_second_writer_is_refused_while_another_process_holds_the_run(tmp_path):
    out = tmp_path / "run"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(out), "60"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(RunDirectoryError, match=f"being written by process {holder.pid}"):
            RunDirectory(out, SCORE)
    finally:
        holder.kill()
        holder.wait(timeout=30)
    RunDirectory(out, SCORE).close()  # the kernel dropped the lock with the process
    with RunDirectory(out, SCORE), pytest.raises(RunDirectoryError, match="being written"):
        RunDirectory(out, SCORE)  # and within one process too


@pytest.fixture
def separator_run(model, tmp_path):
    items = [
        Item(
            id="sep\u2028id",
            prompt="Line one\u2028line two\u0085 The answer is",
            options=[" A", " B"],
        ),
        Item(id="plain", prompt="Two plus two is", options=[" four", " five"], target=" four"),
    ]
    out = tmp_path / "run"
    score(model, items, out, greedy_tokens=2)
    return out, items


@pytest.mark.model
def test_a_record_holding_line_separators_reads_back(separator_run):
    out, _ = separator_run
    text = (out / "records.jsonl").read_text(encoding="utf-8")
    assert text.count("\n") == 2 and "\u2028" not in text and "\\u2028" in text
    run = read_run(out)
    assert {r.item_id for r in run.records} == {"sep\u2028id", "plain"}
    tail = next(r.rendered_tail for r in run.records if r.item_id != "plain")
    assert "\u2028" in tail and "\u0085" in tail


@pytest.mark.model
def test_a_cut_last_line_is_reported_and_rescored_on_resume(model, separator_run):
    out, items = separator_run
    path = out / "records.jsonl"
    first, second = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(first + second[:40])
    run = read_run(out)
    assert run.state == "cut" and len(run.records) == 1 and run.cut_line is not None
    buffer = io.StringIO()
    print_report(run, Console(file=buffer, width=160))
    assert "interrupted mid-record" in buffer.getvalue() and "1 records" in buffer.getvalue()
    result = score(model, items, out, greedy_tokens=2)
    assert result.n_new == 1
    again = read_run(out)
    assert again.state == "finished" and path.read_bytes().count(b"\n") == 2
    assert sorted(r.item_id for r in again.records) == sorted(i.id for i in items)


@pytest.mark.model
def test_corrupt_manifest_and_summary_give_clear_errors(model, separator_run):
    out, items = separator_run
    summary = out / "summary.json"
    summary.write_text(f'{{"schema_version": {SUMMARY_SCHEMA_VERSION}, "kind": "score", "n_rec')
    with pytest.raises(RunDirectoryError, match=r"summary.json is corrupt \(not JSON"):
        read_run(out)
    invalid = {"schema_version": SUMMARY_SCHEMA_VERSION, "kind": "score", "n_records": "many"}
    summary.write_text(json.dumps(invalid))  # no hashes: not trusted, recomputed
    run = read_run(out)
    assert run.summary is None and "does not match its hash" in (run.summary_problem or "")
    summary.unlink()
    manifest = out / "manifest.json"
    manifest.write_text(manifest.read_text()[:100])
    with pytest.raises(RunDirectoryError, match=r"manifest.json is corrupt"):
        read_run(out)
    with pytest.raises(RunDirectoryError, match=r"manifest.json is corrupt"):
        score(model, items, out, greedy_tokens=2)


def test_an_older_summary_is_recomputed_not_trusted(tmp_path):
    from readout_audit.log._run import _read_summary

    path = tmp_path / "summary.json"
    path.write_text(json.dumps({"n_records": 3, "variants": {}}))  # version 1: untyped
    assert _read_summary(path, SCORE) == (None, None)
    path.write_text(json.dumps({"schema_version": 2, "kind": "yesno", "token_sets": []}))
    # version 2: yes/no token sets without readouts
    assert _read_summary(path, SCORE) == (None, None)
