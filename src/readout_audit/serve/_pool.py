"""The shared queue every endpoint's workers take calls from, and each endpoint's start bucket."""

from __future__ import annotations

import heapq
import itertools
import threading
import time
from dataclasses import dataclass, field

from readout_audit.serve._call import HttpCall


@dataclass(eq=False)
class Task:
    """A call of this run on its way: attempts made in this run, whether it holds a reservation."""

    call: HttpCall
    attempts: int = 0
    reserved: bool = False
    key: str = field(init=False)

    def __post_init__(self) -> None:
        self.key = self.call.key


class StartBucket:
    """At most ``rate`` starts per second (None: unpaced).

    A token bucket holding one token: starts are at least ``1 / rate`` seconds apart.
    """

    def __init__(self, rate: float | None) -> None:
        self._interval = 1.0 / rate if rate else 0.0
        self._next = 0.0
        self._lock = threading.Lock()

    def wait(self, stop: threading.Event) -> bool:
        """Take the next start slot and sleep until it; False when ``stop`` came first."""
        with self._lock:
            slot = max(time.monotonic(), self._next)
            self._next = slot + self._interval
        delay = slot - time.monotonic()
        return not stop.wait(delay) if delay > 0 else not stop.is_set()


class WorkQueue:
    """Calls waiting to start, shared by every endpoint's workers (a faster endpoint takes more).

    Each call is due from its own time on (a retry backs off).
    A call that does not fit the cost cap while other calls of the run hold reservations waits
    for one of them to settle (its actual usage may free room) before it is judged capped.
    """

    def __init__(self, tasks: list[Task]) -> None:
        self._heap = [(0.0, n, task) for n, task in enumerate(tasks)]
        self._order = itertools.count(len(tasks))
        self._waiting: list[Task] = []
        self._open = len(tasks)
        self.holding = 0
        """Calls of this run holding a reservation and not yet settled."""
        self.settled = 0
        """Calls settled so far (a change tells a waiting call the spend may have fallen)."""
        self.stop = threading.Event()
        self._cond = threading.Condition()

    def take(self) -> Task | None:
        """The next call due, waiting for one; None when every call is settled or on stop."""
        with self._cond:
            while self._open > 0 and not self.stop.is_set():
                now = time.monotonic()
                if self._heap and self._heap[0][0] <= now:
                    return heapq.heappop(self._heap)[2]
                self._cond.wait(self._heap[0][0] - now if self._heap else None)
            return None

    def later(self, task: Task, delay: float) -> None:
        """Put ``task`` back, due in ``delay`` seconds."""
        with self._cond:
            heapq.heappush(self._heap, (time.monotonic() + delay, next(self._order), task))
            self._cond.notify_all()

    def hold(self) -> None:
        """A call of this run took a reservation."""
        with self._cond:
            self.holding += 1

    def wait_for_room(self, task: Task, settled_before: int) -> bool:
        """Park a call refused by the cap until a call holding a reservation settles.

        False when no call holds one: the refusal is final. When a call settled since the
        refusal, the refused call is due again at once.
        """
        with self._cond:
            if self.settled != settled_before:
                heapq.heappush(self._heap, (0.0, next(self._order), task))
            elif self.holding > 0:
                self._waiting.append(task)
            else:
                return False
            self._cond.notify_all()
            return True

    def settle(self, task: Task) -> None:
        """``task`` is finished for this run; parked calls get another look at the cap."""
        with self._cond:
            self._open -= 1
            self.settled += 1
            if task.reserved:
                self.holding -= 1
                for waiting in self._waiting:
                    heapq.heappush(self._heap, (0.0, next(self._order), waiting))
                self._waiting.clear()
            self._cond.notify_all()

    def join(self, poll_s: float = 0.2) -> None:
        """Block until every call is settled or the run stops (Ctrl-C reaches the caller)."""
        with self._cond:
            while self._open > 0 and not self.stop.is_set():
                self._cond.wait(poll_s)

    def halt(self) -> None:
        """Stop handing out calls (Ctrl-C, or a worker's error)."""
        with self._cond:
            self.stop.set()
            self._cond.notify_all()
