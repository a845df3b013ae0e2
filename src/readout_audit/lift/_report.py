"""Report sections of a lift run (placeholder)."""

from __future__ import annotations

from readout_audit.lift._summary import LiftSummary
from readout_audit.log._run import Run
from readout_audit.report._blocks import Section


def lift_sections(run: Run, summary: LiftSummary) -> list[Section]:
    """The lift report's sections."""
    return []
