"""An exclusive lock on a run directory or an output file: one writing process at a time."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from readout_audit._exceptions import RunDirectoryError

LOCK = ".lock"
UNNAMED = "(its id not yet written)"
"""What stands for a holder's process id in the moment before it writes it to the lock file."""

_HELD: dict[str, IO[str]] = {}
"""Locks this process took ahead of its writer (see :func:`hold`), by lock file, open."""


class RunLock:
    """Holds ``RUN/.lock`` (or ``FILE.lock``) with ``flock`` until released or the process ends.

    The kernel drops the lock with the process, even on a kill, so none is ever stale; the
    file keeps the holder's process id for the message a second writer gets.
    """

    def __init__(self, target: Path, *, beside: bool = False) -> None:
        """Lock a run directory (``DIR/.lock``) or, ``beside``, one output file (``FILE.lock``)."""
        self.target = target
        self.path = target.with_name(target.name + LOCK) if beside else target / LOCK
        self._output = "file" if beside else "directory"
        self._handle: IO[str] | None = None

    def acquire(self) -> None:
        """Take the lock at once (or the one :func:`hold` kept), else raise naming its holder."""
        held = _HELD.pop(os.path.realpath(self.path), None)
        if held is not None:
            self._handle = held
            return
        handle = self.path.open("a+", encoding="utf-8")
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or UNNAMED
            handle.close()
            raise RunDirectoryError(
                f"{self.target} is being written by process {holder}; wait for it to "
                f"finish or choose another output {self._output}"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        self._handle = handle

    def release(self) -> None:
        """Release the lock (idempotent)."""
        if self._handle is not None:
            fcntl.flock(self._handle.fileno(), fcntl.LOCK_UN)
            self._handle.close()
            self._handle = None


def hold(directory: Path) -> None:
    """Take ``DIR/.lock`` now and keep it for this process's writer, which takes it over.

    For a command to call before a slow step (loading a model): a second writer is refused
    at once instead of after its own load. :func:`release_held` lets go of what no writer
    took over.
    """
    lock = RunLock(directory)
    lock.acquire()
    assert lock._handle is not None
    _HELD[os.path.realpath(lock.path)] = lock._handle


def release_held() -> None:
    """Release every lock :func:`hold` took that no writer took over (at a command's end)."""
    while _HELD:
        _, handle = _HELD.popitem()
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
        handle.close()


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
    held = False
    try:
        lock.acquire()
        held = True
        yield
    except BaseException:
        if held and directory in made:
            lock.path.unlink(missing_ok=True)
        for folder in reversed(made):
            try:
                folder.rmdir()
            except OSError:
                break  # it holds something after all: keep it and its parents
        raise
    finally:
        lock.release()


def lock_holder(target: Path, *, beside: bool = False) -> str | None:
    """The process id holding ``DIR/.lock`` (``beside``: ``FILE.lock``) now, or None.

    Probes with a shared lock taken and dropped at once; a missing lock file means no writer.
    """
    path = target.with_name(target.name + LOCK) if beside else target / LOCK
    try:
        handle = path.open("r", encoding="utf-8")
    except OSError:
        return None
    with handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return handle.read().strip() or UNNAMED
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
    return None
