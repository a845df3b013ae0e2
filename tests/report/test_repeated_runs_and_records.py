"""A record written twice is refused by every reader of a run, never counted twice; a table
names each run once."""

from __future__ import annotations

import csv
import json
import shutil
import statistics
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner
from hostile import refused, snapshot
from pydantic import BaseModel

from readout_audit import InputError, read_run
from readout_audit._cli import main
from readout_audit.log import Manifest, RunDirectory, Summary, _kinds

ROOT = Path(__file__).resolve().parents[2]
ITEMS = ROOT / "examples" / "items.jsonl"


@pytest.fixture(scope="module")
def b1(tmp_path_factory):
    """The issue's ``runs/b1``: ``readout score --items examples/items.jsonl --limit 2``."""
    out = tmp_path_factory.mktemp("repeat") / "b1"
    result = CliRunner().invoke(
        main, ["score", "--items", str(ITEMS), "--limit", "2", "--out", str(out), "--plain"]
    )
    assert result.exit_code == 0, result.output
    return out


@pytest.mark.model
def test_a_record_line_written_twice_is_refused_by_every_reader_and_the_resume(
    b1, tmp_path, float32_budget
):
    runs = tmp_path / "runs"
    twice, intact = runs / "b1", runs / "b2"
    shutil.copytree(b1, twice)
    shutil.copytree(b1, intact)
    records = twice / "records.jsonl"
    first = records.read_bytes().splitlines(keepends=True)[0]
    with records.open("ab") as handle:
        handle.write(first)
    line = json.loads(first)
    key = repr((line["item_id"], line["variant"]))
    before = snapshot(runs)
    written = tmp_path / "written"
    commands = [
        ["report", twice, "--plain"],
        ["report", twice, "--html", written / "b1.html"],
        ["compare", twice, intact],
        ["compare", intact, twice, "--json", written / "c.json"],
        ["table", intact, twice, "--csv", written / "t.csv"],
        ["export", twice, "--out", written / "b1.csv"],
        ["score", "--items", ITEMS, "--limit", "2", "--out", twice, "--plain"],  # the resume
    ]
    for command in commands:
        error = refused(command, f"{records}:3", key, "repeats line 1")
        assert "corrupt" in error and "keep one of the two lines" in error, error
        assert snapshot(runs) == before and not written.exists(), command
    with pytest.raises(InputError) as caught:
        read_run(twice)
    assert (caught.value.source, caught.value.line) == (str(records), 3)

    # the remedy: with one of the two lines kept, the run reads as the one scored, and its
    # median option mass is that of its two records, computed here from their lines alone
    records.write_bytes(records.read_bytes()[: -len(first)])
    result = CliRunner().invoke(main, ["table", str(twice), "--csv", str(tmp_path / "t.csv")])
    assert result.exit_code == 0, result.output
    (row,) = csv.DictReader((tmp_path / "t.csv").open(newline=""))
    lines = [json.loads(text) for text in records.read_text().splitlines()]
    assert (row["records"], row["state"]) == ("2", "finished")
    expected = statistics.median(r["option_mass"] for r in lines)
    budget = float32_budget(max(r["n_tokens"] for r in lines))
    assert abs(float(row["median mass"]) - expected) <= budget


class ToyRecord(BaseModel):
    schema_version: int = 2
    item_id: str
    variant: str
    cluster: str


@dataclass(frozen=True)
class ToyKind:
    """A kind of its own key (the item alone, as a judge run's request id): the reader of
    every kind's records refuses a repeat by that kind's key."""

    name: str = "toy-repeats"
    record_type: type[ToyRecord] = ToyRecord
    summary_type: type[Summary] = Summary
    files: tuple[str, ...] = ()

    @property
    def record_key(self):
        return lambda record: (record.item_id,)


def test_any_kind_refuses_a_repeat_of_its_own_key_and_resumes_nothing(tmp_path, monkeypatch):
    kind = ToyKind()
    monkeypatch.setitem(_kinds._KINDS, kind.name, kind)
    run = tmp_path / "run"
    with RunDirectory(run, kind) as directory:
        directory.start(Manifest.create(kind.name, None, {}))
        directory.append(ToyRecord(item_id="a", variant="x", cluster="a"))
    with (run / "records.jsonl").open("a") as handle:  # another variant, the same key
        handle.write(ToyRecord(item_id="a", variant="y", cluster="a").model_dump_json() + "\n")
    before = snapshot(tmp_path)
    with pytest.raises(InputError, match=r"records.jsonl:2: record \('a',\) repeats line 1"):
        read_run(run)
    with RunDirectory(run, kind) as directory, pytest.raises(InputError, match="corrupt"):
        directory.start(Manifest.create(kind.name, None, {}))
    assert snapshot(tmp_path) == before  # the manifest gained no invocation


@pytest.mark.model
def test_a_run_named_twice_in_a_table_is_refused_under_any_spelling(b1, tmp_path, monkeypatch):
    runs = tmp_path / "runs"
    shutil.copytree(b1, runs / "b1")
    (runs / "again").symlink_to("b1")
    before = snapshot(runs)
    csv_out = tmp_path / "t.csv"
    monkeypatch.chdir(tmp_path)  # relative spellings, as a user types them
    for spelling in ["runs/b1", "./runs/b1/", "runs/again", str(runs / "b1")]:
        error = refused(["table", "runs/b1", spelling, "--csv", csv_out], str(Path(spelling)))
        assert "the run runs/b1 is named twice" in error, error
        assert snapshot(runs) == before and not csv_out.exists()
    shutil.copytree(b1, runs / "copy")  # a copy is another run: both rows
    result = CliRunner().invoke(main, ["table", "runs/b1", "runs/copy", "--csv", str(csv_out)])
    assert result.exit_code == 0, result.output
    assert [r["run"] for r in csv.DictReader(csv_out.open(newline=""))] == ["runs/b1", "runs/copy"]
