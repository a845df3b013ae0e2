"""A cut file is a stage: one writer at a time, its identity checked, resumed after a kill -9."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from readout_audit._cli import main
from readout_audit._exceptions import InputError
from readout_audit.lift import read_cuts
from readout_audit.log import RunLock, read_stage

TEX = Path(__file__).parent.parent / "fixtures" / "tex"
CUT = ["lift", "cut", str(TEX / "testmath.tex"), "--min-cuts", "1", "--per-paper", "12"]

KILLED_AFTER = """
import sys, time
from readout_audit.log import StageFile
real = StageFile.append
def append(self, record):
    real(self, record)
    if len(self.done) == 5:  # five cuts flushed: tell the test, then wait for the kill
        open(sys.argv[1], "w").close()
        time.sleep(600)
StageFile.append = append
from readout_audit._cli import main
main(sys.argv[2:])
"""


def cut(out: Path, *more: str):
    return CliRunner().invoke(main, [*CUT, "--out", str(out), *more])


def test_a_second_writer_is_refused_naming_the_holder_and_nothing_is_written(tmp_path):
    out = tmp_path / "cuts.jsonl"
    lock = RunLock(out, beside=True)  # the stage's lock, as the first writer holds it
    lock.acquire()
    try:
        result = cut(out)
        assert result.exit_code == 1
        assert f"is being written by process {os.getpid()}" in result.output
        assert not out.exists() and not (tmp_path / "cuts.jsonl.manifest.json").exists()
    finally:
        lock.release()
    assert cut(out).exit_code == 0


def test_a_rerun_resumes_the_same_settings_and_refuses_others_listing_them(tmp_path):
    out = tmp_path / "cuts.jsonl"
    assert cut(out).exit_code == 0
    written = out.read_bytes()
    again = cut(out)  # no --force needed: the same stage
    assert again.exit_code == 0, again.output
    assert out.read_bytes() == written
    assert len(read_stage(out).manifest.invocations) == 2
    other = cut(out, "--seed", "1")
    assert other.exit_code == 1
    assert "Differences: config.settings.seed: 0 -> 1; seeds.seed: 0 -> 1" in other.output
    assert out.read_bytes() == written


def test_an_earlier_versions_cut_file_is_read_and_replaced_only_with_force(tmp_path):
    out = tmp_path / "cuts.jsonl"
    assert cut(out).exit_code == 0
    cuts = read_cuts(out)
    sidecar = tmp_path / "cuts.jsonl.manifest.json"
    sidecar.write_text(json.dumps({"version": "0.9", "settings": {}, "papers": []}))
    assert read_cuts(out) == cuts  # its records are the same Cut lines
    refused = cut(out)
    assert refused.exit_code == 1 and "exists; pass --force to overwrite it" in refused.output
    assert cut(out, "--force").exit_code == 0 and read_cuts(out) == cuts


def test_a_cut_file_killed_midway_is_refused_then_resumed_to_the_uninterrupted_file(tmp_path):
    whole = tmp_path / "whole.jsonl"
    assert cut(whole).exit_code == 0
    assert len(read_cuts(whole)) == 12
    out, marker = tmp_path / "cuts.jsonl", tmp_path / "five-written"
    args = [*CUT, "--out", str(out)]
    writer = subprocess.Popen([sys.executable, "-c", KILLED_AFTER, str(marker), *args])
    try:
        deadline = time.monotonic() + 120
        while not marker.exists():
            assert writer.poll() is None, "the writer ended before it was killed"
            assert time.monotonic() < deadline, "the writer never wrote five cuts"
            time.sleep(0.05)
        os.kill(writer.pid, signal.SIGKILL)
    finally:
        writer.wait()
    assert writer.returncode == -signal.SIGKILL
    assert len(out.read_text().splitlines()) == 5
    assert read_stage(out).finished is False
    with pytest.raises(InputError, match="unfinished cut file"):
        read_cuts(out)
    with out.open("a") as handle:  # a line cut by the kill, as a write in flight leaves it
        handle.write('{"id": "testmath:eq')
    resumed = cut(out)
    assert resumed.exit_code == 0, resumed.output
    assert out.read_bytes() == whole.read_bytes()
    assert read_cuts(out) == read_cuts(whole)
    papers = [tmp_path / f"{name}.jsonl.papers.json" for name in ("cuts", "whole")]
    assert papers[0].read_text() == papers[1].read_text()
    invocations = read_stage(out).manifest.invocations
    assert [i.finished is not None for i in invocations] == [False, True]
    assert invocations[-1].planned == 12
