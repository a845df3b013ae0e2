"""The decomposition study's analysis (seed 004, Section F.2): two primary tests, seventeen more.

Per judge, the primary family holds I_HALL(Actual) (the prefix interaction of Actual over
blank under HALL) and the change of the Actual-minus-blank effect when HALL gains a reference
field (HALL_R); the secondary family the seventeen other cue and formatting contrasts
(``judge.protocol._studies``). Both are centred source bootstraps with equal dataset weights,
Holm-adjusted within their family across judges. Acceptance per contract and cell is the
paper's decomposition table; the witnesses follow its example-selection rule.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from readout_audit.judge.analysis._contrasts import (
    ContrastTest,
    StudyCellCount,
    StudyPanel,
    cell_count,
    run_family,
    study_frame,
)
from readout_audit.judge.analysis._scores import positive_score
from readout_audit.judge.analysis._settings import JudgeAnalysisSettings
from readout_audit.judge.protocol import (
    DECOMPOSITION_BRIDGES,
    DECOMPOSITION_CONTROLS,
    DECOMPOSITION_PRIMARY,
    DECOMPOSITION_SECONDARY,
    PREFIXES,
    Contrast,
    JudgeRecord,
    cell,
)

WITNESS_CELLS: dict[str, tuple[str, str, str, str | None]] = {
    "HALL prefix": ("HALL", "x.actual", "x.blank", "z.actual"),
    "FINAL3 colon": ("FINAL3", "x.random_colon", "x.random", None),
}
"""A witness: the cue accepted where its control (and, for the prefix, its Z twin) is not."""


class Witness(BaseModel):
    """The first source (by id) that shows a kind of acceptance, with its displayed scores."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    judge: str
    kind: str
    source: str
    scores: dict[str, float | None]


class DecompositionAnalysis(BaseModel):
    """The two families, the acceptance table and the witnesses."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    study: Literal["decomposition"] = "decomposition"
    """The study it analyses: what a summary's ``study_result`` is told apart by."""

    primary: list[ContrastTest]
    secondary: list[ContrastTest]
    cells: list[StudyCellCount]
    """Every configuration × cell: acceptances, responses, planned requests, mean score."""
    witnesses: list[Witness]


def _slots(
    judges: Mapping[str, Mapping[str, str]], contrasts: Sequence[Contrast]
) -> list[tuple[str, Mapping[str, str], Contrast]]:
    return [(f"{judge} {c.name}", roles, c) for judge, roles in judges.items() for c in contrasts]


def _witnesses(panel: StudyPanel, judge: str, roles: Mapping[str, str]) -> list[Witness]:
    """Per kind, the first source by id whose cue is accepted and whose controls are rejected."""
    found = []
    for kind, (contract, cue, *controls) in WITNESS_CELLS.items():
        configuration = roles[contract]
        cells = [cue, *(c for c in controls if c)]
        for source, _ in sorted(panel.sources(configuration)):
            records = [panel.get(configuration, source, c) for c in cells]
            verdicts = [None if r is None else r.accepted for r in records]
            if verdicts[0] is True and all(v is False for v in verdicts[1:]):
                scores = {
                    c: None if r is None else positive_score(r)
                    for c, r in zip(cells, records, strict=True)
                }
                found.append(Witness(judge=judge, kind=kind, source=source, scores=scores))
                break
    return found


def analyse_decomposition(
    records: Sequence[JudgeRecord], settings: JudgeAnalysisSettings
) -> DecompositionAnalysis:
    """The study's analysis from its records (one per planned request) and its manifest entry."""
    design = settings.study_design or {}
    judges: dict[str, dict[str, str]] = design.get("judges", {})
    configurations = [name for roles in judges.values() for name in roles.values()]
    panel, weights, first = study_frame(records, settings, configurations)
    primary = run_family(panel, _slots(judges, DECOMPOSITION_PRIMARY), settings, weights, first)
    secondary = run_family(
        panel,
        _slots(judges, DECOMPOSITION_SECONDARY),
        settings,
        weights,
        first + len(primary),
    )
    cells = [
        *(cell(p, b) for p in PREFIXES for b in DECOMPOSITION_BRIDGES),
        *DECOMPOSITION_CONTROLS,
    ]
    return DecompositionAnalysis(
        primary=primary,
        secondary=secondary,
        cells=[cell_count(panel, c, name) for c in configurations for name in cells],
        witnesses=[w for judge, roles in judges.items() for w in _witnesses(panel, judge, roles)],
    )
