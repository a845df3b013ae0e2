"""The formatting pilot's analysis (seed 004, Section F.3): the score interaction T.

T = [(R: − R) − (colon − blank)]_X − [(R: − R) − (colon − blank)]_Z on displayed p(correct),
the final value wrong in all eight cells, per complete source block, averaged with equal
dataset weights; one centred bootstrap test per configuration, Holm-adjusted across them
(the primary family), with the planned panel's bounds. The cell means over the same complete
blocks and weights reconstruct T (Table 13). The native R:/R comparison with X is an exact
McNemar test outside the family (6/0 → .03125).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from readout_audit.judge.analysis._contrasts import (
    ContrastTest,
    StudyCellCount,
    StudyGate,
    cell_count,
    contrast_slot,
    contrast_values,
    qualify_slots,
    run_family,
    study_frame,
    study_gate,
)
from readout_audit.judge.analysis._panel import weighted_mean
from readout_audit.judge.analysis._settings import JudgeAnalysisSettings
from readout_audit.judge.protocol import (
    GATED_CONTROLS,
    PILOT_BRIDGES,
    PILOT_DESCRIPTIVE,
    PILOT_PRIMARY,
    PREFIXES,
    JudgeRecord,
    cell,
)


class CellMean(BaseModel):
    """One cell's weighted mean score over a configuration's complete blocks."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    configuration: str
    cell: str
    mean: float | None
    blocks: dict[str, int]
    """Complete blocks per dataset (the same for every cell)."""


class PilotAnalysis(BaseModel):
    """Gates, the T family, the cell means, acceptances and the descriptive McNemar test."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    study: Literal["formatting-pilot"] = "formatting-pilot"
    """The study it analyses: what a summary's ``study_result`` is told apart by."""

    gates: list[StudyGate]
    """The clean controls of each configuration run (one not run has none)."""
    primary: list[ContrastTest]
    cell_means: list[CellMean]
    cells: list[StudyCellCount]
    descriptive: list[ContrastTest]
    """R:/R with X per configuration: exact McNemar, unadjusted (outside the family)."""


def analyse_pilot(
    records: Sequence[JudgeRecord], settings: JudgeAnalysisSettings, family: Sequence[str]
) -> PilotAnalysis:
    """The pilot's analysis from its records (one per planned request)."""
    panel, weights, first = study_frame(records, settings, family)
    (contrast,) = PILOT_PRIMARY
    slots = [(f"{c} {contrast.name}", {"FINAL3": c}, contrast) for c in family]
    cells = [cell(p, b) for p in PREFIXES for b in PILOT_BRIDGES]
    means = []
    for c in family:
        blocks = [v for v in contrast_values(panel, {"FINAL3": c}, contrast) if v.complete]
        order = [name for _, name, _ in contrast.terms]
        for name in cells:
            k = order.index(name)
            means.append(
                CellMean(
                    configuration=c,
                    cell=name,
                    mean=weighted_mean(
                        [b.terms[k] for b in blocks], [b.dataset for b in blocks], weights
                    ),
                    blocks={d: sum(b.dataset == d for b in blocks) for d in weights},
                )
            )
    run = [c for c in family if c in panel.configurations]
    gates = [
        study_gate(c, control, [panel.get(c, s, control) for s, _ in panel.sources(c)], control)
        for c in run
        for control in GATED_CONTROLS
    ]
    descriptive = [
        contrast_slot(
            f"{c} {PILOT_DESCRIPTIVE.name}",
            PILOT_DESCRIPTIVE,
            contrast_values(panel, {"FINAL3": c}, PILOT_DESCRIPTIVE),
            weights,
            seed=first + len(family) + k,
            settings=settings,
        )
        for k, c in enumerate(family)
    ]
    return PilotAnalysis(
        gates=gates,
        primary=qualify_slots(run_family(panel, slots, settings, weights, first), family, gates),
        cell_means=means,
        cells=[cell_count(panel, c, name) for c in run for name in (*cells, *GATED_CONTROLS)],
        descriptive=qualify_slots(descriptive, family, gates),
    )
