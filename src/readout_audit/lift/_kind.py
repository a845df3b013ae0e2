"""The ``lift`` audit kind: registered once, found by the runner, reports and compare."""

from __future__ import annotations

from readout_audit.kind._kind import AuditKind
from readout_audit.kind._registry import register_kind
from readout_audit.lift._checks import lift_checks
from readout_audit.lift._record import LiftRecord, scored_tokens
from readout_audit.lift._report import lift_sections
from readout_audit.lift._summary import LiftSummary, summarise_lift_run
from readout_audit.log._run import Run


def summarise_lift(run: Run) -> LiftSummary:
    """The run's summary with its checks."""
    summary = summarise_lift_run(run)
    return summary.model_copy(update={"checks": lift_checks(summary)})


LIFT: AuditKind[LiftRecord, LiftSummary] = AuditKind(
    name="lift",
    title="likelihood lift",
    record_type=LiftRecord,
    summary_type=LiftSummary,
    summarise=summarise_lift,
    sections=lift_sections,
    scored_tokens=scored_tokens,
)
register_kind(LIFT)
