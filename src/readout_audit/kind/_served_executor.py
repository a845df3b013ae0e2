"""The executor of a served model: positions answered over HTTP through the run's request ledger."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from readout_audit._exceptions import ReadoutError
from readout_audit.kind._executor import batches
from readout_audit.kind._runner import Job
from readout_audit.model._backend import PositionScores
from readout_audit.model._served import ServedModel
from readout_audit.model._served_plan import Unsettled
from readout_audit.serve import LEDGER_FILE


class UnsettledError(ReadoutError):
    """Scored positions without a record: a request failed, was capped, or has no known outcome."""


class ServedExecutor:
    """Batches of positions sent concurrently; every answered one is yielded, the rest reported.

    Every request and reply is kept in ``RUN/requests.sqlite``, so a rerun sends only what
    never completed, and never a request whose outcome is unknown until it is released.
    """

    def __init__(self, model: ServedModel, directory: Path, batch_size: int) -> None:
        self.model, self.ledger_path = model, directory / LEDGER_FILE
        in_flight = sum(e.concurrency for e in model.endpoints)
        self.batch_size = max(1, min(batch_size, 2 * in_flight))
        """Positions settled together: enough to keep every pool busy, few enough that
        records (and progress) arrive steadily."""

    def status(self) -> str:
        """The requests' counters and spend, for the run's progress line."""
        runner = self.model.runner
        return runner.status() if runner is not None else "requests: starting"

    def run(self, jobs: Sequence[Job[Any]]) -> Iterator[tuple[Job[Any], PositionScores]]:
        """Answer the jobs batch by batch; raise at the end if any position is unsettled."""
        unsettled: list[tuple[Job[Any], Unsettled]] = []
        bound = self.model.runner is not None  # run_kind binds the model for the whole run
        with nullcontext() if bound else self.model.ledger(self.ledger_path):
            for batch in batches(list(jobs), self.batch_size):
                answers = self.model.settle([job.request for job in batch])
                for job, answer in zip(batch, answers, strict=True):
                    if isinstance(answer, Unsettled):
                        unsettled.append((job, answer))
                    else:
                        yield job, answer
        if unsettled:
            shown = "; ".join(f"{'/'.join(job.key)}: {u.reason}" for job, u in unsettled[:3])
            raise UnsettledError(
                f"{len(unsettled)} of {len(jobs)} scored positions have no record ({shown}). "
                "Every other record is on disk, and every completed request is kept: "
                f"`readout ledger {self.ledger_path.parent}` lists the requests. A rerun retries "
                "failed and capped requests; one of unknown outcome is sent again only after "
                "`readout ledger RUN --release-unknown`."
            )
