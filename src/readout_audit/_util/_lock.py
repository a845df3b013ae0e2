"""An exclusive lock on a run directory or an output file: one writing process at a time."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import IO

from readout_audit._exceptions import RunDirectoryError

LOCK = ".lock"


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
        """Take the lock at once, or raise naming the process that holds it."""
        handle = self.path.open("a+", encoding="utf-8")
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
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


def lock_holder(directory: Path) -> str | None:
    """The process id holding ``DIR/.lock`` now (a run being written), or None.

    Probes with a shared lock taken and dropped at once; a missing lock file means no writer.
    """
    try:
        handle = (directory / LOCK).open("r", encoding="utf-8")
    except OSError:
        return None
    with handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return handle.read().strip() or "another process"
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
    return None
