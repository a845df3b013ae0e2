"""The lm-eval audit's headline for ``readout table``: lm-eval's acc per task beside the mass."""

from __future__ import annotations

from typing import TYPE_CHECKING

from readout_audit.kind import ACCURACY
from readout_audit.options import ladder_headline

if TYPE_CHECKING:
    from readout_audit.lmeval._summary import LMEvalSummary


def lm_eval_headline(summary: LMEvalSummary) -> dict[str, float | None]:
    """lm-eval's context's option mass, acc over all documents, and acc and acc_norm per task.

    ``accuracy`` is lm-eval's acc over every scored document of the run (each task weighted by
    its documents); ``acc TASK`` and ``acc_norm TASK`` are lm-eval's per task and group, the
    numbers its results table shows.
    """
    headline = ladder_headline(summary.variants)
    scored = [row.acc for row in summary.tasks if row.acc is not None]
    n = sum(acc.n for acc in scored)
    headline[ACCURACY] = sum(acc.estimate * acc.n for acc in scored) / n if n else None
    for row in [*summary.tasks, *summary.groups]:
        headline[f"acc {row.name}"] = None if row.acc is None else row.acc.estimate
        headline[f"acc_norm {row.name}"] = None if row.acc_norm is None else row.acc_norm.estimate
    return headline
