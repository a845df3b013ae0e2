"""Progress where people look, and Ctrl-C that keeps every finished record."""

from __future__ import annotations

import io
import json
import signal
import subprocess
import sys
import time

import pytest

from readout_audit import Job, PositionRequest, read_run
from readout_audit.kind._runner import estimate
from readout_audit.progress import LineReporter, progress_mode

pytestmark = pytest.mark.cost(20)


def test_plain_lines_say_done_total_rate_and_eta(monkeypatch):
    clock = iter([0.0, 4.0, 4.0, 12.0, 15.0, 15.0, 16.0, 16.0])  # start, each advance (+ line)
    monkeypatch.setattr("readout_audit.progress._progress.time.monotonic", lambda: next(clock))
    stream = io.StringIO()
    reporter = LineReporter(4, stream, interval=10.0)
    reporter.advance()  # t=4: the first record, at once
    reporter.advance()  # t=12: within the interval, silent
    reporter.advance()  # t=15: 11 s since the last line
    reporter.note("estimate: a line as it is")
    reporter.advance()  # t=16: complete
    lines = stream.getvalue().splitlines()
    assert lines[0] == "scoring: 1/4 (25%), 0.25 items/s, ETA 0m12s, elapsed 0m04s"
    assert lines[1] == "scoring: 3/4 (75%), 0.20 items/s, ETA 0m05s, elapsed 0m15s"
    assert lines[2] == "scoring: estimate: a line as it is"
    assert lines[3] == "scoring: 4/4 (100%), 0.25 items/s, ETA 0m00s, elapsed 0m16s"
    assert len(lines) == 4
    assert progress_mode(False) == "off"
    assert progress_mode(None, io.StringIO()) == "lines"  # not a terminal


def test_the_estimate_extrapolates_the_first_positions_time_per_token():
    jobs = [
        Job(("a",), PositionRequest(context=[1] * 90, continuations=[[2] * 5, [3] * 5]), None),
        Job(("b",), PositionRequest(context=[1] * 190, greedy_tokens=10), None),
        Job(("c",), PositionRequest(context=[1] * 300), None),
    ]
    # 100 tokens in 2 s: 600 tokens (590 read, 10 written) take 12 s
    line = estimate(jobs, 1, 2.0)
    assert line.startswith("estimate: 3 positions, 590 tokens to read, 10 greedy tokens to write;")
    assert "about 0m12s at the first position's pace (2.0 s;" in line


def write_items(path, n):
    rows = [
        {"id": f"i{i}", "prompt": f"Item {i}: two plus {i} is", "options": [" four", " five"]}
        for i in range(n)
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))


def _interruptible() -> None:
    """Give the child Ctrl-C as a terminal would: a test process may have SIGINT ignored or
    blocked (libraries' threads), and a child inherits both across exec."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGINT, signal.SIG_DFL)


N_ITEMS = 40
"""Enough items that the run is still scoring when the interrupt arrives, however fast it is."""


@pytest.mark.model
def test_piped_run_prints_progress_lines_and_ctrl_c_exits_130_with_a_hint(tmp_path):
    items, out = tmp_path / "items.jsonl", tmp_path / "run"
    write_items(items, N_ITEMS)
    command = [sys.executable, "-m", "readout_audit", "score", "--items", str(items)]
    command += ["--out", str(out), "--batch-size", "1", "--greedy-tokens", "4"]
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_interruptible,
    )
    records = out / "records.jsonl"
    deadline = time.monotonic() + 240
    while not (records.exists() and records.read_bytes().count(b"\n") >= 2):
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr
    assert "loading smollm2-135m" in stderr and f"scoring: {N_ITEMS} records to write" in stderr
    assert "planning: rendering the prompts" in stderr
    assert f"scoring: 1/{N_ITEMS} (" in stderr  # the first record at once, not after a batch
    assert f"scoring: estimate: {N_ITEMS} positions, " in stderr
    assert "interrupted: every finished record is on disk; rerun the same command" in stderr
    assert "Traceback" not in stderr
    kept = read_run(out)
    assert kept.state == "unfinished" and 2 <= len(kept.records) < N_ITEMS

    resumed = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    left = N_ITEMS - len(kept.records)
    assert f"scoring: {left} records to write" in resumed.stderr
    assert f"scoring: {left}/{left} (100%)" in resumed.stderr
    assert len(read_run(out).records) == N_ITEMS
