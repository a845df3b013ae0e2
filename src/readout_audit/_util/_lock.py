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
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from readout_audit._exceptions import RunDirectoryError

LOCK = ".lock"
UNNAMED = "(its id not yet written)"
"""What stands for a holder's process id in the moment before it writes it to the lock file."""
HOLDER_BYTES = 20
"""The most bytes of a lock file ever read: a process id has at most 19 digits."""

_HELD: dict[str, int] = {}
"""Locks this process took ahead of its writer (see :func:`hold`), by lock file, open."""
_MADE: list[Path] = []
"""The folders :func:`hold` made for its locks, outermost first."""
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
        self._output = "file" if beside else "directory"
        self._handle: int | None = None

    def acquire(self) -> None:
        """Take the lock at once (or the one :func:`hold` kept), else raise naming its holder."""
        held = _HELD.pop(os.path.realpath(self.path), None)
        if held is not None:
            self._handle = held
            return
        handle = _open(self.path, os.O_RDWR | os.O_CREAT)
        assert handle is not None
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(handle)
            os.close(handle)
            raise RunDirectoryError(
                f"{self.target} is being written by process {holder}; wait for it to "
                f"finish or choose another output {self._output}"
            ) from None
        os.ftruncate(handle, 0)  # a process id or nothing, as :func:`_open` checked
        os.pwrite(handle, str(os.getpid()).encode("ascii"), 0)
        self._handle = handle

    def release(self) -> None:
        """Release the lock (idempotent)."""
        if self._handle is not None:
            fcntl.flock(self._handle, fcntl.LOCK_UN)
            os.close(self._handle)
            self._handle = None

    def take_over(self) -> int:
        """Hand the open lock file to :func:`hold`'s table (the lock stays taken)."""
        handle, self._handle = self._handle, None
        assert handle is not None
        return handle


def hold(directory: Path) -> None:
    """Take ``DIR/.lock`` now, making ``DIR`` if needed, and keep it for this process's writer.

    For a command to call before a slow step (loading a model): a second writer is refused
    at once instead of after its own load, whether or not ``DIR`` existed. :func:`release_held`
    lets go of what no writer took over, and removes the folders made here that hold nothing.
    """
    lock = RunLock(directory)
    key = os.path.realpath(lock.path)
    if key in _HELD:
        return
    made = _make_directory(directory)
    try:
        lock.acquire()
    except BaseException:
        _remove_empty(made)
        raise
    _MADE.extend(made)
    _HELD[key] = lock.take_over()


def release_held() -> None:
    """Release every lock :func:`hold` took that no writer took over (at a command's end).

    A folder :func:`hold` made is removed again when it holds nothing but its lock: a refused
    command leaves no trace.
    """
    while _HELD:
        _, handle = _HELD.popitem()
        fcntl.flock(handle, fcntl.LOCK_UN)
        os.close(handle)
    made, _MADE[:] = list(_MADE), []
    _remove_empty(made)


def _remove_empty(made: list[Path]) -> None:
    """Remove the folders in ``made`` (outermost first) that hold nothing but a lock file."""
    for folder in reversed(made):
        try:
            if os.listdir(folder) == [LOCK]:
                (folder / LOCK).unlink()
            folder.rmdir()
        except OSError:
            break  # it holds something after all: keep it and its parents


def _make_directory(directory: Path) -> list[Path]:
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


@contextmanager
def locked_directory(directory: Path) -> Iterator[None]:
    """Hold ``DIR/.lock`` for a block, making the directory if needed.

    A directory made here is removed again when the block fails (if it holds nothing but
    the lock file), so a refused command leaves no trace; an existing one keeps its files.
    """
    made = _make_directory(directory)
    lock = RunLock(directory)
    try:
        lock.acquire()
    except BaseException:
        _remove_empty(made)
        raise
    try:
        yield
    except BaseException:
        lock.release()
        _remove_empty(made)
        raise
    finally:
        lock.release()


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
