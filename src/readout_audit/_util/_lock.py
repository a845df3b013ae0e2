"""An exclusive lock on a run directory or an output file: one writing process at a time.

A lock file is the project's own: a regular file with one link, holding nothing but a process
id. Anything else found where a lock belongs (a symbolic link, a hard link, a FIFO, a device, a
file holding other data) is refused, never opened for writing, followed or truncated, and at
most a few bytes of a holder's id are ever read.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
from pathlib import Path

from readout_audit._exceptions import RunDirectoryError

LOCK = ".lock"
UNNAMED = "(its id not yet written)"
"""What stands for a holder's process id in the moment before it writes it to the lock file."""
HOLDER_BYTES = 20
"""The most bytes of a lock file ever read: a process id has at most 19 digits."""

_KINDS = {
    stat.S_ISLNK: "a symbolic link",
    stat.S_ISDIR: "a folder",
    stat.S_ISFIFO: "a FIFO",
    stat.S_ISCHR: "a character device",
    stat.S_ISBLK: "a block device",
    stat.S_ISSOCK: "a socket",
}


def lock_path(target: Path, *, beside: bool = False) -> Path:
    """The lock of a run directory (``DIR/.lock``) or, ``beside``, of a file (``FILE.lock``)."""
    return target.with_name(target.name + LOCK) if beside else target / LOCK


def _not_a_lock(path: Path, info: os.stat_result) -> str | None:
    """Why the entry at ``path`` (its ``lstat``) is no lock file of ours, or None."""
    kind = next((name for test, name in _KINDS.items() if test(info.st_mode)), None)
    if kind is not None:
        return f"{path} is {kind}, not a lock file"
    if info.st_nlink > 1:
        return f"{path} is a hard link to another file, not a lock file"
    if info.st_size > HOLDER_BYTES:
        return f"{path} holds {info.st_size:,} bytes, not a process id: it is no lock file"
    return None


def _refuse(problem: str) -> RunDirectoryError:
    return RunDirectoryError(
        f"{problem}; it is left as it is (never followed, written or truncated): remove it, "
        "or choose another output"
    )


def _open(path: Path, flags: int) -> int | None:
    """``path`` opened without following a link or blocking, checked to be a lock file.

    None when it does not exist and ``flags`` do not create it; a refusal names what it is.
    """
    try:
        before = os.lstat(path)
    except FileNotFoundError:
        before = None
    except OSError as error:
        raise RunDirectoryError(f"{path} cannot be read ({error.strerror})") from None
    if before is not None and (problem := _not_a_lock(path, before)) is not None:
        raise _refuse(problem)
    try:
        handle = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o666)
    except FileNotFoundError:
        if flags & os.O_CREAT:
            raise
        return None
    except OSError as error:
        if error.errno == errno.ELOOP:  # a link put there since the look above
            raise _refuse(f"{path} is a symbolic link, not a lock file") from None
        raise RunDirectoryError(f"{path} cannot be opened ({error.strerror})") from None
    problem = _not_a_lock(path, os.fstat(handle))
    if problem is None and (content := _read(handle)) and not _is_id(content):
        problem = f"{path} holds {content[:HOLDER_BYTES]!r}, not a process id: it is no lock file"
    if problem is not None:
        os.close(handle)
        raise _refuse(problem)
    return handle


def _read(handle: int) -> str:
    """The first few bytes of an open lock file, as text (undecodable bytes escaped)."""
    return os.pread(handle, HOLDER_BYTES + 1, 0).decode("ascii", "backslashreplace").strip()


def _is_id(text: str) -> bool:
    """Whether ``text`` is a process id as this module writes one (ASCII digits only)."""
    return text.isascii() and text.isdigit()


def _holder(handle: int) -> str:
    """The process id a held lock file names, or :data:`UNNAMED` while none is written."""
    content = _read(handle)
    return content if _is_id(content) else UNNAMED


class RunLock:
    """Holds ``RUN/.lock`` (or ``FILE.lock``) with ``flock`` until released or the process ends.

    The kernel drops the lock with the process, even on a kill, so none is ever stale; the
    file keeps the holder's process id for the message a second writer gets.
    """

    def __init__(self, target: Path, *, beside: bool = False) -> None:
        """Lock a run directory (``DIR/.lock``) or, ``beside``, one output file (``FILE.lock``)."""
        self.target = target
        self.path = lock_path(target, beside=beside)
        self._beside = beside
        self._handle: int | None = None

    def acquire(self) -> None:
        """Take the lock at once, else raise naming its holder."""
        handle = _open(self.path, os.O_RDWR | os.O_CREAT)
        assert handle is not None
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(handle)
            os.close(handle)
            raise self._taken(holder) from None
        os.ftruncate(handle, 0)  # a process id or nothing, as :func:`_open` checked
        os.pwrite(handle, str(os.getpid()).encode("ascii"), 0)
        self._handle = handle

    def probe(self) -> None:
        """Refuse at once, naming the holder, while another process writes the target.

        The one check before a slow step (loading a model) for a writer that locks only
        after it: nothing is made or taken, so a refused command leaves no trace.
        """
        holder = lock_holder(self.target, beside=self._beside)
        if holder is not None:
            raise self._taken(holder)

    def _taken(self, holder: str) -> RunDirectoryError:
        output = "file" if self._beside else "directory"
        return RunDirectoryError(
            f"{self.target} is being written by process {holder}; wait for it to finish or "
            f"choose another output {output}"
        )

    def release(self) -> None:
        """Release the lock (idempotent)."""
        if self._handle is not None:
            fcntl.flock(self._handle, fcntl.LOCK_UN)
            os.close(self._handle)
            self._handle = None


def remove_empty(made: list[Path]) -> None:
    """Remove the folders in ``made`` (outermost first) that hold nothing but a lock file."""
    for folder in reversed(made):
        try:
            if os.listdir(folder) == [LOCK]:
                (folder / LOCK).unlink()
            folder.rmdir()
        except OSError:
            break  # it holds something after all: keep it and its parents


def make_folders(directory: Path) -> list[Path]:
    """Make ``directory`` and its missing parents; those this process made, outermost first."""
    made = []
    for folder in (*reversed(directory.parents), directory):
        if folder.exists():
            continue
        try:
            folder.mkdir()
        except FileExistsError:  # another process made it meanwhile: not ours to remove
            continue
        made.append(folder)
    return made


def lock_holder(target: Path, *, beside: bool = False) -> str | None:
    """The process id holding ``DIR/.lock`` (``beside``: ``FILE.lock``) now, or None.

    Probes with a shared lock taken and dropped at once; a missing lock file means no writer.
    An entry that is no lock file (a link, a FIFO, a file of other data) is refused by name.
    """
    handle = _open(lock_path(target, beside=beside), os.O_RDONLY)
    if handle is None:
        return None
    try:
        fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return _holder(handle)
    finally:
        os.close(handle)
    return None


def refuse_if_written(target: Path, what: str, *, beside: bool = False) -> None:
    """Refuse to read ``target`` as an input while another process writes it (half written).

    This process's own lock does not count: a writer may read back what it holds.
    """
    holder = lock_holder(target, beside=beside)
    if holder is not None and holder != str(os.getpid()):
        raise RunDirectoryError(
            f"{target} is {what} being written by process {holder}; wait for it to finish"
        )
