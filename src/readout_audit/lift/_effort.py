"""Lift against the predictor's token use (seed 001, Table 7 and Figure 1's bottom right).

Each forecast may carry the tokens its predictor generated and the hidden reasoning tokens it
reports (an API's reasoning-token count, or the tokens of a local model's thinking block);
a lift run keeps them per forecast. Per setting: the mean of each over the cuts its lift is
computed on, beside that lift.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from readout_audit.lift._lift_stats import Contrast, FrozenRow

TokenCounts = Mapping[str, Mapping[str, Mapping[str, int | None]]]
"""cut id → setting → ``{"output": n, "reasoning": n}`` (either may be None: not reported)."""


class EffortRow(FrozenRow):
    """One setting's token use and lift (a row of Table 7, a point of Figure 1)."""

    setting: str
    lift: Contrast
    reasoning_tokens: float | None
    """Mean hidden reasoning tokens over the cuts that report them (None: none does)."""
    output_tokens: float | None
    """Mean generated tokens over the cuts that report them."""
    reported: int
    """Cuts of the lift whose forecast reports reasoning tokens."""


def _mean(values: Sequence[int]) -> float | None:
    return float(np.mean(values)) if values else None


def effort_row(setting: str, lift: Contrast, cuts: Sequence[str], counts: TokenCounts) -> EffortRow:
    """The setting's mean token counts over ``cuts`` (those its lift uses) beside its lift."""
    found = [counts.get(cut, {}).get(setting, {}) for cut in cuts]
    reasoning = [c["reasoning"] for c in found if c.get("reasoning") is not None]
    output = [c["output"] for c in found if c.get("output") is not None]
    return EffortRow(
        setting=setting,
        lift=lift,
        reasoning_tokens=_mean([int(v) for v in reasoning if v is not None]),
        output_tokens=_mean([int(v) for v in output if v is not None]),
        reported=len(reasoning),
    )
