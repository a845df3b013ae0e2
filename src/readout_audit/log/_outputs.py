"""Files a command writes where the user says: never inside a run directory or over an input.

A run directory's files (manifest, records, summary, artifacts, a served run's request ledger, a
plug-in kind's own files) belong to the run's writers alone, so no report, comparison or other
output lands among them, whatever its name. An existing regular file is replaced only when
forced; a device, a FIFO or a link never is.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path

from readout_audit._exceptions import InputError, RunDirectoryError
from readout_audit.log._run import MANIFEST, read_manifest


def _real(path: Path) -> Path:
    """``path`` with its symbolic links followed; a loop stays as written (no ``RuntimeError``)."""
    return Path(os.path.realpath(path))


def _is_run(directory: Path) -> bool:
    """Whether ``directory`` holds a run manifest (a web extension's ``manifest.json`` is not)."""
    if not (directory / MANIFEST).is_file():
        return False
    try:
        read_manifest(directory)
    except (RunDirectoryError, OSError, ValueError):
        return False
    return True


def _enclosing_run(path: Path) -> Path | None:
    """The nearest directory above ``path`` holding a run's manifest, if any."""
    return next((d for d in _real(path).parents if _is_run(d)), None)


def unwritable(path: Path) -> str | None:
    """Why ``path`` (a file or a directory, existing or to be made) cannot be written, or None.

    The nearest existing folder is tried by creating a file in it and removing it again:
    permission bits do not tell (root passes them; a read-only mount or ``/sys`` does not).
    """
    existing = next(p for p in (path, *path.parents) if os.path.lexists(p))
    if existing != path and not existing.is_dir():
        return f"cannot be created: {existing} is a file"
    folder = existing if existing.is_dir() else existing.parent
    try:
        handle, name = tempfile.mkstemp(dir=folder, prefix=".readout-probe-")
    except OSError as error:
        return f"{folder} is not writable ({error.strerror})"
    os.close(handle)
    os.unlink(name)
    return None


def read_only_files(directory: Path) -> list[Path]:
    """The files directly in ``directory`` that cannot be opened for appending."""
    found = []
    for path in sorted(directory.iterdir()):
        if not path.is_file():
            continue
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_APPEND))
        except OSError:
            found.append(path)
    return found


def _refusal(path: Path, inputs: Iterable[Path], force: bool) -> str | None:
    """Why ``path`` may not be written, or None when it may."""
    if path.is_dir():
        return "is a directory; give a file name"
    run = _enclosing_run(path)
    if run is not None:
        return (
            f"is inside the run directory {run}, whose files only the run writes; "
            "choose a path outside it"
        )
    if any(_real(path) == _real(Path(given)) for given in inputs):
        return "is also an input of this command; choose another path"
    if os.path.lexists(path):
        special = _not_a_file(path)
        if special is not None:
            return f"is {special}, not a regular file: never replaced, even with --force"
        if not force:
            return "exists; pass --force to overwrite it"
    return unwritable(path)


def _not_a_file(path: Path) -> str | None:
    """What ``path`` is when it is not a regular file (a device, a FIFO, a link), else None."""
    mode = os.lstat(path).st_mode
    kinds = {
        stat.S_ISLNK: "a symbolic link",
        stat.S_ISCHR: "a character device",
        stat.S_ISBLK: "a block device",
        stat.S_ISFIFO: "a FIFO",
        stat.S_ISSOCK: "a socket",
    }
    return next((name for test, name in kinds.items() if test(mode)), None)


def check_output_path(
    path: Path, *, option: str, inputs: Iterable[Path] = (), force: bool = False
) -> None:
    """Refuse ``path`` as the output named by ``--option`` before anything is written.

    Refused: a directory, a path inside a run directory, one of the command's ``inputs``, an
    existing entry that is not a regular file (a device, a FIFO, a link: replacing one would
    swap ``/dev/null`` for a file) even with ``force``, and an existing file unless ``force``;
    the ``InputError`` names the path, the option and the reason.
    """
    reason = _refusal(path, inputs, force)
    if reason is not None:
        raise InputError(reason, source=str(path), field=option)
