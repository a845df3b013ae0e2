"""Run directories: manifest, append-and-flush records, resume without duplicates, read back."""

from __future__ import annotations

import json

import pytest

from readout_audit import Item, RunDirectoryError, read_run, score
from readout_audit.judge import JudgeRecord
from readout_audit.log import RECORD_SCHEMA_VERSION, ScoreRecord

ITEMS = [
    Item(
        id=f"q{i}",
        prompt=f"{i} plus {i} equals",
        options=[" two", f" {2 * i}", " zero"],
        target=f" {2 * i}",
    )
    for i in range(1, 5)
]


def test_manifest_records_and_summary(model, tmp_path):
    result = score(model, ITEMS, tmp_path / "run", greedy_tokens=4, top_k=3)
    run = read_run(tmp_path / "run")
    assert result.n_new == 4 and [r.item_id for r in run.records] == ["q1", "q2", "q3", "q4"]
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["model"]["spec"] == "smollm2-135m"
    assert manifest["model"]["files"][0]["sha256"] == model.info.files[0].sha256
    assert manifest["model"]["chat_template_sha256"] == model.codec.chat_template_sha256
    assert manifest["model"]["dtype"] == "float32"
    assert {"torch", "transformers", "numpy", "python"} <= set(manifest["versions"])
    assert manifest["config"]["top_k"] == 3 and manifest["config"]["greedy_tokens"] == 4
    assert manifest["invocations"][0]["command"] and manifest["invocations"][0]["finished"]
    assert "seeds" in manifest
    record = run.records[0]
    assert record.schema_version == RECORD_SCHEMA_VERSION and len(record.top) == 3
    assert len(record.greedy.token_ids) <= 4 and record.variant == "production"
    assert run.summary == result.summary and run.summary.n_records == 4
    # typed by its record: the same run, checked rather than filtered
    assert run.of(ScoreRecord) is run
    with pytest.raises(RunDirectoryError, match="record 1 is a ScoreRecord, not a JudgeRecord"):
        run.of(JudgeRecord)


def test_rerun_resumes_and_never_duplicates(model, tmp_path):
    out = tmp_path / "run"
    first = score(model, ITEMS[:2], out, greedy_tokens=2)
    assert first.n_new == 2
    with pytest.raises(RunDirectoryError, match="items_sha256"):
        score(model, ITEMS, out, greedy_tokens=2)  # other items: refuse to mix
    # Simulate an interruption: drop the summary and cut the last record mid-line.
    records = out / "records.jsonl"
    lines = records.read_text().splitlines(keepends=True)
    records.write_text(lines[0] + lines[1][: len(lines[1]) // 2])
    assert [r.item_id for r in read_run(out).records] == ["q1"]  # a cut line is not a record
    again = score(model, ITEMS[:2], out, greedy_tokens=2)
    assert again.n_new == 1
    run = read_run(out)
    assert [r.item_id for r in run.records] == ["q1", "q2"]
    assert len(run.manifest.invocations) == 2
    assert score(model, ITEMS[:2], out, greedy_tokens=2).n_new == 0
    assert len(read_run(out).records) == 2


def test_interrupted_run_keeps_every_finished_record(model, tmp_path, monkeypatch):
    from readout_audit.scoring import _audit as _score

    calls = {"n": 0}
    real = _score.read_position

    def interrupt_on_third(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(_score, "read_position", interrupt_on_third)
    with pytest.raises(KeyboardInterrupt):
        score(model, ITEMS, tmp_path / "run", greedy_tokens=1)
    run = read_run(tmp_path / "run")
    assert [r.item_id for r in run.records] == ["q1", "q2"] and run.summary is None
    monkeypatch.setattr(_score, "read_position", real)
    assert score(model, ITEMS, tmp_path / "run", greedy_tokens=1).n_new == 2


def test_read_run_errors(tmp_path):
    with pytest.raises(RunDirectoryError, match="not a run directory"):
        read_run(tmp_path)


def test_record_schema_version_is_checked(model, tmp_path):
    score(model, ITEMS[:1], tmp_path / "run", greedy_tokens=0)
    path = tmp_path / "run" / "records.jsonl"
    data = json.loads(path.read_text())
    data["schema_version"] = 999
    path.write_text(json.dumps(data) + "\n")
    with pytest.raises(RunDirectoryError, match="schema version 999"):
        read_run(tmp_path / "run")
