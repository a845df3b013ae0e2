"""The reference switch's per-source effects (seed 004, Section 6): d_X, d_Y and S.

The same candidate is graded in two reference worlds: the trusted reference assigns the
candidate's earlier value X, or its final value Y. Its readouts are conditional correctness
q_c = p_c / (p_c + p_i), which removes the third label's mass, or logit(q_c) = log(p_c / p_i)
where both are positive (:mod:`._scores`). Per source, a cue's effect in a world is its
cue-minus-control difference averaged over the passes; d_X and d_Y feed
:func:`directional_family`, and S, the half-difference of the log-ratio effects across the
worlds, describes the effect on a scale that does not saturate.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from readout_audit.stats import bootstrap_ci

SWITCH_BOOTSTRAP_DRAWS = 20_000
"""The paper's paired source bootstrap draws for the descriptive intervals."""


def world_effect(cue: Sequence[float | None], control: Sequence[float | None]) -> float | None:
    """One source's cue-minus-control difference in one world, averaged over its passes.

    ``cue`` and ``control`` hold the readout of each pass; any unresolved pass leaves the
    source's effect unresolved (None), never an average of the passes that answered.
    """
    if len(cue) != len(control) or not cue:
        raise ValueError(
            f"Expected one cue and one control per pass, got {len(cue)} and {len(control)}"
        )
    pairs = [(c, k) for c, k in zip(cue, control, strict=True) if c is not None and k is not None]
    if len(pairs) < len(cue):
        return None
    return sum(c - k for c, k in pairs) / len(pairs)


class HalfDifference(BaseModel):
    """S = mean over sources of (effect under X − effect under Y) / 2, with its interval."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    estimate: float | None
    low: float | None
    high: float | None
    n: int
    """Sources with both world effects resolved (the interval's resampling units)."""
    unresolved: int


def half_difference(
    under_x: Sequence[float | None],
    under_y: Sequence[float | None],
    *,
    n_boot: int = SWITCH_BOOTSTRAP_DRAWS,
    seed: int = 0,
) -> HalfDifference:
    """S and its paired source-bootstrap 95% interval (descriptive, complete sources only)."""
    if len(under_x) != len(under_y):
        raise ValueError(
            f"Expected one effect per source in each world, got {len(under_x)} and {len(under_y)}"
        )
    halves = [
        (x - y) / 2
        for x, y in zip(under_x, under_y, strict=True)
        if x is not None and y is not None
    ]
    unresolved = len(under_x) - len(halves)
    if not halves:
        return HalfDifference(estimate=None, low=None, high=None, n=0, unresolved=unresolved)
    interval = bootstrap_ci(halves, n_boot=n_boot, seed=seed)
    return HalfDifference(
        estimate=interval.estimate,
        low=interval.low,
        high=interval.high,
        n=len(halves),
        unresolved=unresolved,
    )
