"""Executors: who answers a run's position requests, and in what batches.

The runner hands an executor every pending job at once and writes each record as its answer
arrives, in whatever order; a served-model executor (concurrent, paced, retrying) fits the same
interface.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Protocol

from readout_audit._exceptions import InputError
from readout_audit.kind._runner import Job
from readout_audit.model._backend import PositionScores, ScoringModel

DEFAULT_BATCH_SIZE = 32
"""Scored positions sent to the model at once: one padded forward, one batched greedy decode.

Greedy decoding reads every weight once per step whatever the batch, so larger batches make
the continuation cheap per item; jobs are sorted by context length first, so padding is small.
"""


class Executor(Protocol):
    """Answers jobs' position requests; yields each job with its scores as they complete."""

    def run(self, jobs: Sequence[Job[Any]]) -> Iterator[tuple[Job[Any], PositionScores]]:
        """Answer every job once, in any order."""
        ...


def batches(jobs: Sequence[Job[Any]], size: int) -> list[list[Job[Any]]]:
    """Split jobs into consecutive batches of ``size``, keeping equal contexts together.

    A batch never ends between two jobs that share a context (P(True)'s library and
    renormalised readouts), so the model encodes that context once.
    """
    if size < 1:
        raise InputError(f"batch size must be at least 1, got {size}", field="batch_size")
    grouped: list[list[Job[Any]]] = []
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


class LocalExecutor:
    """Synchronous batches on a local model, shortest contexts first (similar lengths pad least)."""

    def __init__(self, model: ScoringModel, batch_size: int = DEFAULT_BATCH_SIZE) -> None:
        self.model = model
        self.batch_size = batch_size

    def run(self, jobs: Sequence[Job[Any]]) -> Iterator[tuple[Job[Any], PositionScores]]:
        """Answer the jobs batch by batch (a stable sort keeps shared contexts adjacent)."""
        ordered = sorted(jobs, key=lambda job: len(job.request.context))
        for batch in batches(ordered, self.batch_size):
            answers = self.model.score_positions([job.request for job in batch])
            yield from zip(batch, answers, strict=True)
