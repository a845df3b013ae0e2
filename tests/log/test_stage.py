"""Stage files: locked, identity-checked, append-only records that a rerun resumes."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel

from readout_audit import InputError, RunDirectoryError
from readout_audit.log import Invocation, Manifest, StageFile, write_once


class Row(BaseModel):
    id: str
    value: int


def _manifest(**config) -> Manifest:
    return Manifest(
        kind="rows",
        model={"spec": "m"},
        config=config,
        invocations=[Invocation(command=["rows"], started="2026-01-01T00:00:00+00:00")],
    )


def _open(path, **config) -> StageFile[Row, str]:
    return StageFile(path, _manifest(**config), Row, lambda r: r.id, what="rows")


def test_records_are_appended_read_back_and_a_rerun_resumes(tmp_path):
    path = tmp_path / "rows.jsonl"
    with _open(path, n=2) as stage:
        assert stage.done == {}
        stage.append(Row(id="a", value=1))
        stage.finish()
    with path.open("a") as file:
        file.write('{"id": "b", "val')  # cut by an interruption
    with _open(path, n=2) as stage:
        assert stage.done == {"a": Row(id="a", value=1)}
        stage.append(Row(id="b", value=2))
        with pytest.raises(RunDirectoryError, match="'b' is already in"):
            stage.append(Row(id="b", value=3))
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines == [{"id": "a", "value": 1}, {"id": "b", "value": 2}]
    manifest = json.loads((tmp_path / "rows.jsonl.manifest.json").read_text())
    assert len(manifest["invocations"]) == 2 and manifest["invocations"][0]["finished"]
    assert manifest["invocations"][1]["finished"] is None


def test_another_configuration_a_second_writer_and_a_file_without_manifest_are_refused(tmp_path):
    path = tmp_path / "rows.jsonl"
    with _open(path, n=2) as stage:
        with pytest.raises(RunDirectoryError, match="being written by process"):
            _open(path, n=2)
        stage.append(Row(id="a", value=1))
    with pytest.raises(RunDirectoryError, match=r"holds rows of another configuration.*n: 2 -> 3"):
        _open(path, n=3)
    with _open(path, n=2) as stage:  # the refusals left the file as it was
        assert list(stage.done) == ["a"]
    orphan = tmp_path / "orphan.jsonl"
    orphan.write_text('{"id": "a", "value": 1}\n')
    with pytest.raises(RunDirectoryError, match=r"without its manifest orphan\.jsonl\.manifest"):
        _open(orphan, n=2)


def test_a_repeated_key_in_the_file_names_its_line(tmp_path):
    path = tmp_path / "rows.jsonl"
    with _open(path, n=1):
        pass
    path.write_text('{"id": "a", "value": 1}\n{"id": "a", "value": 2}\n')
    with pytest.raises(InputError, match=r"rows.jsonl:2"):
        _open(path, n=1)


def test_a_document_is_written_once_and_a_rerun_must_find_the_same(tmp_path):
    path = tmp_path / "plan.json"
    write_once(path, {"programme": "screen", "keep": 2})
    write_once(path, {"programme": "screen", "keep": 2})
    with pytest.raises(InputError, match="field 'keep'") as error:
        write_once(path, {"programme": "screen", "keep": 3}, "use a new directory")
    assert "use a new directory" in str(error.value)
    assert json.loads(path.read_text()) == {"programme": "screen", "keep": 2}
