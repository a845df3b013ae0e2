"""The run loop: planned jobs in, records out, through an executor, into a locked run directory."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from readout_audit._exceptions import InputError, ReadoutError, RunDirectoryError
from readout_audit.kind._claim import claim
from readout_audit.kind._run_settings import RunSettings
from readout_audit.log import Manifest, RunDirectory, Summary, Timing, read_run
from readout_audit.model import (
    Executor,
    LocalExecutor,
    PositionRequest,
    PositionScores,
    ScoringModel,
    check_model,
    leading_context,
    ordered_jobs,
)
from readout_audit.progress import (
    RATE_WINDOW,
    ProgressMode,
    Reporter,
    announce,
    duration,
    reporter,
)
from readout_audit.serve import LEDGER_FILE

if TYPE_CHECKING:
    from readout_audit.kind._kind import AuditKind

P = TypeVar("P")


@dataclass(frozen=True)
class Job(Generic[P]):
    """One scored position to answer: its record's key, the request, and what the record needs."""

    key: tuple[str, ...]
    request: PositionRequest
    payload: P


@dataclass(frozen=True)
class ScoreResult:
    """What a run did."""

    directory: Path
    summary: Summary
    n_new: int
    """Records written by this call (a resumed run skips those already on disk)."""


Planner = Callable[[RunDirectory], Sequence[Job[Any]]]
"""Builds a run's jobs once its directory is locked; stages before scoring (a diagnostic, a
note writer) run here and keep their results as artifacts of the run directory."""


RunOut = str | Path | RunDirectory
"""Where a run goes: a directory's path, or the run directory :func:`run_stage` opened (locked
before the model loaded)."""


def run_kind(
    kind: AuditKind[Any, Any],
    model: ScoringModel,
    out: RunOut,
    config: dict[str, Any],
    plan: Planner,
    run: RunSettings | None = None,
    *,
    seeds: dict[str, int] | None = None,
    executor: Executor | None = None,
) -> ScoreResult:
    """Run a kind into ``out``: lock, check or write the manifest, plan, score, summarise.

    ``out``: a path, or a run directory already open (it stays open for its opener to close).
    ``run``: the batch size, progress mode and overwrite (``RunSettings()`` by default).
    ``executor`` answers the jobs (default: the model's own, :meth:`ScoringModel.executor`,
    with the batch size). Jobs whose key is already on disk are skipped; every record is
    flushed as it completes, so on any interruption the finished records stay and a rerun of
    the same command resumes. The summary is computed from the files on disk, exactly as
    ``readout report`` computes it. ``overwrite``: a run already in ``out`` (of any
    configuration) is deleted first, as when a notebook cell runs again after its items
    changed; otherwise it is resumed or refused.
    """
    check_model(model)
    run = run or RunSettings()
    manifest = Manifest.create(kind.name, model.info, config, seeds)  # checked before any write
    with opened_run(out, kind) as run_dir:
        run_dir.start(manifest, overwrite=run.overwrite)
        if (execution := model.execution()) is not None:
            run_dir.record_execution(execution)
        # every request of the run, planning's included (answers, diagnostics, notes), goes
        # through the run's ledger when the model keeps one: under its cost cap, never sent twice
        with model.bound_to(run_dir.directory / LEDGER_FILE):
            announce(
                run.progress, "planning: rendering the prompts, running the stages before scoring"
            )
            jobs = plan(run_dir)
            executor = executor or model.executor(run.batch_size)
            written = _write_records(kind, model, run_dir, jobs, executor, run.progress)
        directory = run_dir.directory
        summary = timed_summary(kind, directory, written.n_new, written.seconds, written.tokens)
        run_dir.finish(summary, planned=written.planned)
    return ScoreResult(directory=directory, summary=summary, n_new=written.n_new)


def run_path(out: RunOut) -> Path:
    """The folder ``out`` names, open or not."""
    return out.directory if isinstance(out, RunDirectory) else Path(out)


def opened_run(out: RunOut, kind: AuditKind[Any, Any]) -> AbstractContextManager[RunDirectory]:
    """``out``'s run directory for a block: the one already open as it is, else claimed."""
    if not isinstance(out, RunDirectory):
        return claim(out, kind)
    if out.kind.name != kind.name:
        raise RunDirectoryError(
            f"{out.directory} was opened for a {out.kind.name} run, not {kind.name}"
        )
    return nullcontext(out)


@dataclass(frozen=True)
class _Written:
    planned: int
    n_new: int
    tokens: int
    seconds: float


def _write_records(
    kind: AuditKind[Any, Any],
    model: ScoringModel,
    run_dir: RunDirectory,
    jobs: Sequence[Job[Any]],
    executor: Executor,
    mode: ProgressMode,
) -> _Written:
    """Answer the jobs not on disk and append each record as it completes."""
    planned = unique_keys(jobs)
    todo = [job for job in jobs if job.key not in run_dir.done]
    started, tokens = time.perf_counter(), 0
    status = getattr(executor, "status", None)  # a served run's requests and spend
    with reporter(mode, len(todo), status=status) as report:
        for job, scores in _calibrated(executor, todo, report):
            record = kind.make_record(model, job, scores)
            if kind.record_key(record) != job.key:
                raise ReadoutError(
                    f"audit kind {kind.name!r} planned job {job.key} but its record has key "
                    f"{kind.record_key(record)}; a resumed run could not skip it"
                )
            run_dir.append(record)
            tokens += kind.scored_tokens(record)
            report.advance()
    missing = planned - run_dir.done
    if missing:
        raise ReadoutError(
            f"{len(missing)} of {len(planned)} planned records were not written (first: "
            f"{min(missing)}); the run stays unfinished and a rerun scores them"
        )
    # the run holds its earlier invocations' records too (a judge's preflight beside its
    # confirmation): finished means every one of them and every planned one is on disk
    held = planned | run_dir.done
    return _Written(len(held), len(todo), tokens, time.perf_counter() - started)


def _calibrated(
    executor: Executor, todo: Sequence[Job[Any]], report: Reporter
) -> Iterator[tuple[Job[Any], PositionScores]]:
    """The jobs' answers, with an estimate of the run once a local model's pace is measured.

    A local executor scores the first context alone (:func:`leading_context`), then batches.
    The first context carries the model's warm-up, so its time predicts nothing: the run's
    size is told after it, its time once a batch ends :data:`RATE_WINDOW` seconds after it, at
    the pace since it (the rule of the progress line's ETA). A served model's requests are
    concurrent: no estimate.
    """
    if not isinstance(executor, LocalExecutor):
        yield from executor.run(todo)
        return
    ordered = ordered_jobs(todo)
    first = leading_context(ordered)
    ends = set(range(first, len(ordered), executor.batch_size))
    after_first: float | None = None
    for done, answer in enumerate(executor.run(todo), start=1):
        yield answer
        if done == len(ordered) or done not in ends:
            continue
        now = time.perf_counter()
        if done == first:
            report.note(estimate(ordered))
            after_first = now
        elif after_first is not None and now - after_first >= RATE_WINDOW:
            report.note(estimate(ordered, first, done, now - after_first))
            after_first = None


def request_tokens(job: Job[Any]) -> tuple[int, int]:
    """Tokens a job reads (context and continuations) and greedy tokens it writes."""
    request = job.request
    read = len(request.context) + sum(len(c) for c in request.continuations)
    return read, request.greedy_tokens


def estimate(todo: Sequence[Job[Any]], first: int = 0, done: int = 0, seconds: float = 0) -> str:
    """The run's positions and tokens; with ``seconds``, the time left at a measured pace.

    The pace is that of the jobs ``first`` to ``done``: those after the first context, which
    carries the model's warm-up.
    """
    counts = [sum(request_tokens(job)) for job in todo]
    read = sum(request_tokens(job)[0] for job in todo)
    size = (
        f"estimate: {len(todo)} positions, {read:,} tokens to read, "
        f"{sum(counts) - read:,} greedy tokens to write"
    )
    if not seconds:
        return f"{size}; the time follows once the pace after the first position is measured"
    left = sum(counts[done:]) * seconds / max(sum(counts[first:done]), 1)
    return (
        f"estimate: about {duration(left)} left for {len(todo) - done} positions, at the pace "
        f"of positions {first + 1}-{done} ({seconds:.1f} s)"
    )


def unique_keys(jobs: Sequence[Job[Any]]) -> set[tuple[str, ...]]:
    """The jobs' record keys, or an error before any scoring when two jobs share one.

    Two items with one id would give one record for two planned jobs: the second would be
    skipped as done and the run would finish short.
    """
    seen: set[tuple[str, ...]] = set()
    for job in jobs:
        if job.key in seen:
            raise InputError(
                f"two planned records share the key {job.key!r} (two items with one id?); "
                "nothing was scored",
                field="id",
            )
        seen.add(job.key)
    return seen


def timed_summary(
    kind: AuditKind[Any, Any], out: str | Path, n_new: int, elapsed: float, tokens: int | None
) -> Summary:
    """The kind's summary of the run's files, with this invocation's records and speed."""
    timing = Timing(
        n_new_records=n_new,
        seconds=round(elapsed, 3),
        items_per_s=n_new / elapsed if elapsed > 0 else None,
        tokens_per_s=tokens / elapsed if elapsed > 0 and tokens is not None else None,
    )
    summary: Summary = kind.summary(read_run(out)).model_copy(update={"this_invocation": timing})
    return summary
