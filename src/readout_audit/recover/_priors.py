"""Target priors perturbed around uniform, and held-out accuracy under each (seed 003, §4.5).

The paper reports 7, 19 and 61 priors for radii 0.025, 0.050 and 0.100: the points of a
triangular lattice of step 0.025 around uniform, π = 1/k + step·v with integer v, Σv = 0 and
max |v_y|·step ≤ radius (for three labels, the hexagonal numbers). Each prior gets its own
offset fit on the unlabelled fit scores, judged on the held-out split. The lattice of a radius
holds every smaller one, so the fits of the widest radius serve each radius (Tables 19, 36, 39)
and each slice of the held-out split (the TF-IDF-missed one) alike.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from readout_audit._exceptions import InputError
from readout_audit.recover._evaluate import _labels, macro_f1
from readout_audit.recover._offsets import OffsetGrid, corrected_predictions, fit_offsets

PRIOR_STEP = 0.025
"""Spacing of the prior lattice."""
PRIOR_RADIUS = 0.10
"""Largest per-label distance from uniform (the paper's widest setting, 61 priors)."""
PRIOR_RADII = (0.025, 0.05, 0.10)
"""The radii the paper reports (7, 19 and 61 priors)."""
_MAX_LATTICE = 1_000_000
"""Largest number of integer vectors one lattice may enumerate ((2·radius/step + 1)^(k−1))."""
_SLACK = 1e-9
"""A radius within this many steps of a lattice ring includes the ring (0.1/0.025 is 4)."""


def perturbed_priors(
    k: int = 3, radius: float = PRIOR_RADIUS, step: float = PRIOR_STEP
) -> np.ndarray:
    """The lattice priors within ``radius`` of uniform, shape (priors, k), uniform first.

    Then ring by ring (max |v_y|), lexicographically by v within a ring; a prior with a negative
    entry is dropped (an entry within 1e-12 of 0 counts as 0).
    """
    if not isinstance(k, int | np.integer) or k < 2:
        raise InputError(f"a prior needs at least 2 labels, got {k!r}", field="k")
    if not (math.isfinite(step) and step > 0):
        raise InputError(f"the prior step must be a positive number, got {step}", field="step")
    if not (math.isfinite(radius) and radius >= 0):
        raise InputError(f"the prior radius must be at least 0, got {radius}", field="radius")
    reach = math.floor(radius / step + _SLACK)
    if (2 * reach + 1) ** (k - 1) > _MAX_LATTICE:
        raise InputError(
            f"{2 * reach + 1}^{k - 1} lattice vectors exceed {_MAX_LATTICE:,}: "
            "use a smaller radius or a larger step",
            field="radius",
        )
    head = np.array(list(itertools.product(range(-reach, reach + 1), repeat=k - 1)), dtype=int)
    vectors = np.column_stack([head, -head.sum(axis=1)])
    vectors = vectors[np.abs(vectors[:, -1]) <= reach]
    vectors = vectors[np.argsort(np.abs(vectors).max(axis=1), kind="stable")]
    priors = 1.0 / k + step * vectors
    priors = priors[np.all(priors >= -1e-12, axis=1)]
    return np.asarray(np.maximum(priors, 0.0))


@dataclass(frozen=True)
class PriorSensitivity:
    """Held-out accuracy and macro-F1 of offsets fitted under each perturbed prior."""

    priors: np.ndarray
    """(priors, labels), as ``perturbed_priors`` lists them."""
    accuracies: np.ndarray
    macro_f1s: np.ndarray
    offsets: np.ndarray
    """(priors, labels): the offsets each prior's fit chose."""
    raw_accuracy: float
    step: float = PRIOR_STEP

    @property
    def radius(self) -> float:
        """The largest per-label distance from uniform among the priors."""
        k = self.priors.shape[1]
        return float(np.abs(self.priors - 1.0 / k).max())

    def within(self, radius: float) -> PriorSensitivity:
        """The priors whose lattice ring lies within ``radius`` of uniform (uniform included)."""
        k = self.priors.shape[1]
        rings = np.rint(np.abs(self.priors - 1.0 / k).max(axis=1) / self.step)
        kept = rings <= math.floor(radius / self.step + _SLACK)
        return PriorSensitivity(
            self.priors[kept],
            self.accuracies[kept],
            self.macro_f1s[kept],
            self.offsets[kept],
            self.raw_accuracy,
            self.step,
        )

    def judged_on(self, scores: np.ndarray, labels: np.ndarray) -> PriorSensitivity:
        """The same fits judged on other held-out rows, such as a slice of the split."""
        table = np.asarray(scores, dtype=np.float64)
        return _judged(self.priors, self.offsets, table, _labels(table, labels), self.step)

    @property
    def n_priors(self) -> int:
        """How many priors were tried."""
        return int(self.priors.shape[0])

    @property
    def worst_accuracy(self) -> float:
        """The lowest held-out accuracy over the priors."""
        return float(self.accuracies.min())

    @property
    def median_accuracy(self) -> float:
        """The median held-out accuracy over the priors."""
        return float(np.median(self.accuracies))

    @property
    def worst_gain(self) -> float:
        """Worst accuracy minus the raw argmax's accuracy (the paper's "Worst Δ")."""
        return self.worst_accuracy - self.raw_accuracy

    @property
    def worst_macro_f1(self) -> float:
        """The lowest held-out macro-F1 over the priors."""
        return float(self.macro_f1s.min())


def prior_sensitivity(
    fit_scores: np.ndarray,
    eval_scores: np.ndarray,
    eval_labels: Sequence[int] | np.ndarray,
    *,
    radius: float = PRIOR_RADIUS,
    step: float = PRIOR_STEP,
    reference: int | None = None,
    grid: OffsetGrid | None = None,
) -> PriorSensitivity:
    """Offsets fitted on the unlabelled fit scores under each perturbed prior, judged held out."""
    fit_table = np.asarray(fit_scores, dtype=np.float64)
    eval_table = np.asarray(eval_scores, dtype=np.float64)
    if fit_table.ndim != 2 or eval_table.ndim != 2 or fit_table.shape[1] != eval_table.shape[1]:
        raise InputError(
            f"fit scores {fit_table.shape} and held-out scores {eval_table.shape} must have "
            "the same labels (columns)",
            field="eval_scores",
        )
    gold = _labels(eval_table, eval_labels)
    priors = perturbed_priors(eval_table.shape[1], radius, step)
    fits = [fit_offsets(fit_table, prior, reference=reference, grid=grid) for prior in priors]
    return _judged(priors, np.array([fit.offsets for fit in fits]), eval_table, gold, step)


def _judged(
    priors: np.ndarray, offsets: np.ndarray, table: np.ndarray, gold: np.ndarray, step: float
) -> PriorSensitivity:
    k = table.shape[1]
    predictions = [corrected_predictions(table, row) for row in offsets]
    raw = corrected_predictions(table, np.zeros(k))
    return PriorSensitivity(
        priors=priors,
        accuracies=np.array([np.mean(p == gold) for p in predictions]),
        macro_f1s=np.array([macro_f1(p, gold, k) for p in predictions]),
        offsets=offsets,
        raw_accuracy=float(np.mean(raw == gold)),
        step=step,
    )
