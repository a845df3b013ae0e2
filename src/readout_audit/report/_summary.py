"""A run's summary: summary.json when the run finished, else recomputed from its records."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from readout_audit.audit._options import summarise_options
from readout_audit.audit._ptrue import summarise_ptrue
from readout_audit.audit._summary import summarise
from readout_audit.audit._yesno_summary import summarise_yesno
from readout_audit.log._record import ScoreRecord
from readout_audit.log._run import Run

SUMMARISERS: dict[str, Callable[[Sequence[ScoreRecord]], dict[str, Any]]] = {
    "score": summarise,
    "options": summarise_options,
    "ptrue": summarise_ptrue,
    "yesno": summarise_yesno,
}
"""How each run kind's summary is computed from its records."""


def run_summary(run: Run) -> dict[str, Any]:
    """The summary on disk, or (for an interrupted run) the one its records give."""
    if run.summary is not None:
        return run.summary
    return SUMMARISERS[run.manifest.kind](run.records)
