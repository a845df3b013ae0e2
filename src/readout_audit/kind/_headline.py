"""Headline numbers shared by the kinds whose summaries hold option mass per variant."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

MEDIAN_MASS = "median mass"
BELOW_FLOOR = "below floor"
ACCURACY = "accuracy"


class VariantMass(NamedTuple):
    """What one variant's summary says of its option mass and accuracy."""

    median: float | None
    n_below_floor: int
    n_measured: int
    accuracy: float | None
    n_judged: int
    """Records behind ``accuracy``."""


def mass_headline(variants: Sequence[VariantMass]) -> dict[str, float | None]:
    """The lowest median option mass of the variants; the floor share and accuracy over all.

    The share below the floor is of the measured records, the accuracy of the judged ones, both
    pooled over the variants; None where no record is measured or judged.
    """
    measured = sum(v.n_measured for v in variants)
    judged = [v for v in variants if v.accuracy is not None and v.n_judged]
    n_judged = sum(v.n_judged for v in judged)
    return {
        MEDIAN_MASS: min((v.median for v in variants if v.median is not None), default=None),
        BELOW_FLOOR: sum(v.n_below_floor for v in variants) / measured if measured else None,
        ACCURACY: (
            sum((v.accuracy or 0.0) * v.n_judged for v in judged) / n_judged if n_judged else None
        ),
    }
