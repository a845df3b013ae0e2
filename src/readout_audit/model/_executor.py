"""Executors: who answers a run's requests (scored positions and generations), in what batches.

A model chooses its own (:meth:`ScoringModel.executor`): local batches on this machine, or
concurrent calls through a served model's request ledger. The runner hands an executor every
pending request at once and writes each answer as it arrives, in whatever order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from readout_audit._exceptions import InputError
from readout_audit.model._backend import (
    DEFAULT_BATCH_SIZE,
    PositionRequest,
    PositionScores,
    ScoringModel,
)
from readout_audit.model._generation import GenerationSettings
from readout_audit.model._prefix import execution_order


@dataclass(frozen=True)
class GenerationRequest:
    """A completion after a context, with these settings (sampled where they say, seeded)."""

    context: Sequence[int]
    settings: GenerationSettings


class Keyed(Protocol):
    """A pending scored position: its key (what an unsettled report names) and its request."""

    @property
    def key(self) -> tuple[str, ...]: ...

    @property
    def request(self) -> PositionRequest: ...


R = TypeVar("R")


@dataclass(frozen=True)
class Pending(Generic[R]):
    """A request waiting for its answer, with the key an unsettled report names it by."""

    key: tuple[str, ...]
    request: R


J = TypeVar("J", bound=Keyed)


class Executor(Protocol):
    """Answers requests in any order, yielding each with its answer as it completes."""

    def run(self, jobs: Sequence[J]) -> Iterator[tuple[J, PositionScores]]:
        """Answer every job's position request once."""
        ...

    def generate(
        self, jobs: Sequence[Pending[GenerationRequest]]
    ) -> Iterator[tuple[Pending[GenerationRequest], list[int]]]:
        """Generate every job's completion once (the generated token ids)."""
        ...


def batches(jobs: Sequence[J], size: int) -> list[list[J]]:
    """Split jobs into consecutive batches of ``size``, keeping equal contexts together.

    A batch never ends between two jobs that share a context (P(True)'s library and
    renormalised readouts), so the model encodes that context once.
    """
    if size < 1:
        raise InputError(f"batch size must be at least 1, got {size}", field="batch_size")
    grouped: list[list[J]] = []
    for job in jobs:
        current = grouped[-1] if grouped else None
        if (
            current is not None
            and len(current) >= size
            and job.request.context != current[-1].request.context
        ):
            current = None
        if current is None:
            grouped.append([job])
        else:
            current.append(job)
    return grouped


def ordered_jobs(jobs: Sequence[J]) -> list[J]:
    """Jobs in the order a local model scores them (:func:`execution_order` of their contexts)."""
    return [jobs[i] for i in execution_order([job.request.context for job in jobs])]


def leading_context(jobs: Sequence[J]) -> int:
    """How many of the first jobs share the first job's context."""
    first = 1
    while first < len(jobs) and jobs[first].request.context == jobs[0].request.context:
        first += 1
    return first if jobs else 0


class LocalExecutor:
    """Synchronous batches on a local model: contexts sharing a long prefix together."""

    def __init__(self, model: ScoringModel, batch_size: int = DEFAULT_BATCH_SIZE) -> None:
        self.model = model
        self.batch_size = batch_size

    def run(self, jobs: Sequence[J]) -> Iterator[tuple[J, PositionScores]]:
        """Answer the jobs batch by batch, in :func:`ordered_jobs` order.

        The first batch is the first context alone: its records come in seconds, not after a
        whole batch, and its time gives an estimate of the rest.
        """
        ordered = ordered_jobs(jobs)
        head = leading_context(ordered)
        for batch in [ordered[:head], *batches(ordered[head:], self.batch_size)]:
            answers = self.model.score_positions([job.request for job in batch])
            yield from zip(batch, answers, strict=True)

    def generate(
        self, jobs: Sequence[Pending[GenerationRequest]]
    ) -> Iterator[tuple[Pending[GenerationRequest], list[int]]]:
        """Generate one job at a time, in order (each is seeded on its own)."""
        for job in jobs:
            yield job, self.model.generate(job.request.context, job.request.settings)


class RoutedExecutor:
    """Two scorers in one run: jobs whose key ``takes`` go to ``other``, the rest to ``default``.

    The likelihood-lift SFT rung is read by a fine-tuned copy of the scorer beside the scorer
    itself; each executor answers its own jobs (``default``'s first), generations stay with
    ``default``, and a served ``default`` keeps reporting its requests and spend.
    """

    def __init__(
        self, default: Executor, other: Executor, takes: Callable[[tuple[str, ...]], bool]
    ) -> None:
        self.default = default
        self.other = other
        self.takes = takes

    @property
    def status(self) -> Any:
        """The default executor's request status (a served model's), if it has one."""
        return getattr(self.default, "status", None)

    def run(self, jobs: Sequence[J]) -> Iterator[tuple[J, PositionScores]]:
        """Answer ``default``'s jobs, then ``other``'s."""
        theirs = [job for job in jobs if self.takes(job.key)]
        mine = [job for job in jobs if not self.takes(job.key)]
        if mine:
            yield from self.default.run(mine)
        if theirs:
            yield from self.other.run(theirs)

    def generate(
        self, jobs: Sequence[Pending[GenerationRequest]]
    ) -> Iterator[tuple[Pending[GenerationRequest], list[int]]]:
        """Generations are the default scorer's."""
        return self.default.generate(jobs)
