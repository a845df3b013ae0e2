"""The typed summary of a lift run (placeholder until the statistics land)."""

from __future__ import annotations

from readout_audit.lift._record import LiftRecord
from readout_audit.log._run import Run
from readout_audit.log._summary import Summary


class LiftSummary(Summary):
    """Every table of a lift run, from its records alone."""


def summarise_lift_run(run: Run) -> LiftSummary:
    """The summary from the run's records."""
    records = [r for r in run.records if isinstance(r, LiftRecord)]
    return LiftSummary(
        kind=run.manifest.kind, n_records=len(records), n_items=len({r.item_id for r in records})
    )
