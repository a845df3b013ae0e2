"""Progress where people look, and Ctrl-C that keeps every finished record."""

from __future__ import annotations

import io
import json
import signal
import subprocess
import sys
import time

import pytest

from readout_audit import read_run
from readout_audit.kind import Job, _runner
from readout_audit.model import PositionRequest
from readout_audit.model._executor import LocalExecutor, ordered_jobs
from readout_audit.progress import LineReporter, progress_mode

pytestmark = pytest.mark.cost(20)


def test_plain_lines_say_done_total_rate_and_eta(monkeypatch):
    clock = iter([0.0, 4.0, 4.0, 12.0, 15.0, 15.0, 16.0, 16.0])  # start, each advance (+ line)
    monkeypatch.setattr("readout_audit.progress._progress.time.monotonic", lambda: next(clock))
    stream = io.StringIO()
    reporter = LineReporter(4, stream, interval=10.0)
    reporter.advance()  # t=4: the first record (warm-up included), at once
    reporter.advance()  # t=12: within the interval, silent
    reporter.advance()  # t=15: 11 s since the last line
    reporter.note("estimate: a line as it is")
    reporter.advance()  # t=16: complete
    lines = stream.getvalue().splitlines()
    # no ETA from the first record alone: it carries the warm-up (4 s here)
    assert lines[0] == "scoring: 1/4 (25%), 0.25 items/s, ETA estimating, elapsed 0m04s"
    # then the pace since the first record: 2 records in 11 s, 1 left -> 5.5 s, not 15/3 = 5
    assert lines[1] == "scoring: 3/4 (75%), 0.20 items/s, ETA 0m06s, elapsed 0m15s"
    assert lines[2] == "scoring: estimate: a line as it is"
    assert lines[3] == "scoring: 4/4 (100%), 0.25 items/s, ETA 0m00s, elapsed 0m16s"
    assert len(lines) == 4
    assert progress_mode(False) == "off"
    assert progress_mode(None, io.StringIO()) == "lines"  # not a terminal


def _jobs(contexts: list[int]) -> list[Job]:
    """One job per context length, each context its own (so none is shared)."""
    return [
        Job((str(i),), PositionRequest(context=[i + 1] * n, greedy_tokens=0), None)
        for i, n in enumerate(contexts)
    ]


class _Clocked(LocalExecutor):
    """A local executor whose batches take the seconds given (the first context: warm-up)."""

    def __init__(self, clock: list[float], seconds: list[float]) -> None:
        super().__init__(None, batch_size=2)  # type: ignore[arg-type]
        self.clock, self.seconds = clock, seconds

    def run(self, jobs):
        ordered = ordered_jobs(jobs)
        batches = [ordered[:1], *(ordered[i : i + 2] for i in range(1, len(ordered), 2))]
        for batch, seconds in zip(batches, self.seconds, strict=True):
            self.clock[0] += seconds
            yield from ((job, None) for job in batch)


def test_the_estimate_is_never_the_first_positions_pace(monkeypatch):
    clock = [0.0]
    monkeypatch.setattr(_runner.time, "perf_counter", lambda: clock[0])
    jobs = _jobs([100] * 7)  # the first context, then batches of 2: 2, 2, 2
    notes: list[str] = []
    reporter = type(
        "R", (), {"advance": lambda self: None, "note": lambda self, n: notes.append(n)}
    )
    # the first position takes 30 s (warm-up); each batch after it 1.5 s
    executor = _Clocked(clock, [30.0, 1.5, 1.5, 1.5])
    assert len(list(_runner._calibrated(executor, jobs, reporter()))) == 7
    assert notes[0] == (
        "estimate: 7 positions, 700 tokens to read, 0 greedy tokens to write; "
        "the time follows once the pace after the first position is measured"
    )
    # at 2 s past the first position (two batches, 3 s): 4 positions in 3 s, 2 left -> 1.5 s,
    # not 6 x 30 s = 3 min at the first position's pace
    assert notes[1:] == [
        "estimate: about 0m02s left for 2 positions, at the pace of positions 2-5 (3.0 s)"
    ]


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
