"""Progress of a run where people look: a bar on a terminal, plain lines in logs and pipes."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Literal, Protocol, TextIO

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.text import Text

ProgressMode = Literal["bar", "lines", "off"]
LINE_INTERVAL = 10.0
"""Seconds between two plain progress lines at most."""
RATE_WINDOW = 2.0
"""Seconds after the first record before an ETA is given: the first record carries the
model's warm-up and the whole first batch, so the pace is measured after it."""


class Reporter(Protocol):
    """Told about every finished record, and given a line to show (an estimate) now and then."""

    def advance(self) -> None:
        """One more record is on disk."""
        ...

    def note(self, line: str) -> None:
        """Show ``line`` once, above the progress."""
        ...


def progress_mode(flag: bool | None, stream: TextIO | None = None) -> ProgressMode:
    """``bar`` on a terminal, ``lines`` otherwise, ``off`` when asked (``flag`` False)."""
    if flag is False:
        return "off"
    return "bar" if (stream or sys.stderr).isatty() else "lines"


def as_mode(progress: bool | ProgressMode) -> ProgressMode:
    """A caller's ``progress`` as a mode: a bool as :func:`progress_mode` reads it, a mode as is.

    ``"off"`` is a non-empty string, so a mode must never be read as a truth value.
    """
    return progress if isinstance(progress, str) else progress_mode(None if progress else False)


def duration(seconds: float) -> str:
    """Seconds as ``1h02m`` or ``3m05s``."""
    hours, rest = divmod(round(seconds), 3600)
    return f"{hours}h{rest // 60:02d}m" if hours else f"{rest // 60}m{rest % 60:02d}s"


class LineReporter:
    """Writes ``scoring: done/total (p%), items/s, ETA`` at most every ``interval`` seconds.

    The ETA extrapolates the pace since the first record, once :data:`RATE_WINDOW` seconds have
    passed (``estimating`` before). ``status()``, when given, adds the stage's own counters
    after a semicolon.
    """

    def __init__(
        self,
        total: int,
        stream: TextIO,
        interval: float = LINE_INTERVAL,
        label: str = "scoring",
        status: Callable[[], str] | None = None,
    ) -> None:
        self.total, self.stream, self.interval, self.label = total, stream, interval, label
        self.status = status
        self.done = 0
        self.started = self.last = time.monotonic()
        self.first: float | None = None
        """When the first record was counted."""

    def eta(self, now: float) -> str:
        """The time left at the pace since the first record, or ``estimating`` too early."""
        if self.done >= self.total:
            return duration(0)
        since = now - self.first if self.first is not None else 0.0
        if since < RATE_WINDOW or self.done < 2:
            return "estimating"
        return duration((self.total - self.done) * since / (self.done - 1))

    def line(self) -> str:
        """The current progress as one line."""
        now = time.monotonic()
        elapsed = max(now - self.started, 1e-9)
        rate = self.done / elapsed
        share = self.done / self.total if self.total else 1.0
        eta = self.eta(now)
        line = (
            f"{self.label}: {self.done}/{self.total} ({share:.0%}), {rate:.2f} items/s, "
            f"ETA {eta}, elapsed {duration(elapsed)}"
        )
        return f"{line}; {self.status()}" if self.status else line

    def advance(self) -> None:
        """Count a record; a line for the first, then every ``interval`` seconds, and the last."""
        self.done += 1
        now = time.monotonic()
        if self.first is None:
            self.first = now
        if self.done == 1 or now - self.last >= self.interval or self.done == self.total:
            self.last = now
            print(self.line(), file=self.stream, flush=True)

    def note(self, line: str) -> None:
        """Write ``line`` as it is, prefixed with the stage's label."""
        print(f"{self.label}: {line}", file=self.stream, flush=True)


class _BarReporter:
    STATUS_INTERVAL = 0.5
    """Seconds between two refreshes of the status after the bar at most."""

    def __init__(
        self, bar: Progress, total: int, label: str, status: Callable[[], str] | None
    ) -> None:
        self.bar, self.status, self.total, self.done = bar, status, total, 0
        self.task = bar.add_task(label, total=total, status=status() if status else "")
        self.last = time.monotonic()

    def advance(self) -> None:
        self.done += 1
        now = time.monotonic()
        if self.status and (now - self.last >= self.STATUS_INTERVAL or self.done == self.total):
            self.last = now
            self.bar.update(self.task, advance=1, status=self.status())
        else:
            self.bar.advance(self.task)

    def note(self, line: str) -> None:
        self.bar.console.print(Text(line))


class _Silent:
    def advance(self) -> None:
        pass

    def note(self, line: str) -> None:
        pass


def announce(mode: ProgressMode, line: str, stream: TextIO | None = None) -> None:
    """Write ``line`` before a step that may be silent for long, unless progress is off."""
    if mode != "off":
        print(line, file=stream or sys.stderr, flush=True)


@contextmanager
def reporter(
    mode: ProgressMode,
    total: int,
    stream: TextIO | None = None,
    *,
    label: str = "scoring",
    unit: str = "records to write",
    status: Callable[[], str] | None = None,
) -> Iterator[Reporter]:
    """A progress reporter for ``total`` steps of a stage (stderr by default).

    ``status`` adds the stage's own counters to each line (or after the bar).
    """
    stream = stream or sys.stderr
    if mode == "off" or total == 0:
        yield _Silent()
    elif mode == "lines":
        print(f"{label}: {total} {unit}", file=stream, flush=True)
        yield LineReporter(total, stream, label=label, status=status)
    else:
        columns = (TextColumn(f"[bold]{label}"), BarColumn(), MofNCompleteColumn())
        tail = TextColumn("{task.fields[status]}", markup=False)
        with Progress(*columns, TimeRemainingColumn(), tail, transient=False) as bar:
            yield _BarReporter(bar, total, label, status)
