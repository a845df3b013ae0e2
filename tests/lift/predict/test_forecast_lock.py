"""One writer per forecast file: a second `readout lift predict` stops at once, writing nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from readout_audit import RunDirectoryError
from readout_audit._cli import main
from readout_audit.lift import read_forecasts, write_forecasts


class SecondWriterOnFirstForecast:
    """The real model, but its first generation waits for ``second()``: a rival writer run
    while the first writer is mid-file."""

    def __init__(self, model, second):
        self._model, self._second, self.result = model, second, None

    def __getattr__(self, name):
        return getattr(self._model, name)

    def generate(self, ids, settings):
        if self.result is None:
            self.result = self._second()
        return self._model.generate(ids, settings)


def test_a_second_writer_stops_before_loading_a_model_and_writes_nothing(model, make_cut, tmp_path):
    cuts = [make_cut("eq1"), make_cut("eq2")]
    cuts_path, out = tmp_path / "cuts.jsonl", tmp_path / "z.jsonl"
    cuts_path.write_text("".join(c.model_dump_json() + "\n" for c in cuts))
    command = [sys.executable, "-m", "readout_audit", "lift", "predict", "--cuts", str(cuts_path)]
    command += ["--out", str(out), "--max-new-tokens", "2", "--no-progress"]

    def second():
        before = out.read_bytes()
        rival = subprocess.run(command, capture_output=True, text=True, timeout=300)
        assert out.read_bytes() == before  # it wrote nothing
        with pytest.raises(RunDirectoryError, match=f"being written by process {os.getpid()}"):
            write_forecasts(model, cuts, out, setting="smollm2-135m-t1")  # nor in one process
        return rival

    first = SecondWriterOnFirstForecast(model, second)
    written = write_forecasts(first, cuts, out, setting="smollm2-135m-t1", max_new_tokens=2)

    rival = first.result
    assert rival.returncode == 1, rival.stderr
    assert f"{out}, field 'out': is being written by process {os.getpid()}" in rival.stderr
    assert "loading" not in rival.stderr  # refused before any model loaded
    assert [f.cut_id for f in read_forecasts(out)] == [c.id for c in cuts]  # each once
    assert [f.cut_id for f in written] == [c.id for c in cuts]
    manifest = json.loads((tmp_path / "z.jsonl.manifest.json").read_text())
    assert len(manifest["invocations"]) == 1 and manifest["invocations"][0]["finished"]


def test_lift_score_refuses_a_forecast_file_holding_a_cut_twice(make_cut, tmp_path):
    cut = make_cut()
    cuts_path, forecasts = tmp_path / "cuts.jsonl", tmp_path / "z.jsonl"
    cuts_path.write_text(cut.model_dump_json() + "\n")
    line = json.dumps({"cut_id": cut.id, "setting": "s", "z": "1}"}) + "\n"
    forecasts.write_text(line * 2)
    args = ["lift", "score", "--cuts", str(cuts_path), "--forecasts", str(forecasts)]
    result = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "run")])
    assert result.exit_code == 1
    assert (
        f"z.jsonl:2, field 'cut_id': cut '{cut.id}' under setting 's' already has a forecast "
        "on line 1" in result.output
    )
    assert not (tmp_path / "run").exists()
