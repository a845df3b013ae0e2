"""``readout conformance``'s files are a stage: one writer, one configuration, resumed after a kill.

The endpoints' checks are stand-ins (``conformance_writer.py``, run as its own process), so
what is tested is the stage alone: the lock, the manifest, which endpoints a rerun checks, and
the verdict written whole once every endpoint is kept.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from readout_audit import RunDirectoryError
from readout_audit.kind import ENDPOINTS_FILE, write_conformance
from readout_audit.model import CONFORMANCE_FILE, read_conformance

WRITER = Path(__file__).with_name("conformance_writer.py")
URLS = ["http://127.0.0.1:9001/v1", "http://127.0.0.1:9002/v1"]


def writer(out: Path, calls: Path, *args: str) -> subprocess.Popen[str]:
    command = [sys.executable, str(WRITER), str(out), str(calls), *args]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_until(condition, process: subprocess.Popen[str], limit: float = 60) -> None:
    deadline = time.monotonic() + limit
    while not condition():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the writer did not get there"
        time.sleep(0.05)


def lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def test_a_second_writer_is_refused_and_a_killed_check_resumes(tmp_path):
    out, calls = tmp_path / "conformance", tmp_path / "calls.txt"
    first = writer(out, calls, "pause")
    try:  # the first endpoint kept, the second one's check under way
        wait_until(lambda: len(lines(calls)) == 2 and len(lines(out / ENDPOINTS_FILE)) == 1, first)
        second = writer(out, tmp_path / "second.txt")
        _, err = second.communicate(timeout=60)
        assert second.returncode == 1 and f"is being written by process {first.pid}" in err
        assert lines(tmp_path / "second.txt") == []  # refused before checking anything
    finally:
        first.send_signal(signal.SIGKILL)
        first.communicate(timeout=60)
    assert not (out / CONFORMANCE_FILE).exists()  # no verdict from a check cut short

    resumed = writer(out, calls)
    _, err = resumed.communicate(timeout=60)
    assert resumed.returncode == 0, err
    assert lines(calls) == [URLS[0], URLS[1], URLS[1]]  # the kept endpoint is not checked again
    verdict = read_conformance(out / CONFORMANCE_FILE)
    assert [e.endpoint for e in verdict.endpoints] == URLS and verdict.conforms
    assert verdict.tolerance == 0.15  # Q8_0's bound
    manifest = json.loads((out / f"{ENDPOINTS_FILE}.manifest.json").read_text())
    assert manifest["kind"] == "conformance" and manifest["config"]["endpoints"] == URLS
    assert [i["finished"] is not None for i in manifest["invocations"]] == [False, True]

    other = writer(out, calls, "0.5")  # another tolerance is another configuration
    _, err = other.communicate(timeout=60)
    assert other.returncode == 1 and "tolerance: 0.15 -> 0.5" in err


def test_an_older_verdict_is_read_but_not_added_to(tmp_path):
    old = {
        "model": "m",
        "reference": "gguf:model.gguf",
        "reference_sha256": ["ab" * 32],
        "quantisation": None,
        "tolerance": 0.01,
        "endpoints": [],
    }
    (tmp_path / CONFORMANCE_FILE).write_text(json.dumps(old))
    assert read_conformance(tmp_path / CONFORMANCE_FILE).model == "m"
    with pytest.raises(RunDirectoryError, match="written without its manifest"):
        write_conformance([], None, tmp_path, quantisation=None)  # type: ignore[arg-type]
