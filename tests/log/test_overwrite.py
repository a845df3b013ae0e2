"""``overwrite=True`` deletes what a run wrote, from a run's folder alone; the user's files stay."""

from __future__ import annotations

import os

import pytest
from hostile import snapshot, user_files

from readout_audit import RunDirectoryError
from readout_audit.log import Manifest, RunDirectory
from readout_audit.scoring import SCORE


def _manifest(kind: str) -> str:
    return Manifest(kind=kind, model={"spec": "smollm2-135m"}, config={}).model_dump_json()


def _not_a_run_manifest(path):
    """The entries named ``manifest.json`` a user may have that are no run's manifest."""
    return {
        "extension": lambda: path.write_text('{"manifest_version": 3, "name": "my extension"}'),
        "text": lambda: path.write_text("not json at all"),
        "folder": lambda: (path.mkdir(), (path / "icon.png").write_bytes(b"\x89PNG")),
        "fifo": lambda: os.mkfifo(path),
    }


def _open(folder, overwrite: bool) -> None:
    """Open ``folder``'s run directory and, with ``overwrite``, delete the run held there."""
    with RunDirectory(folder, SCORE) as directory:
        if overwrite:
            directory.clear()


@pytest.mark.parametrize("what", ["extension", "text", "folder", "fifo"])
@pytest.mark.parametrize("overwrite", [True, False])
def test_a_folder_whose_manifest_is_no_runs_is_refused_untouched(tmp_path, what, overwrite):
    folder = user_files(tmp_path / "project")
    _not_a_run_manifest(folder / "manifest.json")[what]()
    before = snapshot(folder)
    with pytest.raises(RunDirectoryError) as caught:
        _open(folder, overwrite)
    message = str(caught.value)
    assert str(folder / "manifest.json") in message and "is no run directory" in message
    assert "\n" not in message
    assert snapshot(folder) == before  # not emptied, not even a lock file added


# what each kind's run writes, beside the manifest: the files every run may write and its own
RUN_FILES = [
    "records.jsonl",
    "summary.json",
    "artifacts/diagnostic.json",
    "requests.sqlite",
    "requests.sqlite-wal",
    "requests.sqlite-shm",
]
OWN_FILES = {"score": [], "options": ["reader.jsonl"], "recover": ["hidden.f32"]}


@pytest.mark.parametrize("kind", sorted(OWN_FILES))
def test_overwrite_deletes_the_runs_files_and_keeps_the_users(tmp_path, kind):
    folder = user_files(tmp_path / "run")
    (folder / "figures").mkdir()
    (folder / "figures" / "plot.png").write_bytes(b"\x89PNG mine")
    (folder / "artifacts").mkdir()
    (folder / "artifacts" / "my_table.csv").write_text("a,b\n")  # the user's, in artifacts/
    # another kind's file name is the user's here: this kind's run did not write it
    foreign = [n for k, names in OWN_FILES.items() if k != kind for n in names]
    for name in foreign:
        (folder / name).write_text("mine\n")
    users = snapshot(folder)
    (folder / "manifest.json").write_text(_manifest(kind))
    for name in [*RUN_FILES, *OWN_FILES[kind]]:
        (folder / name).write_text(f"written by the run: {name}\n")

    _open(folder, True)

    after = snapshot(folder)
    assert after.pop(".lock").startswith("file ")
    assert after == users  # every file the run wrote is gone, every one of the user's is intact


def test_overwrite_removes_the_artifacts_folder_it_emptied(tmp_path):
    folder = tmp_path / "run"
    (folder / "artifacts").mkdir(parents=True)
    (folder / "manifest.json").write_text(_manifest("score"))
    (folder / "artifacts" / "diagnostic.json").write_text("{}")
    _open(folder, True)
    assert sorted(p.name for p in folder.iterdir()) == [".lock"]


@pytest.mark.parametrize("what", ["folder", "fifo", "link"])
def test_a_non_file_where_a_run_file_should_be_stops_the_overwrite_first(tmp_path, what):
    folder = user_files(tmp_path / "run")
    (folder / "manifest.json").write_text(_manifest("score"))
    (folder / "records.jsonl").write_text("{}\n")
    summary = folder / "summary.json"  # the user's, under a name a run writes
    if what == "folder":
        summary.mkdir()
        (summary / "draft.txt").write_text("mine\n")
    elif what == "fifo":
        os.mkfifo(summary)
    else:
        summary.symlink_to(folder / "thesis.tex")
    before = snapshot(folder)
    with pytest.raises(RunDirectoryError) as caught:
        _open(folder, True)
    assert str(caught.value) == (
        f"{summary} is not a regular file, so not one the run wrote: nothing was deleted; "
        "move it away to overwrite the run"
    )
    after = snapshot(folder)
    after.pop(".lock")
    assert after == before
    RunDirectory(folder, SCORE).close()  # the refused writer released its lock


def test_overwrite_of_a_folder_without_a_manifest_deletes_nothing(tmp_path):
    folder = user_files(tmp_path / "project")
    (folder / "records.jsonl").write_text("my own records\n")
    before = snapshot(folder)
    _open(folder, True)
    after = snapshot(folder)
    after.pop(".lock")
    assert after == before
