"""Held-out splits regenerated at other generator seeds, aggregated (seed 003, Tables 23-27).

A split named ``NAME@SEED`` is split ``NAME`` drawn from generator seed ``SEED`` with the fit
and training splits unchanged (the paper's stress splits: "regenerating the evaluation splits
with new lexical-OOD seeds", 52, 62 and 72). Splits sharing a name are summarised together:
means and sample sd over the seeds, minima at the worst seed, so a recovery is shown to be a
property of the model rather than of one draw of the data.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from readout_audit.recover._summary import PriorResult, SeedAggregate, SplitResult

SEEDED = re.compile(r"(?P<name>.+)@(?P<seed>[0-9]{1,19})")
"""A held-out split's name with the generator seed it was drawn from (ASCII digits, 64 bits)."""


def seeded_name(name: str) -> tuple[str, int] | None:
    """(NAME, SEED) of a ``NAME@SEED`` split name, or None for any other name."""
    found = SEEDED.fullmatch(name)
    return (found["name"], int(found["seed"])) if found else None


def _mean_sd(values: Sequence[float]) -> tuple[float, float]:
    sd = float(np.std(values, ddof=1)) if len(values) > 1 else 0.0
    return float(np.mean(values)), sd


def _widest(priors: Sequence[PriorResult]) -> PriorResult | None:
    return max(priors, key=lambda p: p.radius) if priors else None


def seed_aggregates(splits: Sequence[SplitResult]) -> list[SeedAggregate]:
    """One row per name with two or more ``NAME@SEED`` splits, in order of first appearance."""
    groups: dict[str, list[tuple[int, SplitResult]]] = {}
    for split in splits:
        found = seeded_name(split.split)
        if found is not None:
            groups.setdefault(found[0], []).append((found[1], split))
    return [_aggregate(name, rows) for name, rows in groups.items() if len(rows) > 1]


def _aggregate(name: str, rows: list[tuple[int, SplitResult]]) -> SeedAggregate:
    recoveries = [s.recovery for _, s in rows]
    aggregate = SeedAggregate(
        split=name,
        seeds=[seed for seed, _ in rows],
        n=[s.n for _, s in rows],
        raw=_mean_sd([r.raw_accuracy for r in recoveries]),
        corrected=_mean_sd([r.corrected_accuracy for r in recoveries]),
        min_gain=min(r.corrected_accuracy - r.raw_accuracy for r in recoveries),
        null_gap=float(np.mean([s.null.gap for _, s in rows])),
        macro_f1=float(np.mean([r.corrected_macro_f1 for r in recoveries])),
    )
    slices = [s.tfidf for _, s in rows]
    if any(t is None or t.recovery is None or t.null is None for t in slices):
        return aggregate
    kept = [t for t in slices if t is not None]
    tfidf = [t.recovery for t in kept if t.recovery is not None]
    nulls = [t.null for t in kept if t.null is not None]
    widest = [w for t in kept if (w := _widest(t.priors)) is not None]
    priors = {}
    if len(widest) == len(kept):
        priors = {
            "tfidf_worst_prior": min(p.worst_accuracy for p in widest),
            "tfidf_median_prior": float(np.mean([p.median_accuracy for p in widest])),
            "tfidf_worst_prior_gain": min(p.worst_gain for p in widest),
        }
    return aggregate.model_copy(
        update={
            "tfidf_n": _mean_sd([float(t.n_missed) for t in kept]),
            "tfidf_raw": float(np.mean([r.raw_accuracy for r in tfidf])),
            "tfidf_corrected": _mean_sd([r.corrected_accuracy for r in tfidf]),
            "tfidf_min_gain": min(r.corrected_accuracy - r.raw_accuracy for r in tfidf),
            "tfidf_null_gap": float(np.mean([n.gap for n in nulls])),
            "tfidf_null_accuracy": float(np.mean([n.null_mean for n in nulls])),
            "tfidf_macro_f1": float(np.mean([r.corrected_macro_f1 for r in tfidf])),
            "tfidf_p_max": max(n.p_value for n in nulls),
            **priors,
        }
    )
