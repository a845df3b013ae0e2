"""The typed summary of a judge run (seed 004): every table, from its records alone."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from pydantic import Field

from readout_audit.judge.analysis._descriptives import (
    AcceptanceRow,
    DuplicateRow,
    LabelMass,
    acceptance_table,
    duplicate_table,
    label_mass_table,
)
from readout_audit.judge.analysis._gates import Gate, Qualification, control_gates, qualify
from readout_audit.judge.analysis._panel import JudgePanel
from readout_audit.judge.analysis._primary import PrimaryResult, planned_weights, primary_family
from readout_audit.judge.analysis._scores import (
    Crossings,
    PairedChange,
    ScoreInteraction,
    paired_score_changes,
    score_crossings,
    score_interaction,
)
from readout_audit.judge.analysis._secondary import SecondaryResult, secondary_family
from readout_audit.judge.analysis._settings import JudgeAnalysisSettings
from readout_audit.judge.protocol._record import JudgeRecord
from readout_audit.log._summary import Summary


class JudgeSummary(Summary):
    """Gates, the primary and secondary families, and the descriptive tables of a judge run."""

    settings: JudgeAnalysisSettings = Field(default_factory=JudgeAnalysisSettings)
    family: list[str] = Field(default_factory=list)
    outcomes: dict[str, int] = Field(default_factory=dict)
    """Planned requests by outcome (completed, failed, unknown, unparsed)."""
    gates: list[Gate] = Field(default_factory=list)
    qualification: list[Qualification] = Field(default_factory=list)
    primary: list[PrimaryResult] = Field(default_factory=list)
    secondary: list[SecondaryResult] = Field(default_factory=list)
    acceptance: list[AcceptanceRow] = Field(default_factory=list)
    duplicates: list[DuplicateRow] = Field(default_factory=list)
    score_interactions: list[ScoreInteraction] = Field(default_factory=list)
    paired_changes: list[PairedChange] = Field(default_factory=list)
    crossings: list[Crossings] = Field(default_factory=list)
    label_mass: list[LabelMass] = Field(default_factory=list)


def judge_tables(records: Sequence[JudgeRecord], settings: JudgeAnalysisSettings) -> JudgeSummary:
    """Every table of the summary (without its checks), from the records and settings."""
    panel = JudgePanel(records)
    family = settings.family(panel.configurations)
    described = JudgeSummary(
        kind="judge",
        n_records=len(records),
        n_items=len({r.item_id for r in records}),
        settings=settings,
        family=family,
        outcomes=dict(sorted(Counter(r.outcome for r in records).items())),
        acceptance=acceptance_table(panel, family),
        label_mass=label_mass_table(records, family),
    )
    if settings.search_stage is not None:
        return described
    gates = control_gates(panel, family)
    qualification = qualify(gates, family)
    weights = {c: planned_weights(panel, settings, c) for c in family}
    return described.model_copy(
        update=dict(
            gates=gates,
            qualification=qualification,
            primary=primary_family(panel, settings, family, qualification),
            secondary=secondary_family(panel, family, qualification),
            duplicates=duplicate_table(panel, family),
            score_interactions=[score_interaction(panel, c, weights[c]) for c in family],
            paired_changes=[
                row for c in family for row in paired_score_changes(panel, c, weights[c])
            ],
            crossings=[row for c in family for row in score_crossings(panel, c, weights[c])],
        )
    )
