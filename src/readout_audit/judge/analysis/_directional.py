"""Directional cue tests (seed 004's reference-switch design): sign flips joined by IUT, Holm.

A cue that raises the weight of earlier content should raise correctness where that content
matches the reference (differences d_X > 0) and lower it where it conflicts (d_Y < 0). Each
direction has an exact one-sided source sign-flip p-value (all 2ⁿ assignments, n ≤ 24); both
must hold, so the comparison's p is their maximum (intersection–union), and Holm covers every
comparison of the family. With k nonzero differences the smallest attainable one-sided p is
2⁻ᵏ: five nonzero differences floor a comparison at .03125, .0625 at Holm rank 3 of 4.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from pydantic import BaseModel, ConfigDict

from readout_audit.stats import holm, intersection_union_test, sign_flip_test


class DirectionalResult(BaseModel):
    """One cue comparison: its two directional p-values, their IUT p and its Holm value."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    n: int
    p_increase: float
    """One-sided sign-flip p of mean d_X > 0."""
    p_decrease: float
    """One-sided sign-flip p of mean d_Y < 0."""
    p_raw: float
    p_holm: float
    unresolved: int = 0
    """Sources whose d_X or d_Y is unknown: any one makes the comparison unavailable, p = 1."""


def directional_family(
    comparisons: Mapping[str, tuple[Sequence[float | None], Sequence[float | None]]],
) -> list[DirectionalResult]:
    """Per named comparison (d_X, d_Y) per source: the IUT p, Holm-adjusted over all of them.

    A comparison with an unresolved source contrast (None or NaN), or with no source at all (a
    configuration of the family that was not run), is unavailable: it keeps its slot in the
    family with p = 1, as the paper's full-panel protocol assigns.
    """
    found = []
    for name, (increase, decrease) in comparisons.items():
        if len(increase) != len(decrease):
            raise ValueError(
                f"Expected one d_X and one d_Y per source in {name!r}, but got "
                f"{len(increase)} and {len(decrease)}"
            )
        missing = sum(
            not (_known(x) and _known(y)) for x, y in zip(increase, decrease, strict=True)
        )
        if missing or not increase:
            found.append((name, len(increase), 1.0, 1.0, 1.0, missing))
            continue
        up = sign_flip_test(increase, "greater").p_value
        down = sign_flip_test(decrease, "less").p_value
        found.append((name, len(increase), up, down, intersection_union_test(up, down), 0))
    adjusted = holm([row[4] for row in found]).tolist() if found else []
    return [
        DirectionalResult(
            name=name,
            n=n,
            p_increase=up,
            p_decrease=down,
            p_raw=p,
            p_holm=float(a),
            unresolved=missing,
        )
        for (name, n, up, down, p, missing), a in zip(found, adjusted, strict=True)
    ]


def _known(value: float | None) -> bool:
    """A resolved contrast: a number, not None or NaN."""
    return value is not None and not math.isnan(value)
