"""Whether a logged lm-eval run's log-likelihoods are reproduced by the model re-scoring them."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict

from readout_audit.lmeval._record import LMEvalRecord
from readout_audit.log import Check
from readout_audit.model import ModelInfo, float32_budget, tolerance_for

HALF_PRECISION_TOLERANCE = 0.05
"""For a logged run or a model in bfloat16 or float16 (conformance's bound for those types)."""


def default_tolerance(info: ModelInfo, n_tokens: int) -> float:
    """How far a re-scored log-likelihood may be from a logged one and still reproduce it.

    A served model: its conformance verdict's tolerance for its weights type (the loosest
    listed without one); a half-precision model: 0.05; a float32 model: the float32 budget.
    """
    if info.served is not None:
        found = info.served.get("tolerance")
        return float(found) if isinstance(found, int | float) else tolerance_for("unknown")
    if info.dtype in ("bfloat16", "float16", "torch.bfloat16", "torch.float16"):
        return HALF_PRECISION_TOLERANCE
    return float32_budget(n_tokens)


class Reproduction(BaseModel):
    """How far a logged lm-eval run's log-likelihoods are from this model's, on one task."""

    model_config = ConfigDict(extra="forbid")

    n_compared: int
    max_abs_diff: float | None
    tolerance: float
    """The largest tolerance of the documents compared (each has its own)."""
    n_beyond_tolerance: int
    reproduced: bool
    decision_changes: list[str]
    """Documents whose acc pick (the highest log-likelihood) differs from the logged run's."""
    logged_acc: float | None
    """The logged run's mean acc over these documents."""


def reproduction(records: Sequence[LMEvalRecord]) -> Reproduction | None:
    """Re-scored against logged log-likelihoods, where the records carry logged ones."""
    logged = [r for r in records if r.logged_logliks is not None]
    if not logged:
        return None
    diffs, beyond, changes = [], 0, []
    for record in logged:
        ours = record.option_logprobs
        theirs = record.logged_logliks or []
        if None in ours or len(ours) != len(theirs):
            beyond += 1
            changes.append(record.item_id)
            continue
        gap = max(abs(float(a or 0.0) - b) for a, b in zip(ours, theirs, strict=True))
        diffs.append(gap)
        beyond += gap > (record.tolerance or 0.0)
        if int(np.argmax([float(a or 0.0) for a in ours])) != int(np.argmax(theirs)):
            changes.append(record.item_id)
    accs = [r.logged_metrics["acc"] for r in logged if "acc" in r.logged_metrics]
    return Reproduction(
        n_compared=len(logged),
        max_abs_diff=max(diffs) if diffs else None,
        tolerance=max(r.tolerance or 0.0 for r in logged),
        n_beyond_tolerance=beyond,
        reproduced=beyond == 0 and not changes,
        decision_changes=changes,
        logged_acc=float(np.mean(accs)) if accs else None,
    )


def reproduction_check(task: str, records: Sequence[LMEvalRecord]) -> Check | None:
    """``reproduced TASK``: fails when the logged numbers are not this model's."""
    found = reproduction(records)
    if found is None:
        return None
    evidence = found.model_dump()
    if found.reproduced:
        return Check(
            f"reproduced {task}",
            "pass",
            f"{task}: every logged log-likelihood of {found.n_compared} documents is reproduced "
            f"(largest difference {found.max_abs_diff:.3g}, tolerance {found.tolerance:.3g})",
            evidence,
        )
    named = ", ".join(found.decision_changes[:5]) or "none"
    return Check(
        f"reproduced {task}",
        "fail",
        f"{task}: the logged run is not reproduced: {found.n_beyond_tolerance} of "
        f"{found.n_compared} documents differ beyond the tolerance, and "
        f"{len(found.decision_changes)} change their decision ({named})",
        evidence,
        "Check that the model, its revision, dtype and the lm-eval version are the logged run's; "
        "its audit numbers below are not those of the logged run.",
    )
