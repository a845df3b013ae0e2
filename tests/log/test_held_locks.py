"""Locks taken ahead of a slow step: a run directory opened before its model loads, the probe."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys

import pytest

from readout_audit import RunDirectoryError
from readout_audit._util import RunLock
from readout_audit.log import RunDirectory
from readout_audit.scoring import SCORE

TRY = """
import sys
from pathlib import Path
from readout_audit._util._lock import RunLock
try:
    RunLock(Path(sys.argv[1])).acquire()
    print("free")
except Exception as error:
    print(error)
"""


def _other_process_finds(directory) -> str:
    """What another process gets when it tries to lock ``directory``."""
    done = subprocess.run(
        [sys.executable, "-c", TRY, str(directory)], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def test_an_open_run_directory_refuses_other_writers_until_it_closes(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    with RunDirectory(out, SCORE):  # opened before a model loads, as run_stage opens it
        assert _other_process_finds(out) == (
            f"{out} is being written by process {os.getpid()}; wait for it to finish or "
            "choose another output directory"
        )
        with pytest.raises(RunDirectoryError, match="being written"):
            RunDirectory(out, SCORE)  # one writer at a time, in this process too
        with pytest.raises(RunDirectoryError, match="being written"):
            RunLock(out).probe()  # the one probe of a writer that locks later
    assert _other_process_finds(out) == "free"


def test_a_directory_made_for_a_run_never_started_is_removed_and_an_existing_one_kept(tmp_path):
    fresh = tmp_path / "a" / "b" / "run"
    with pytest.raises(ValueError, match="load failed"), RunDirectory(fresh, SCORE):
        assert (fresh / ".lock").is_file()
        raise ValueError("load failed")
    assert sorted(tmp_path.iterdir()) == []
    existing = tmp_path / "kept"
    existing.mkdir()
    (existing / "mine.txt").write_text("mine")
    with pytest.raises(ValueError), RunDirectory(existing, SCORE):
        raise ValueError("load failed")
    assert sorted(p.name for p in existing.iterdir()) == [".lock", "mine.txt"]


def test_a_refused_second_writer_leaves_the_holders_folder_and_lock(tmp_path):
    out = tmp_path / "x" / "run"
    with RunDirectory(out, SCORE):
        with pytest.raises(RunDirectoryError, match="being written"), RunDirectory(out, SCORE):
            pass
        assert (out / ".lock").is_file()  # the refused writer removed nothing of the holder's
    assert not out.exists()  # the holder never started: it removed the folders it made


def test_a_probe_makes_nothing(tmp_path):
    RunLock(tmp_path / "new").probe()
    assert not (tmp_path / "new").exists()


def test_a_holder_that_has_not_written_its_id_yet_reads_as_such(tmp_path):
    with (tmp_path / ".lock").open("a+") as handle:  # locked, its id not yet written
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        assert _other_process_finds(tmp_path) == (
            f"{tmp_path} is being written by process (its id not yet written); wait for it to "
            "finish or choose another output directory"
        )
