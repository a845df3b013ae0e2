"""``readout report`` shows any stage: a stage file or directory, its state, files and manifest."""

from __future__ import annotations

import json
import os

from click.testing import CliRunner
from hostile import refused, snapshot
from pydantic import BaseModel

from readout_audit._cli import main
from readout_audit.log import Manifest, RunLock, StageFile, holds_run, read_stage


class Row(BaseModel):
    id: str
    value: float


def _stage(path, rows, finish=True):
    stage = StageFile(path, Manifest.create("toy-stage", None, {"size": 3}), Row, lambda r: r.id)
    for row in rows:
        stage.append(row)
    if finish:
        stage.finish()
    return stage


def test_a_stage_file_reports_its_state_lines_and_manifest(tmp_path):
    path = tmp_path / "rows.jsonl"
    _stage(path, [Row(id="a", value=1.0), Row(id="b", value=2.0)]).close()
    with path.open("a") as handle:
        handle.write('{"id": "c", "va')  # an interrupted writer's cut line: not complete
    view = read_stage(path)
    assert view.finished and view.writer is None
    assert {f.name: f.lines for f in view.files} == {
        "rows.jsonl": 2,
        "rows.jsonl.manifest.json": None,
    }
    assert not holds_run(path)
    result = CliRunner().invoke(main, ["report", str(path), "--plain", "--verbose"])
    assert result.exit_code == 0, result.output
    assert "toy-stage" in result.output and ": finished" in result.output
    assert "size" in result.output  # the manifest's configuration, with --verbose


def test_a_stage_being_written_names_its_writer_and_an_interrupted_one_says_resume(tmp_path):
    path = tmp_path / "rows.jsonl"
    stage = _stage(path, [Row(id="a", value=1.0)], finish=False)
    try:
        assert read_stage(path).writer == str(os.getpid())
        result = CliRunner().invoke(main, ["report", str(path), "--plain"])
        assert f"in progress (process {os.getpid()}" in result.output
    finally:
        stage.close()
    result = CliRunner().invoke(main, ["report", str(path), "--plain"])
    assert "unfinished (interrupted; rerun the same command to resume)" in result.output


def test_a_directory_stage_lists_its_files_and_a_path_without_a_manifest_is_refused(tmp_path):
    stage = tmp_path / "stage"
    (stage / "side").mkdir(parents=True)
    manifest = Manifest.create("toy-directory", None, {"k": "v"})
    (stage / "manifest.json").write_text(json.dumps(manifest.model_dump(mode="json")))
    (stage / "side" / "weights.bin").write_bytes(b"\0" * 10)
    assert not holds_run(stage)
    result = CliRunner().invoke(main, ["report", str(stage), "--plain"])
    assert result.exit_code == 0, result.output
    assert "weights.bin" in result.output and "unfinished" in result.output
    loose = tmp_path / "loose.jsonl"
    loose.write_text("{}\n")
    result = CliRunner().invoke(main, ["report", str(loose)])
    assert result.exit_code != 0 and "is no stage" in result.output


def test_a_judge_inventory_folder_is_reported_as_its_stage(tmp_path):
    """``judge build --out DIR`` keeps its stage file in ``DIR``: ``report DIR`` shows it."""
    inventory = tmp_path / "inv"
    build = ["judge", "build", "--study", "reference-switch", "--items", "4"]
    built = CliRunner().invoke(
        main, [*build, "--configuration", "a=FINAL3@smollm2-135m", "--out", str(inventory)]
    )
    assert built.exit_code == 0, built.output
    before = snapshot(tmp_path)
    assert not holds_run(inventory)
    result = CliRunner().invoke(main, ["report", str(inventory), "--plain"])
    assert result.exit_code == 0, result.output
    assert f"judge-inventory at {inventory / 'inventory.jsonl'}: finished" in result.output
    lines = (inventory / "inventory.jsonl").read_bytes().count(b"\n")
    row = next(r for r in result.output.splitlines() if "| inventory.jsonl " in r)
    assert row.split("|")[3].strip() == str(lines)
    lock = RunLock(inventory)  # the inventory's writer holds DIR/.lock
    lock.acquire()
    try:
        result = CliRunner().invoke(main, ["report", str(inventory), "--plain"])
        assert f"in progress (process {os.getpid()}" in result.output, result.output
    finally:
        lock.release()
    assert snapshot(tmp_path) == before


def test_a_folder_of_several_stage_files_is_refused_naming_them(tmp_path):
    for name in ("a.jsonl", "b.jsonl"):
        _stage(tmp_path / "two" / name, [Row(id="a", value=1.0)]).close()
    before = snapshot(tmp_path)
    refused(["report", tmp_path / "two"], "holds several stages (a.jsonl, b.jsonl)")
    assert snapshot(tmp_path) == before


def test_a_stage_file_beside_another_programs_lock_folder_is_reported(tmp_path):
    (tmp_path / ".lock").mkdir()  # another program's: no lock of this project's
    path = tmp_path / "rows.jsonl"
    _stage(path, [Row(id="a", value=1.0)]).close()
    view = read_stage(path)
    assert view.finished and view.writer is None
