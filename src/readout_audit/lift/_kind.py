"""The ``lift`` audit kind: registered once, found by the runner, reports and compare."""

from __future__ import annotations

from collections.abc import Sequence

from readout_audit.kind import AuditKind, register_kind
from readout_audit.lift._checks import lift_checks
from readout_audit.lift._record import LiftRecord, scored_tokens
from readout_audit.lift._report import lift_sections
from readout_audit.lift._rules import HEADLINE, score_tokens
from readout_audit.lift._summary import LiftSummary, summarise_lift_run
from readout_audit.log import Run
from readout_audit.report import PairedDifference, mean_difference


def lift_paired_metrics(
    pairs: Sequence[tuple[LiftRecord, LiftRecord]], n_boot: int, seed: int
) -> list[PairedDifference]:
    """Mean clipLL_2 and raw score of one condition in two runs (two scorers), paired by cut."""
    clusters = [a.cluster for a, _ in pairs]
    return [
        mean_difference(
            f"{rule} (mean over cuts)",
            [score_tokens(a.target_logprobs, rule).score for a, _ in pairs],
            [score_tokens(b.target_logprobs, rule).score for _, b in pairs],
            clusters,
            n_boot,
            seed,
        )
        for rule in (HEADLINE, "raw")
    ]


def summarise_lift(run: Run[LiftRecord]) -> LiftSummary:
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
    paired_metrics=lift_paired_metrics,
)
register_kind(LIFT)
