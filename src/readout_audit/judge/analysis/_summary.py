"""The typed summary of a judge run (seed 004): every table, from its records alone."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Annotated, Any

from pydantic import Field, model_validator

from readout_audit.judge.analysis._chronology import Chronology
from readout_audit.judge.analysis._coverage import Coverage
from readout_audit.judge.analysis._decomposition import DecompositionAnalysis
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
from readout_audit.judge.analysis._pilot import PilotAnalysis
from readout_audit.judge.analysis._primary import PrimaryResult, planned_weights, primary_family
from readout_audit.judge.analysis._repeat import RepeatAnalysis
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
from readout_audit.judge.analysis._switch import SwitchAnalysis
from readout_audit.judge.protocol import JudgeRecord
from readout_audit.log import Summary

StudyResult = Annotated[
    SwitchAnalysis | DecompositionAnalysis | RepeatAnalysis | PilotAnalysis,
    Field(discriminator="study"),
]
"""A robustness study's analysis, told apart by its ``study`` name."""
LEGACY_STUDY_FIELDS = {
    "switch": "reference-switch",
    "decomposition": "decomposition",
    "repeat": "repeat",
    "pilot": "formatting-pilot",
}
"""The one-field-per-study keys of summaries written before ``study_result``, and their study."""


class JudgeSummary(Summary):
    """Gates, the primary and secondary families, and the descriptive tables of a judge run."""

    settings: JudgeAnalysisSettings = Field(default_factory=JudgeAnalysisSettings)
    family: list[str] = Field(default_factory=list)
    """The primary and secondary families' configurations: the inventory's, whether or not
    this run holds their records (one without records keeps p = 1)."""
    coverage: Coverage | None = None
    """The planned requests against the records (None: the run kept no plan)."""
    chronology: Chronology | None = None
    """The confirmation stream's primary cells per send-time quartile (a served judge)."""
    amended: dict[str, str] = Field(default_factory=dict)
    """Request id → the protocol amendment its call was sent again under: analysed as unknown
    (left out of the gates and both families), reported in the checks."""
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
    study_result: StudyResult | None = None
    """A robustness study's analysis (its runs only; the confirmation study's is the above)."""

    @model_validator(mode="before")
    @classmethod
    def _read_legacy(cls, data: Any) -> Any:
        """Read a summary written with one field per study as its ``study_result``."""
        if not isinstance(data, dict) or not LEGACY_STUDY_FIELDS.keys() & data.keys():
            return data
        found = dict(data)
        for key, study in LEGACY_STUDY_FIELDS.items():
            legacy = found.pop(key, None)
            if legacy is not None:
                found["study_result"] = {**legacy, "study": study}
        return found


def judge_tables(records: Sequence[JudgeRecord], settings: JudgeAnalysisSettings) -> JudgeSummary:
    """The descriptive tables and the confirmation study's (no checks, no study's analysis)."""
    panel = JudgePanel(records)
    family = settings.family(panel.configurations)
    present = [c for c in family if c in panel.configurations]  # the family's, with records
    described = JudgeSummary(
        kind="judge",
        n_records=len(records),
        n_items=len({r.item_id for r in records}),
        settings=settings,
        family=family,
        outcomes=dict(sorted(Counter(r.outcome for r in records).items())),
        acceptance=acceptance_table(panel, present),
        label_mass=label_mass_table(records, present),
    )
    if settings.search_stage is not None or settings.study is not None:
        return described  # a study's own analysis is its registered one
    gates = control_gates(panel, present)
    qualification = qualify(gates, family)
    weights = {c: planned_weights(panel, settings, c) for c in present}
    return described.model_copy(
        update=dict(
            gates=gates,
            qualification=qualification,
            primary=primary_family(panel, settings, family, qualification),
            secondary=secondary_family(panel, family, qualification),
            duplicates=duplicate_table(panel, present),
            score_interactions=[score_interaction(panel, c, weights[c]) for c in present],
            paired_changes=[
                row for c in present for row in paired_score_changes(panel, c, weights[c])
            ],
            crossings=[row for c in present for row in score_crossings(panel, c, weights[c])],
        )
    )
