"""The ladder's headline for ``readout table``: option mass and log-likelihood accuracy."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from readout_audit.kind._headline import VariantMass, mass_headline

if TYPE_CHECKING:
    from readout_audit.options._audit import LadderRung, OptionsSummary


def ladder_headline(variants: Mapping[str, LadderRung]) -> dict[str, float | None]:
    """The lowest median option mass of the rungs, the share below the floor, and accuracy.

    Accuracy is lm-evaluation-harness's (the option of highest log-likelihood), where the
    items have gold answers.
    """
    return mass_headline(
        [
            VariantMass(
                median=rung.median_mass,
                n_below_floor=rung.below_floor,
                n_measured=rung.n_mass_measured,
                accuracy=rung.accuracy.loglik.estimate if rung.accuracy else None,
                n_judged=rung.accuracy.loglik.n if rung.accuracy else 0,
            )
            for rung in variants.values()
        ]
    )


def options_headline(summary: OptionsSummary) -> dict[str, float | None]:
    """The constrained-option audit's headline: its ladder's (:func:`ladder_headline`)."""
    return ladder_headline(summary.variants)
