"""The generic scoring run's typed summary, computed from its records alone."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict

from readout_audit.log import Run, ScoreRecord, Summary
from readout_audit.readout import MASS_FLOOR, token_class


class MassSummary(BaseModel):
    """Option mass over one group's records (measured where the boundary holds)."""

    model_config = ConfigDict(extra="forbid")

    n_measured: int
    median: float | None = None
    min: float | None = None
    max: float | None = None
    n_below_floor: int = 0
    floor: float = MASS_FLOOR
    collapse: bool | None = None
    """Whether the median is below the floor (None when nothing was measurable)."""


def mass_summary(records: Sequence[ScoreRecord]) -> MassSummary:
    """Median, extremes and the count below the floor of the records' option masses."""
    masses = np.array([r.option_mass for r in records if r.option_mass is not None], dtype=float)
    if masses.size == 0:
        return MassSummary(n_measured=0)
    median = float(np.median(masses))
    return MassSummary(
        n_measured=int(masses.size),
        median=median,
        min=float(masses.min()),
        max=float(masses.max()),
        n_below_floor=int((masses < MASS_FLOOR).sum()),
        collapse=median < MASS_FLOOR,
    )


def argmax_classes(records: Sequence[ScoreRecord]) -> dict[str, int]:
    """How often the unrestricted argmax is an option, a letter, whitespace, a digit, prose."""
    return dict(
        Counter(token_class(r.argmax_id, r.argmax_token, r.option_first_ids) for r in records)
    )


class VariantScores(BaseModel):
    """Aggregates of one variant's records."""

    model_config = ConfigDict(extra="forbid")

    n: int
    option_mass: MassSummary
    n_boundary_not_preserved: int
    n_shared_first_tokens: int
    argmax_is_option_rate: float
    argmax_classes: dict[str, int]
    endings: dict[str, int]
    accuracy: float | None
    """Share of targeted records whose highest-likelihood option is the target."""
    n_scored_against_target: int


class ScoreSummary(Summary):
    """A scoring run: aggregates per variant."""

    kind: str = "score"
    variants: dict[str, VariantScores]


def variant_scores(group: Sequence[ScoreRecord]) -> VariantScores:
    """Mass, boundary and first-token defects, argmax and accuracy of one variant's records."""
    targeted = [r for r in group if r.target is not None]
    predictions = [(r, r.predicted_option()) for r in targeted]
    judged = [r.matches_target(p) for r, p in predictions if p is not None]
    return VariantScores(
        n=len(group),
        option_mass=mass_summary(group),
        n_boundary_not_preserved=sum(not r.boundary_preserved for r in group),
        n_shared_first_tokens=sum(r.distinct_first_tokens is False for r in group),
        argmax_is_option_rate=float(np.mean([r.argmax_is_option for r in group])),
        argmax_classes=argmax_classes(group),
        endings=dict(Counter(r.ending for r in group)),
        accuracy=float(np.mean(judged)) if judged else None,
        n_scored_against_target=len(judged),
    )


def summarise(records: Sequence[ScoreRecord]) -> ScoreSummary:
    """Aggregates per variant: option mass, boundary and first-token defects, argmax, accuracy."""
    variants = sorted({r.variant for r in records})
    return ScoreSummary(
        n_records=len(records),
        n_items=len({r.item_id for r in records}),
        variants={v: variant_scores([r for r in records if r.variant == v]) for v in variants},
    )


def summarise_score_run(run: Run[ScoreRecord]) -> ScoreSummary:
    """The scoring run's summary from its records."""
    return summarise(run.records)
