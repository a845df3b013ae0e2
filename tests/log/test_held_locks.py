"""Locks taken ahead of a writer (before a model loads) and around an inventory's build."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys

import pytest

from readout_audit import RunDirectoryError
from readout_audit._util._lock import hold, locked_directory, release_held
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


def test_a_held_directory_refuses_other_writers_until_its_run_takes_the_lock_over(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    hold(out)
    try:
        assert _other_process_finds(out) == (
            f"{out} is being written by process {os.getpid()}; wait for it to finish or "
            "choose another output directory"
        )
        run = RunDirectory(out, SCORE)  # this process's writer takes the held lock over
        with pytest.raises(RunDirectoryError, match="being written"):
            RunDirectory(out, SCORE)  # and it is still one writer at a time
        run.close()
        assert _other_process_finds(out) == "free"
    finally:
        release_held()


def test_release_held_lets_go_of_a_lock_no_writer_took(tmp_path):
    hold(tmp_path)
    release_held()
    with locked_directory(tmp_path):
        pass  # free again, in this process as in any other


def test_a_directory_made_for_a_failed_block_is_removed_and_an_existing_one_kept(tmp_path):
    fresh = tmp_path / "a" / "b" / "inventory"
    with pytest.raises(ValueError, match="build failed"), locked_directory(fresh):
        assert (fresh / ".lock").is_file()
        raise ValueError("build failed")
    assert sorted(tmp_path.iterdir()) == []
    existing = tmp_path / "kept"
    existing.mkdir()
    (existing / "mine.txt").write_text("mine")
    with pytest.raises(ValueError), locked_directory(existing):
        raise ValueError("build failed")
    assert sorted(p.name for p in existing.iterdir()) == [".lock", "mine.txt"]


def test_a_locked_directory_is_refused_to_a_second_block(tmp_path):
    out = tmp_path / "inventory"
    with locked_directory(out):
        assert _other_process_finds(out).startswith(f"{out} is being written by process")
        with pytest.raises(RunDirectoryError, match="being written"), locked_directory(out):
            pass
        assert (out / ".lock").is_file()  # the refused block did not remove the holder's lock
    assert _other_process_finds(out) == "free"


def test_a_holder_that_has_not_written_its_id_yet_reads_as_such(tmp_path):
    with (tmp_path / ".lock").open("a+") as handle:  # locked, its id not yet written
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        assert _other_process_finds(tmp_path) == (
            f"{tmp_path} is being written by process (its id not yet written); wait for it to "
            "finish or choose another output directory"
        )
