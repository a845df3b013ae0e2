"""Descriptive tables of a judge run: acceptance per cell, duplicate requests, label mass."""

from __future__ import annotations

from collections.abc import Sequence
from typing import get_args

import numpy as np
from pydantic import BaseModel, ConfigDict

from readout_audit.judge.analysis._panel import JudgePanel, Source
from readout_audit.judge.protocol import (
    PRESENTATIONS,
    REPEAT_CELLS,
    JudgeRecord,
    Phase,
    Presentation,
)
from readout_audit.readout import MASS_FLOOR


class _Row(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class AcceptanceRow(_Row):
    """Native positive verdicts of one cell, presentation and configuration, in one group."""

    phase: str
    configuration: str
    presentation: Presentation
    cell: str
    group: str
    """``all``, a dataset name, ``near`` or ``far``."""
    accepted: int
    observed: int
    """Requests with a verdict."""
    planned: int


def acceptance_table(panel: JudgePanel, family: Sequence[str]) -> list[AcceptanceRow]:
    """Accepted / observed / planned for every cell present, overall, per dataset and distance."""
    rows = []
    for phase in get_args(Phase):
        for configuration in family:
            sources = panel.sources(phase, configuration)
            groups: list[tuple[str, list[Source]]] = [("all", sources)]
            for key in ("dataset", "distance"):
                values = sorted({getattr(s, key) for s in sources} - {None})
                groups += [(v, [s for s in sources if getattr(s, key) == v]) for v in values]
            cells = sorted(
                {c for p, k, _, c, _ in panel.records if (p, k) == (phase, configuration)}
            )
            for presentation in PRESENTATIONS:
                for cell in cells:
                    for group, members in groups:
                        found = [
                            panel.get(phase, configuration, s.source_id, cell, presentation)
                            for s in members
                        ]
                        records = [r for r in found if r is not None]
                        if records:
                            rows.append(_acceptance(phase, group, records))
    return rows


def _acceptance(phase: str, group: str, records: Sequence[JudgeRecord]) -> AcceptanceRow:
    first = records[0]
    return AcceptanceRow(
        phase=phase,
        configuration=first.configuration,
        presentation=first.presentation,
        cell=first.cell,
        group=group,
        accepted=sum(r.accepted is True for r in records),
        observed=sum(r.verdict is not None for r in records),
        planned=len(records),
    )


class DuplicateRow(_Row):
    """A primary cue cell against its identical-body repeat, source by source."""

    configuration: str
    presentation: Presentation
    cell: str
    primary_accepted: int
    primary_observed: int
    repeat_accepted: int
    repeat_observed: int
    n_pairs: int
    """Sources with a verdict on both requests."""
    changed: int
    """Paired sources whose verdict was accepted in one request and not the other."""
    accepted_both: int


def duplicate_table(panel: JudgePanel, family: Sequence[str]) -> list[DuplicateRow]:
    """Primary and repeat acceptance of R and R: per configuration and presentation."""
    rows = []
    for configuration in family:
        sources = panel.sources("confirmation", configuration)
        for presentation in PRESENTATIONS:
            for repeat, cell in REPEAT_CELLS.items():
                pairs = [
                    tuple(
                        panel.get("confirmation", configuration, s.source_id, c, presentation)
                        for c in (cell, repeat)
                    )
                    for s in sources
                ]
                first = [a for a, _ in pairs if a is not None and a.verdict is not None]
                again = [b for _, b in pairs if b is not None and b.verdict is not None]
                both = [
                    (a.accepted, b.accepted)
                    for a, b in pairs
                    if a is not None and b is not None and None not in (a.verdict, b.verdict)
                ]
                if not first and not again:
                    continue
                rows.append(
                    DuplicateRow(
                        configuration=configuration,
                        presentation=presentation,
                        cell=cell,
                        primary_accepted=sum(r.accepted is True for r in first),
                        primary_observed=len(first),
                        repeat_accepted=sum(r.accepted is True for r in again),
                        repeat_observed=len(again),
                        n_pairs=len(both),
                        changed=sum(a != b for a, b in both),
                        accepted_both=sum(bool(a and b) for a, b in both),
                    )
                )
    return rows


class LabelMass(_Row):
    """How much of a local judge's next-token probability its labels' first tokens hold."""

    configuration: str
    n_records: int
    n_measured: int
    """Records with a label mass (a local judge; a served one reports none)."""
    median: float | None
    min: float | None
    n_below_floor: int
    floor: float = MASS_FLOOR

    @property
    def share_below(self) -> float | None:
        """Share of measured records whose label mass is below the floor."""
        return self.n_below_floor / self.n_measured if self.n_measured else None


def label_mass_table(records: Sequence[JudgeRecord], family: Sequence[str]) -> list[LabelMass]:
    """Per configuration: median and minimum label mass, and how many fall below the floor."""
    rows = []
    for configuration in family:
        mine = [r for r in records if r.configuration == configuration]
        masses = np.array([r.label_mass for r in mine if r.label_mass is not None], dtype=float)
        rows.append(
            LabelMass(
                configuration=configuration,
                n_records=len(mine),
                n_measured=int(masses.size),
                median=float(np.median(masses)) if masses.size else None,
                min=float(masses.min()) if masses.size else None,
                n_below_floor=int((masses < MASS_FLOOR).sum()),
            )
        )
    return rows
