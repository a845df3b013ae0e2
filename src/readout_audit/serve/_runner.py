"""The request runner: each call sent at most as the ledger allows, paced, retried, capped."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from readout_audit._exceptions import InputError
from readout_audit.progress import ProgressMode, reporter
from readout_audit.serve._call import CallResult, CostCap, Endpoint, HttpCall, RetryPolicy
from readout_audit.serve._cost import Spend, price, reservation, usage
from readout_audit.serve._http import Exchange, post, redact
from readout_audit.serve._ledger import Ledger, LedgerEntry
from readout_audit.serve._pool import StartBucket, Task, WorkQueue


@dataclass(frozen=True)
class RunnerStats:
    """What the last ``run`` did."""

    sent: int = 0
    """Request bodies written (every attempt that reached the server)."""
    completed: int = 0
    """Calls completed by this run."""
    retried: int = 0
    """Attempts that were followed by another (429, 5xx, not sent)."""
    failed: int = 0
    unknown: int = 0
    """Calls whose outcome is unknown, whether they became so in this run or before."""
    capped: int = 0
    from_ledger: int = 0
    """Calls this run did not send (completed, or left unknown, before)."""
    seconds: float = 0.0
    requests_per_s: float = 0.0
    """Bodies written per second of the run."""
    tokens: int = 0
    """Tokens this run added to the ledger's spend (usage, or reservations of unknown calls)."""
    usd: float = 0.0


class _Unreserved(Exception):
    """The run stopped and dropped the call's reservation before its body was written."""


class RequestRunner:
    """Sends calls to OpenAI-compatible endpoints through a ledger.

    Completed calls are never sent again, a call whose outcome is unknown is never resent until
    released, the cost cap is never exceeded by reservations, and each endpoint keeps to its
    concurrency and start rate.
    """

    def __init__(
        self,
        endpoints: Sequence[Endpoint],
        ledger: Ledger,
        *,
        cap: CostCap | None = None,
        retry: RetryPolicy = RetryPolicy(),  # noqa: B008 (frozen, so one shared default is safe)
        progress: ProgressMode = "off",
        label: str = "requests",
    ) -> None:
        if not endpoints:
            raise InputError("needs at least one endpoint", source="request runner")
        self.endpoints, self.ledger, self.cap, self.retry = list(endpoints), ledger, cap, retry
        self.progress, self.label = progress, label
        self.stats = RunnerStats()
        self._secrets = [value for e in self.endpoints for value in e.headers.values()]
        self._counts = dict.fromkeys(("sent", "retried", "completed", "failed", "unknown"), 0)
        self._results: dict[str, CallResult] = {}
        self._lock = threading.Lock()
        self._error: BaseException | None = None
        self._advance: Callable[[], None] = lambda: None
        self._on_result: Callable[[CallResult], None] | None = None
        self._delivering = threading.Lock()
        self._started = time.monotonic()

    def _redact(self, text: str) -> str:
        """An error message with every endpoint's header values blanked (belt and braces)."""
        return redact(text, self._secrets)

    def _unknown_error(self, detail: str) -> str:
        return (
            f"sent once with no known outcome ({self._redact(detail)}); never resent "
            f"automatically: `readout ledger {self.ledger.path.parent} --release-unknown` "
            "lets a rerun send it again"
        )

    def _from_ledger(self, entry: LedgerEntry) -> CallResult | None:
        """The result a call already has in the ledger, or None when this run should send it."""
        if entry.state == "completed":
            return CallResult(entry.key, "completed", entry.response, None, entry.endpoint, True)
        if entry.state == "sent":  # the process that sent it ended before reading the answer
            self.ledger.lose(entry.key, self._unknown_error("the sending process ended"))
            entry = self.ledger.entry(entry.key) or entry
        if entry.state == "unknown":
            return CallResult(entry.key, "unknown", None, entry.error, entry.endpoint, True)
        return None

    def run(
        self, calls: Sequence[HttpCall], on_result: Callable[[CallResult], None] | None = None
    ) -> list[CallResult]:
        """Settle every call (results in the order of ``calls``); blocks until done.

        ``on_result`` receives each distinct call's final result as it settles (those read
        back from the ledger first), one at a time, so a caller can keep it at once. On Ctrl-C
        no new call starts and KeyboardInterrupt propagates at once; a call in flight stays
        ``sent`` in the ledger and is reported unknown by the next run. However the run ends,
        no call it did not send stays ``reserved`` (holding part of the cost cap).
        """
        for n, call in enumerate(calls):
            if not isinstance(call, HttpCall):
                raise InputError(f"must be an HttpCall, got {type(call).__name__}", item_id=str(n))
        started = self._started = time.monotonic()
        spend_before = self.ledger.spend()
        unique = list({call.key: call for call in calls}.values())
        entries = self.ledger.plan(unique)
        self._results, self._error = {}, None
        self._counts = dict.fromkeys(self._counts, 0)
        todo = []
        self._on_result = on_result
        for call in unique:
            known = self._from_ledger(entries[call.key])
            if known is None:
                todo.append(Task(call))
            else:
                self._results[call.key] = known
                self._deliver(known)
        queue = WorkQueue(todo)
        with reporter(
            self.progress, len(todo), label=self.label, unit="requests to send", status=self.status
        ) as report:
            self._advance = report.advance
            try:
                self._drive(queue)
            finally:
                self._advance, self._on_result = (lambda: None), None
                self.ledger.unreserve([task.key for task in todo])
        spent = self.ledger.spend() - spend_before
        self._finish_stats(time.monotonic() - started, spent)
        return [self._results[call.key] for call in calls]

    def _drive(self, queue: WorkQueue) -> None:
        """Run every endpoint's workers over ``queue`` until it is empty."""
        workers = []
        for endpoint in self.endpoints:
            bucket = StartBucket(endpoint.starts_per_s)  # one per endpoint, shared by its workers
            workers += [
                threading.Thread(target=self._work, args=(queue, endpoint, bucket), daemon=True)
                for _ in range(endpoint.concurrency)
            ]
        for worker in workers:
            worker.start()
        try:
            queue.join()
        except KeyboardInterrupt:
            queue.halt()
            raise
        for worker in workers:
            worker.join()
        if self._error is not None:
            raise self._error

    def _work(self, queue: WorkQueue, endpoint: Endpoint, bucket: StartBucket) -> None:
        """One worker of ``endpoint``: take a due call, reserve, wait for a start, try it once.

        Until the queue is empty or the run stops.
        """
        try:
            while (task := queue.take()) is not None:
                if not task.reserved and not self._reserve(queue, task):
                    continue
                if not bucket.wait(queue.stop):
                    self.ledger.unreserve([task.key])
                    return
                self._settle(queue, task, endpoint, self._attempt(task, endpoint))
        except BaseException as error:  # a ledger failure: stop the run, raise it in run()
            if not queue.stop.is_set():
                self._error = error
                queue.halt()

    def _reserve(self, queue: WorkQueue, task: Task) -> bool:
        """Reserve the call's cost; if the cap refuses, park it or report it capped."""
        settled_before = queue.settled
        refused = self.ledger.reserve(task.key, reservation(task.call, self.cap), self.cap)
        if refused is None:
            task.reserved = True
            queue.hold()
            return True
        if not queue.wait_for_room(task, settled_before):
            self._result(queue, task, CallResult(task.key, "capped", None, refused, None, False))
        return False

    def _attempt(self, task: Task, endpoint: Endpoint) -> Exchange:
        task.attempts += 1
        self.ledger.start(task.key, endpoint.base_url)

        def mark_sent() -> None:
            if not self.ledger.sent(task.key):
                raise _Unreserved(task.key)
            self._count("sent")

        return post(endpoint, task.call.path, task.call.body_bytes, mark_sent, task.call.root)

    def _settle(self, queue: WorkQueue, task: Task, endpoint: Endpoint, done: Exchange) -> None:
        """Record one attempt's outcome and either finish the call or queue its next attempt."""
        key, url = task.key, endpoint.base_url
        error = self._redact(done.error or "")
        if done.verdict == "completed" and done.response is not None and done.body is not None:
            reported = usage(done.response)
            charged = price(self.cap, *reported) if reported else reservation(task.call, self.cap)
            self.ledger.complete(key, done.body, reported, charged)
            self._result(queue, task, CallResult(key, "completed", done.response, None, url, False))
        elif done.verdict == "retry" and task.attempts < self.retry.max_attempts:
            self.ledger.retry(key, error)
            self._count("retried")
            if queue.stop.is_set():  # no attempt follows: the reservation goes
                self.ledger.unreserve([key])
            else:
                queue.later(task, self.retry.delay(task.attempts, done.retry_after))
        elif done.verdict == "impossible" and done.body is not None:
            # answered, so charged: its reservation stays in the spend, and a rerun resends it
            self.ledger.complete(key, done.body, None, reservation(task.call, self.cap))
            self.ledger.refuse(key, error)
            self._result(queue, task, CallResult(key, "failed", None, error, url, False))
        elif done.verdict in ("retry", "failed"):
            error = f"{error} (attempt {task.attempts} of {self.retry.max_attempts} in this run)"
            self.ledger.fail(key, error)
            self._result(queue, task, CallResult(key, "failed", None, error, url, False))
        else:
            error = self._unknown_error(error)
            self.ledger.lose(key, error)
            self._result(queue, task, CallResult(key, "unknown", None, error, url, False))

    def _result(self, queue: WorkQueue, task: Task, result: CallResult) -> None:
        with self._lock:
            self._results[task.key] = result
            if result.state in self._counts:
                self._counts[result.state] += 1
        self._deliver(result)
        queue.settle(task)
        self._advance()

    def _deliver(self, result: CallResult) -> None:
        """Hand a final result to ``on_result``, one at a time (workers settle concurrently)."""
        if self._on_result is not None:
            with self._delivering:
                self._on_result(result)

    def _count(self, name: str) -> None:
        with self._lock:
            self._counts[name] += 1

    def status(self) -> str:
        """The progress line's tail: failures, retries, unknowns and the ledger's spend."""
        spend: Spend = self.ledger.spend()
        counts = self._counts
        rate = counts["sent"] / max(time.monotonic() - self._started, 1e-9)
        return (
            f"{counts['sent']} sent ({rate:.2f} requests/s), {counts['retried']} retried, "
            f"{counts['failed']} failed, "
            f"{counts['unknown']} unknown; spend {spend.tokens} tokens, ${spend.usd:.4f}"
        )

    def _finish_stats(self, seconds: float, spent: Spend) -> None:
        states = [result.state for result in self._results.values()]
        from_ledger = [result for result in self._results.values() if result.from_ledger]
        sent = self._counts["sent"]
        self.stats = RunnerStats(
            sent=sent,
            completed=self._counts["completed"],
            retried=self._counts["retried"],
            failed=states.count("failed"),
            unknown=states.count("unknown"),
            capped=states.count("capped"),
            from_ledger=len(from_ledger),
            seconds=round(seconds, 3),
            requests_per_s=sent / seconds if seconds > 0 else 0.0,
            tokens=spent.tokens,
            usd=spent.usd,
        )
