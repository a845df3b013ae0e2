"""An exclusive lock on a run directory, so two processes never write one run at once."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import IO

from readout_audit._exceptions import RunDirectoryError

LOCK = ".lock"


class RunLock:
    """Holds ``RUN/.lock`` with ``flock`` until released (or the process ends, even by a kill).

    The kernel drops the lock with the process, so a killed run never leaves a stale lock; the
    file keeps the holder's process id for the message a second writer gets.
    """

    def __init__(self, directory: Path) -> None:
        self.path = directory / LOCK
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
                f"{self.path.parent} is being written by process {holder}; wait for it to "
                "finish or choose another output directory"
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
