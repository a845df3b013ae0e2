"""Accuracy against gold answers per rung, by two readouts of the same scored position."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict

from readout_audit.log import Interval
from readout_audit.options._record import OptionsRecord
from readout_audit.stats import bootstrap_ci, resampling_clusters


class RungAccuracy(BaseModel):
    """Share of a rung's items whose chosen option is the gold answer, with intervals.

    ``loglik`` chooses the option with the highest full-option log-likelihood (lm-evaluation-
    harness ``acc``); ``option_mass`` the option whose first token holds the most probability
    at the scored position. Items whose options cannot all be scored (a broken boundary) are
    left out of both and counted in ``n_unscored``.
    """

    model_config = ConfigDict(extra="forbid")

    loglik: Interval
    option_mass: Interval
    n_unscored: int


def _interval(correct: Sequence[bool], clusters: Sequence[str], n_boot: int, seed: int) -> Interval:
    values = np.asarray(correct, dtype=float)
    boot = bootstrap_ci(values, n_boot=n_boot, seed=seed, clusters=resampling_clusters(clusters))
    return Interval.from_bootstrap(boot, clusters, n_boot=n_boot)


def rung_accuracy(
    records: Sequence[OptionsRecord], *, n_boot: int = 20_000, seed: int = 0
) -> RungAccuracy | None:
    """Accuracy by log-likelihood and by option mass; None when no record has a gold answer."""
    targeted = [r for r in records if isinstance(r.target, str)]
    scored = [
        r
        for r in targeted
        if r.readout_choices.get("loglik") is not None
        and r.readout_choices.get("first_token") is not None
    ]
    if not scored:
        return None
    clusters = [r.cluster for r in scored]
    by_loglik = [r.matches_target(r.options[r.readout_choices["loglik"] or 0]) for r in scored]
    by_mass = [r.matches_target(r.options[r.readout_choices["first_token"] or 0]) for r in scored]
    return RungAccuracy(
        loglik=_interval(by_loglik, clusters, n_boot, seed),
        option_mass=_interval(by_mass, clusters, n_boot, seed),
        n_unscored=len(targeted) - len(scored),
    )
