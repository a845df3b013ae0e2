"""The ladder's headline for ``readout table``: option mass and log-likelihood accuracy."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from readout_audit.kind import VariantMass, mass_headline

if TYPE_CHECKING:
    from readout_audit.options._audit import LadderRung, OptionsSummary


PRODUCTION = "production"
"""The rung that reads the prompt as it is used: the one a run is summed up by."""


def ladder_headline(variants: Mapping[str, LadderRung]) -> dict[str, float | None]:
    """The production rung's median option mass, share below the floor, and accuracy.

    The other rungs change the prompt on purpose (some to break it), so they do not sum up
    the run; a run without a production rung is summed up over all of its rungs. Accuracy is
    lm-evaluation-harness's (the option of highest log-likelihood), where items have gold
    answers.
    """
    rungs = [variants[PRODUCTION]] if PRODUCTION in variants else list(variants.values())
    return mass_headline(
        [
            VariantMass(
                median=rung.median_mass,
                n_below_floor=rung.below_floor,
                n_measured=rung.n_mass_measured,
                accuracy=rung.accuracy.loglik.estimate if rung.accuracy else None,
                n_judged=rung.accuracy.loglik.n if rung.accuracy else 0,
            )
            for rung in rungs
        ]
    )


def options_headline(summary: OptionsSummary) -> dict[str, float | None]:
    """The constrained-option audit's headline: its ladder's (:func:`ladder_headline`)."""
    return ladder_headline(summary.variants)
