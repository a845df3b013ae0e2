"""An audit kind: one object that says everything the runner, reports and CLI need of a protocol."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from readout_audit.log import Check, Run, RunRecord, Summary

if TYPE_CHECKING:
    from readout_audit.kind._runner import Job
    from readout_audit.model import PositionScores, ScoringModel
    from readout_audit.report import PairedDifference, Section

RecordT = TypeVar("RecordT", bound=RunRecord)
SummaryT = TypeVar("SummaryT", bound=Summary)


def bound_record(model: ScoringModel, job: Job[Any], scores: PositionScores) -> Any:
    """The usual ``make_record``: call the job's payload with the model and the scores.

    The payload is the kind's record function with the job's own arguments bound
    (``functools.partial``), so a kind needs no record wrapper of its own.
    """
    return job.payload(model, scores=scores)


def no_headline(summary: Any) -> dict[str, float | None]:
    """The usual headline: no numbers (``readout table`` shows the counts and verdicts alone)."""
    return {}


def item_and_variant(record: Any) -> tuple[str, ...]:
    """The usual record key: (item id, variant)."""
    return (record.item_id, record.variant)


def context_and_options(record: Any) -> int:
    """The usual count of a record's scored tokens: its context and its options' tokens."""
    return int(record.n_tokens) + sum(len(t or ()) for t in record.option_token_ids)


@dataclass(frozen=True)
class AuditKind(Generic[RecordT, SummaryT]):
    """A protocol, registered once with :func:`register_kind`.

    The runner writes its records, ``read_run`` parses them, ``readout report`` and
    ``readout compare`` summarise and render them, and ``readout audit NAME`` runs it, all by
    looking the kind up by the name in the run's manifest.
    """

    name: str
    """The manifest's ``kind`` and the CLI subcommand (``readout audit NAME``)."""
    title: str
    """What the report calls it, e.g. ``constrained-option audit``."""
    record_type: type[RecordT]
    summary_type: type[SummaryT]
    summarise: Callable[[Run[RecordT]], SummaryT]
    """The summary from a run's files alone (records, manifest configuration, artifacts)."""
    sections: Callable[[Run[RecordT], SummaryT], list[Section]]
    """The report sections, as data; the terminal and HTML renderers draw the same ones."""
    make_record: Callable[[ScoringModel, Job[Any], PositionScores], RecordT] = bound_record
    """Turns one job's scored position into its record."""
    checks: Callable[[Sequence[RecordT]], list[Check]] | None = None
    """Label-free checks with verdicts, placed first in the summary and the report."""
    record_key: Callable[[RecordT], tuple[str, ...]] = item_and_variant
    """A record's identity within a run: what a resumed run skips."""
    scored_tokens: Callable[[RecordT], int] = context_and_options
    """How many tokens the model read for a record (the run's tokens per second)."""
    paired_metrics: (
        Callable[[Sequence[tuple[RecordT, RecordT]], int, int], list[PairedDifference]] | None
    ) = None
    """Kind-specific paired differences for ``readout compare`` (pairs, n_boot, seed)."""
    headline: Callable[[SummaryT], dict[str, float | None]] = no_headline
    """A few numbers that sum a run up, from its summary: ``readout table``'s columns (the same
    name in several kinds is one column, e.g. ``accuracy``); None where one is not measured."""
    frozen_requests: bool = False
    """The run's requests are a frozen protocol: releasing a served call of unknown outcome
    amends it (:func:`release_unknown` asks why and keeps the reason)."""
    files: tuple[str, ...] = ()
    """Files a run of this kind writes in its directory besides those every run writes
    (manifest, records, summary, artifacts, ledger): overwriting the run deletes them too."""

    def summary(self, run: Run[Any]) -> SummaryT:
        """The kind's summary of a run's files, with its checks."""
        typed = run.of(self.record_type)
        summary = self.summarise(typed)
        if self.checks is not None:
            summary = summary.model_copy(update={"checks": self.checks(typed.records)})
        return summary
