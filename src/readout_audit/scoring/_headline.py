"""The scoring run's headline for ``readout table``: option mass and accuracy."""

from __future__ import annotations

from readout_audit.kind import VariantMass, mass_headline
from readout_audit.scoring._summary import ScoreSummary


def score_headline(summary: ScoreSummary) -> dict[str, float | None]:
    """The lowest median option mass of the variants, the share below the floor, accuracy."""
    return mass_headline(
        [
            VariantMass(
                median=v.option_mass.median,
                n_below_floor=v.option_mass.n_below_floor,
                n_measured=v.option_mass.n_measured,
                accuracy=v.accuracy,
                n_judged=v.n_scored_against_target,
            )
            for v in summary.variants.values()
        ]
    )
