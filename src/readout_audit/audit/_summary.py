"""Run-level aggregates of score records, computed from the records alone."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from readout_audit.log._record import ScoreRecord

MASS_FLOOR = 0.5
"""The diagnostic floor: a median option mass below it is collapse."""


def predicted_option(record: ScoreRecord) -> str | None:
    """The option with the highest full-option log-likelihood, or None if any is unscored."""
    if any(lp is None for lp in record.option_logprobs):
        return None
    scores = [lp for lp in record.option_logprobs if lp is not None]
    return record.options[int(np.argmax(scores))]


def target_matches(record: ScoreRecord, option: str) -> bool:
    """Whether an option is the record's target (as text, or as a number)."""
    target = record.target
    if isinstance(target, str):
        return option.strip() == target.strip()
    if isinstance(target, float | int) and not isinstance(target, bool):
        try:
            return float(option) == float(target)
        except ValueError:
            return False
    return False


def _mass_summary(records: Sequence[ScoreRecord]) -> dict[str, Any]:
    masses = np.array([r.option_mass for r in records if r.option_mass is not None], dtype=float)
    if masses.size == 0:
        return {"n_measured": 0, "floor": MASS_FLOOR, "collapse": None}
    median = float(np.median(masses))
    return {
        "n_measured": int(masses.size),
        "median": median,
        "min": float(masses.min()),
        "max": float(masses.max()),
        "n_below_floor": int((masses < MASS_FLOOR).sum()),
        "floor": MASS_FLOOR,
        "collapse": median < MASS_FLOOR,
    }


def summarise(records: Sequence[ScoreRecord]) -> dict[str, Any]:
    """Aggregates per variant: option mass, boundary and first-token defects, argmax, accuracy."""
    variants: dict[str, Any] = {}
    for variant in sorted({r.variant for r in records}):
        group = [r for r in records if r.variant == variant]
        targeted = [r for r in group if r.target is not None]
        predictions = [(r, predicted_option(r)) for r in targeted]
        judged = [target_matches(r, p) for r, p in predictions if p is not None]
        variants[variant] = {
            "n": len(group),
            "option_mass": _mass_summary(group),
            "n_boundary_not_preserved": sum(not r.boundary_preserved for r in group),
            "n_shared_first_tokens": sum(r.distinct_first_tokens is False for r in group),
            "argmax_is_option_rate": float(np.mean([r.argmax_is_option for r in group])),
            "endings": dict(Counter(r.ending for r in group)),
            "accuracy": float(np.mean(judged)) if judged else None,
            "n_scored_against_target": len(judged),
        }
    return {
        "n_records": len(records),
        "n_items": len({r.item_id for r in records}),
        "variants": variants,
    }
