"""A lock never follows a link, never truncates what it did not write, and reads a few bytes.

Every hostile lock is made here: a symbolic link to a user's file, a hard link to it, a FIFO, a
file of other data and a forged 300 MB one; the user's file is checked byte-identical after.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from hostile import first_writer, refused, snapshot, user_files

from readout_audit import RunDirectoryError
from readout_audit._cli import main
from readout_audit._util import RunLock, lock_holder, refuse_if_written
from readout_audit.log import Manifest

pytestmark = pytest.mark.usefixtures("no_model_loads")
"""Every refusal here comes before a model loads."""
ROOT = Path(__file__).resolve().parents[2]
ITEMS = ROOT / "examples" / "items.jsonl"
TEX = ROOT / "tests" / "fixtures" / "tex"
BUILD = ["judge", "build", "--study", "reference-switch", "--items", "4"]
BUILD += ["--configuration", "a=FINAL3@smollm2-135m"]


def _hostile_locks(tmp_path: Path) -> dict[str, tuple[str, object]]:
    """How each hostile lock is made at a path, and what its refusal says it is."""
    victim = tmp_path / "mine" / "victim.txt"

    def symlink(path: Path) -> None:
        path.symlink_to(os.path.relpath(victim, path.parent))

    def hard_link(path: Path) -> None:
        os.link(victim, path)

    def fifo(path: Path) -> None:
        os.mkfifo(path)

    def other_data(path: Path) -> None:
        path.write_text("precious\n")

    def forged(path: Path) -> None:
        with path.open("wb") as handle:  # sparse: 300 MB on paper, nothing on disk
            handle.truncate(300_000_000)

    return {
        "symlink": ("a symbolic link", symlink),
        "hard link": ("a hard link", hard_link),
        "fifo": ("a FIFO", fifo),
        "other data": ("'precious', not a process id", other_data),
        "forged": ("300,000,000 bytes, not a process id", forged),
    }


HOSTILE = ["symlink", "hard link", "fifo", "other data", "forged"]


def _user(tmp_path: Path) -> Path:
    folder = user_files(tmp_path / "mine")
    (folder / "victim.txt").write_text("precious\n")
    return folder


@pytest.mark.parametrize("kind", HOSTILE)
def test_a_run_directory_lock_that_is_no_lock_file_is_refused_untouched(tmp_path, kind):
    mine = _user(tmp_path)
    out = tmp_path / "runs" / "x"
    out.mkdir(parents=True)
    what, make = _hostile_locks(tmp_path)[kind]
    make(out / ".lock")
    before, lock_before = snapshot(mine), snapshot(out)
    for args in ([*BUILD, "--out", out], ["score", "--items", ITEMS, "--out", out]):
        error = refused(args, str(out / ".lock"), what)
        assert "left as it is (never followed, written or truncated)" in error
    assert snapshot(mine) == before and snapshot(out) == lock_before


@pytest.mark.parametrize("kind", HOSTILE)
def test_a_cut_file_lock_that_is_no_lock_file_is_refused_untouched(tmp_path, kind):
    mine = _user(tmp_path)
    what, make = _hostile_locks(tmp_path)[kind]
    make(tmp_path / "cuts.jsonl.lock")
    before = snapshot(mine)
    out = tmp_path / "cuts.jsonl"
    refused(["lift", "cut", TEX, "--min-cuts", "1", "--out", out], "cuts.jsonl.lock", what)
    assert snapshot(mine) == before
    assert not out.exists() and not (tmp_path / "cuts.jsonl.manifest.json").exists()


def test_reading_whether_a_stage_is_written_never_opens_a_hostile_lock(tmp_path):
    _user(tmp_path)
    for kind, (what, make) in _hostile_locks(tmp_path).items():
        folder = tmp_path / kind.replace(" ", "-")
        folder.mkdir()
        make(folder / ".lock")
        with pytest.raises(RunDirectoryError, match=what):
            lock_holder(folder)
    assert (tmp_path / "mine" / "victim.txt").read_text() == "precious\n"


def test_a_lock_file_holding_a_process_id_is_taken_and_rewritten(tmp_path):
    (tmp_path / ".lock").write_text("123456")  # left by an earlier writer, now gone
    lock = RunLock(tmp_path)
    lock.acquire()
    try:
        assert (tmp_path / ".lock").read_text() == str(os.getpid())
        assert lock_holder(tmp_path) == str(os.getpid())
        refuse_if_written(tmp_path, "a stage")  # this process's own lock: not another writer
    finally:
        lock.release()
    assert lock_holder(tmp_path) is None


def test_a_report_of_a_run_with_a_forged_lock_names_it_in_one_line(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    manifest = Manifest(kind="score", model={"spec": "smollm2-135m"}, config={})
    (out / "manifest.json").write_text(manifest.model_dump_json())
    (out / "records.jsonl").write_text("")
    with (out / ".lock").open("wb") as handle:
        handle.truncate(300_000_000)
    error = refused(["report", out], str(out / ".lock"), "300,000,000 bytes")
    assert len(error) < 400


def test_a_second_writer_into_a_new_folder_is_refused_before_its_model_loads(tmp_path):
    out = tmp_path / "new" / "run"
    with first_writer(out, "run-directory") as pid:  # the first made the folder and is loading
        refused(["score", "--items", ITEMS, "--out", out], str(out), f"by process {pid}")
        assert os.listdir(out) == [".lock"]


def test_an_inventory_another_process_writes_is_not_read(tmp_path):
    inventory = tmp_path / "inventory"
    result = CliRunner().invoke(main, [str(a) for a in [*BUILD, "--out", inventory]])
    assert result.exit_code == 0, result.output
    repeat = ["judge", "build", "--study", "repeat", "--from-inventory", inventory]
    repeat += ["--configuration", "a=FINAL3@smollm2-135m", "--out", tmp_path / "repeat"]
    halueval = ROOT / "tests" / "fixtures" / "judge" / "halueval_qa_rows.jsonl"
    pilot = ["judge", "build", "--study", "formatting-pilot", "--halueval", halueval]
    pilot += ["--per-dataset", "3", "--configuration", "jev=FINAL3@smollm2-135m"]
    pilot += ["--exclude", inventory, "--out", tmp_path / "pilot"]
    with first_writer(inventory, "lock") as pid:
        for args in (repeat, pilot):
            refused(args, str(inventory), f"being written by process {pid}")
    assert not (tmp_path / "repeat").exists() and not (tmp_path / "pilot").exists()
