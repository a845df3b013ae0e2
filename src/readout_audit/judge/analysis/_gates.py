"""Control gates and qualification (seed 004): competent judges on the unambiguous controls.

Per phase, configuration and presentation, each control must be judged right on at least 95%
(bare correct, bare wrong, wrong final only) or 90% (valid revision) of its planned sources,
rounded down: 190/200 and 180/200 in confirmation, 19/20 and 18/20 in preflight. A missing
verdict counts against the gate. Preflight also requires every response to parse; its
no-answer and unresolved fixtures are reported, not gating.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from readout_audit.judge.analysis._panel import JudgePanel
from readout_audit.judge.protocol import (
    CONTROL_CELLS,
    FIXTURE_CELLS,
    PHASES,
    PRESENTATIONS,
    Phase,
    Presentation,
)

GATE_PERCENT = {"bare_correct": 95, "bare_wrong": 95, "wrong_final_only": 95, "revision": 90}
"""The share of planned sources each control must get right, in percent."""


def required_correct(cell: str, planned: int) -> int:
    """⌊percent · n / 100⌋ right verdicts: 190/200, 180/200, 19/20, 76/80, 15/16, 14/16."""
    return GATE_PERCENT[cell] * planned // 100


class _Row(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CellCount(_Row):
    """Right verdicts of one control or fixture cell against its planned requests."""

    cell: str
    right: int
    observed: int
    """Requests with a verdict."""
    planned: int
    required: int | None
    """Right verdicts the gate needs (None for a fixture, which does not gate)."""

    @property
    def passed(self) -> bool:
        """Enough right verdicts among a non-empty planned cell (a fixture always passes)."""
        return self.required is None or (self.planned > 0 and self.right >= self.required)


class Gate(_Row):
    """One phase's gate of one configuration in one presentation."""

    phase: Phase
    configuration: str
    presentation: str
    controls: list[CellCount]
    fixtures: list[CellCount]
    n_planned: int
    """Every planned request of this phase, configuration and presentation."""
    n_unparsed: int
    """Planned requests without a verdict; preflight needs none."""
    passed: bool


class Qualification(_Row):
    """A configuration's gates across both presentations (None: the phase has no records)."""

    configuration: str
    preflight: bool | None
    confirmation: bool | None

    @property
    def skipped(self) -> bool:
        """A failed preflight skips the configuration: p = 1 keeps its family slots."""
        return self.preflight is False

    @property
    def competent(self) -> bool:
        """Both presentations pass the confirmation gates (success needs it)."""
        return self.confirmation is True


def _count(
    panel: JudgePanel,
    phase: Phase,
    configuration: str,
    presentation: Presentation,
    cell: str,
    gating: bool,
) -> CellCount:
    records = panel.cell_records(phase, configuration, cell, presentation)
    return CellCount(
        cell=cell,
        right=sum(r.right is True for r in records),
        observed=sum(r.verdict is not None for r in records),
        planned=len(records),
        required=required_correct(cell, len(records)) if gating else None,
    )


def control_gates(panel: JudgePanel, family: Sequence[str]) -> list[Gate]:
    """Every gate of the phases each configuration has records in."""
    gates = []
    for phase in PHASES:
        for configuration in family:
            if not panel.sources(phase, configuration):
                continue
            for presentation in PRESENTATIONS:
                key = (panel, phase, configuration, presentation)
                controls = [_count(*key, c, True) for c in CONTROL_CELLS]
                planned = panel.requests(phase, configuration, presentation)
                unparsed = sum(r.verdict is None for r in planned)
                passed = all(c.passed for c in controls) and (
                    phase == "confirmation" or unparsed == 0
                )
                gates.append(
                    Gate(
                        phase=phase,
                        configuration=configuration,
                        presentation=presentation,
                        controls=controls,
                        fixtures=[_count(*key, c, False) for c in FIXTURE_CELLS],
                        n_planned=len(planned),
                        n_unparsed=unparsed,
                        passed=passed,
                    )
                )
    return gates


def qualify(gates: Sequence[Gate], family: Sequence[str]) -> list[Qualification]:
    """Per configuration: did both presentations pass each phase's gate?"""

    def phase_passed(configuration: str, phase: str) -> bool | None:
        mine = [g for g in gates if (g.configuration, g.phase) == (configuration, phase)]
        return all(g.passed for g in mine) if mine else None

    return [
        Qualification(
            configuration=c,
            preflight=phase_passed(c, "preflight"),
            confirmation=phase_passed(c, "confirmation"),
        )
        for c in family
    ]
