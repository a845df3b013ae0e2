"""What every hostile-input test checks: one error line naming the input, no traceback, and a
folder of the user's own files (regular files, a folder, a FIFO, a device node) unchanged."""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from click.testing import CliRunner

from readout_audit._cli import main


def snapshot(directory: Path) -> dict[str, str]:
    """Every entry under ``directory`` with what identifies it: a regular file's SHA-256 and
    mode, a folder's mode, a link's target, a FIFO's or a device's kind, mode and device number;
    nothing but a regular file is opened, so a FIFO or ``/dev/zero``-like node is never read."""
    found = {}
    for path in sorted(directory.rglob("*")):
        info = os.lstat(path)
        mode = stat.S_IMODE(info.st_mode)
        if stat.S_ISREG(info.st_mode):
            value = f"file {mode:o} {hashlib.sha256(path.read_bytes()).hexdigest()}"
        elif stat.S_ISLNK(info.st_mode):
            value = f"link {os.readlink(path)}"
        elif stat.S_ISDIR(info.st_mode):
            value = f"folder {mode:o}"
        else:
            value = f"special {stat.S_IFMT(info.st_mode):o} {mode:o} {info.st_rdev}"
        found[str(path.relative_to(directory))] = value
    return found


def user_files(folder: Path) -> Path:
    """``folder`` filled with a user's own files: text, a nested folder, a FIFO and, where this
    process may make one, a character device node (the null device's numbers)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "thesis.tex").write_text("\\documentclass{article}\n% mine\n")
    (folder / "my_notes.txt").write_text("do not lose me\n")
    (folder / "data").mkdir(exist_ok=True)
    (folder / "data" / "model.bin").write_bytes(bytes(range(256)) * 4)
    os.mkfifo(folder / "pipe")
    with contextlib.suppress(OSError):  # not permitted without CAP_MKNOD: the FIFO stands in
        os.mknod(folder / "null", 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    return folder


def refused(args: list[object], *names: str) -> str:
    """Run the command; it must fail with one ``Error:`` line (no traceback) naming ``names``."""
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code in (1, 2), result.output
    errors = [line for line in result.output.splitlines() if line.startswith("Error")]
    assert len(errors) == 1 and "Traceback" not in result.output, result.output
    for name in names:
        assert name in errors[0], (name, errors[0])
    return errors[0]


HOLD = """
import sys, time
from pathlib import Path
from readout_audit._util import RunLock
from readout_audit.log import RunDirectory
from readout_audit.scoring import SCORE
if sys.argv[2] == "run-directory":
    RunDirectory(Path(sys.argv[1]), SCORE)  # opened by run_stage: a first writer, now loading
elif sys.argv[2] == "lock-beside":
    RunLock(Path(sys.argv[1]), beside=True).acquire()  # a stage file's writer, loading
else:
    RunLock(Path(sys.argv[1])).acquire()  # a first build, now building
print("held", flush=True)
time.sleep(60)
"""


@contextlib.contextmanager
def first_writer(folder: Path, how: str) -> Iterator[int]:
    """Another process holding ``folder`` as a first writer does.

    ``run-directory``: one loading its model; ``lock-beside``: a stage file's writer,
    ``folder`` its file; else a build holding the lock. Yields its process id, kills it after.
    """
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(folder), how], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        yield holder.pid
    finally:
        holder.kill()
        holder.wait(timeout=30)
