"""Per-cut distributions (seed 001, Figure 2) and the hardest-slice heuristic (Section 9).

Figure 2 draws, per forecast setting, the empirical distribution of its per-cut lift over the
same-budget recent context, medians marked: a shift through the median region, not a few
right-tail wins. Section 9's heuristic keeps the 20% of cuts on which one setting (the paper:
GPT-5.5 without reasoning) has the lowest lift, and compares the other settings there.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from readout_audit._exceptions import InputError
from readout_audit.lift._lift_stats import Contrast, CutScores, FrozenRow, paired_contrast

QUANTILES = (0.10, 0.25, 0.50, 0.75, 0.90)
"""The quantiles a distribution row lists (the median among them)."""
HARDEST = 0.20
"""Section 9: the share of cuts kept, those with the selecting setting's lowest lift."""


class Distribution(FrozenRow):
    """The per-cut values of one condition (its score) or one setting (its lift)."""

    name: str
    n_cuts: int
    mean: float
    median: float
    quantiles: dict[str, float]
    """``q10`` … ``q90``: numpy's linear-interpolation quantiles."""
    minimum: float
    maximum: float
    values: list[float]
    """The per-cut values, sorted (the empirical CDF Figure 2 draws)."""


class SliceContrast(FrozenRow):
    """A setting contrast a − b on every cut and on the hardest slice."""

    a: str
    b: str
    full: Contrast
    hardest: Contrast
    selected_on: bool
    """The contrast involves the selecting setting: biased by the selection, shown apart."""


class HardestSlice(FrozenRow):
    """Section 9's slice: the cuts with the selector's lowest lift, and the contrasts there."""

    selector: str
    control: str
    fraction: float
    n_cuts: int
    """Cuts in the slice: ⌈fraction · n⌉ of the n cuts with the selector's lift."""
    threshold: float
    """The largest selector lift in the slice."""
    cuts: list[str]
    contrasts: list[SliceContrast]


def distribution(name: str, values: Sequence[float]) -> Distribution:
    """Mean, median, quantiles and extremes of per-cut values."""
    array = np.sort(np.asarray(values, dtype=np.float64))
    if array.size == 0:
        raise InputError(f"{name!r} has no cuts to describe", field="values")
    return Distribution(
        name=name,
        n_cuts=int(array.size),
        mean=float(array.mean()),
        median=float(np.median(array)),
        quantiles={f"q{round(q * 100)}": float(np.quantile(array, q)) for q in QUANTILES},
        minimum=float(array[0]),
        maximum=float(array[-1]),
        values=array.tolist(),
    )


def per_cut_lift(scores: CutScores, a: str, b: str) -> dict[str, float]:
    """The difference a − b on every cut both conditions have, by cut id (sorted)."""
    shared = sorted(scores[a].keys() & scores[b].keys())
    return {cut: scores[a][cut] - scores[b][cut] for cut in shared}


def hardest_slice(
    scores: CutScores,
    papers: Mapping[str, str],
    selector: str,
    pairs: Sequence[tuple[str, str]],
    control: str,
    *,
    fraction: float = HARDEST,
) -> HardestSlice:
    """Each pair's contrast on every cut and on the cuts where ``selector`` lifts least.

    The slice is the ⌈fraction · n⌉ cuts with ``selector``'s lowest lift over ``control``
    (ties broken by cut id). Conditions are named as in ``scores``; every contrast uses the
    cuts its own two conditions share, on the slice and off it.
    """
    if not 0 < fraction < 1:
        raise InputError(f"must be between 0 and 1, got {fraction}", field="fraction")
    lift = per_cut_lift(scores, selector, control)
    if not lift:
        raise InputError(f"{selector!r} shares no cut with {control!r}", field="selector")
    ranked = sorted(lift, key=lambda cut: (lift[cut], cut))
    kept = sorted(ranked[: math.ceil(fraction * len(ranked))])
    chosen = set(kept)

    def contrast(a: str, b: str, among: set[str] | None) -> Contrast:
        cuts = sorted(
            cut for cut in scores[a].keys() & scores[b].keys() if among is None or cut in among
        )
        if not cuts:
            raise InputError(f"{a!r} − {b!r} has no cut in the slice", field="pairs")
        return paired_contrast(
            [scores[a][c] for c in cuts], [scores[b][c] for c in cuts], [papers[c] for c in cuts]
        )

    return HardestSlice(
        selector=selector,
        control=control,
        fraction=fraction,
        n_cuts=len(kept),
        threshold=max(lift[cut] for cut in kept),
        cuts=kept,
        contrasts=[
            SliceContrast(
                a=a,
                b=b,
                full=contrast(a, b, None),
                hardest=contrast(a, b, chosen),
                selected_on=selector in (a, b),
            )
            for a, b in pairs
        ],
    )
