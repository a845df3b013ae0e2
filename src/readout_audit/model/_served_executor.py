"""The executor of a served model: requests answered over HTTP through the run's request ledger."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Protocol, TypeVar

from readout_audit._exceptions import ReadoutError
from readout_audit.model._backend import PositionScores
from readout_audit.model._executor import GenerationRequest, Keyed, Pending, batches
from readout_audit.model._served_plan import Unsettled

if TYPE_CHECKING:
    from readout_audit.model._served import ServedModel


class _HasKey(Protocol):
    @property
    def key(self) -> tuple[str, ...]: ...


J = TypeVar("J", bound=Keyed)
T = TypeVar("T", bound=_HasKey)
A = TypeVar("A")


class UnsettledError(ReadoutError):
    """Requests without an answer: one failed, was capped, or has no known outcome."""


class ServedExecutor:
    """Batches of requests sent concurrently; every answered one is yielded, the rest reported.

    The model must be bound to the run's ledger (``run_kind`` binds it for the whole run), so
    every request and reply is kept in ``RUN/requests.sqlite``: a rerun sends only what never
    completed, and never a request whose outcome is unknown until it is released.
    """

    def __init__(self, model: ServedModel, batch_size: int) -> None:
        self.model = model
        in_flight = sum(e.concurrency for e in model.endpoints)
        self.batch_size = max(1, min(batch_size, 2 * in_flight))
        """Requests settled together: enough to keep every pool busy, few enough that
        records (and progress) arrive steadily."""

    def status(self) -> str:
        """The requests' counters and spend, for the run's progress line."""
        runner = self.model.runner
        return runner.status() if runner is not None else "requests: starting"

    def run(self, jobs: Sequence[J]) -> Iterator[tuple[J, PositionScores]]:
        """Answer the jobs batch by batch; raise at the end if any position is unsettled."""
        unsettled: list[tuple[tuple[str, ...], Unsettled]] = []
        for batch in batches(list(jobs), self.batch_size):
            answers = self.model.settle([job.request for job in batch])
            yield from self._settled(batch, answers, unsettled)
        self._report(unsettled, len(jobs), "scored positions", "record")

    def generate(
        self, jobs: Sequence[Pending[GenerationRequest]]
    ) -> Iterator[tuple[Pending[GenerationRequest], list[int]]]:
        """Generate concurrently, batch by batch; raise at the end if any is unsettled.

        Every call is built first, so a setting the server refuses sends nothing.
        """
        calls = [self.model.generation_call(j.request.context, j.request.settings) for j in jobs]
        unsettled: list[tuple[tuple[str, ...], Unsettled]] = []
        size = self.batch_size
        for start in range(0, len(jobs), size):
            answers = self.model.generations(calls[start : start + size])
            yield from self._settled(jobs[start : start + size], answers, unsettled)
        self._report(unsettled, len(jobs), "generations", "answer")

    @staticmethod
    def _settled(
        batch: Sequence[T],
        answers: Sequence[A | Unsettled],
        unsettled: list[tuple[tuple[str, ...], Unsettled]],
    ) -> Iterator[tuple[T, A]]:
        for job, answer in zip(batch, answers, strict=True):
            if isinstance(answer, Unsettled):
                unsettled.append((job.key, answer))
            else:
                yield job, answer

    def _report(
        self, unsettled: list[tuple[tuple[str, ...], Unsettled]], n: int, what: str, gives: str
    ) -> None:
        if not unsettled:
            return
        runner = self.model.runner
        run = runner.ledger.path.parent if runner is not None else "RUN"
        shown = "; ".join(f"{'/'.join(key)}: {u.reason}" for key, u in unsettled[:3])
        raise UnsettledError(
            f"{len(unsettled)} of {n} {what} have no {gives} ({shown}). Every other {gives} is "
            f"kept, and every completed request too: `readout ledger {run}` lists the "
            "requests. A rerun retries failed and capped requests; one of unknown outcome is sent "
            "again only after `readout ledger RUN --release-unknown`."
        )
