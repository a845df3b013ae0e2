"""The typed summary of a judge run (seed 004): every table, from its records alone."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from pydantic import Field

from readout_audit.judge.analysis._chronology import Chronology
from readout_audit.judge.analysis._coverage import Coverage
from readout_audit.judge.analysis._decomposition import (
    DecompositionAnalysis,
    analyse_decomposition,
)
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
from readout_audit.judge.analysis._pilot import PilotAnalysis, analyse_pilot
from readout_audit.judge.analysis._primary import PrimaryResult, planned_weights, primary_family
from readout_audit.judge.analysis._repeat import RepeatAnalysis, analyse_repeat
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
from readout_audit.judge.analysis._switch import SwitchAnalysis, analyse_switch
from readout_audit.judge.protocol._record import JudgeRecord
from readout_audit.judge.protocol._studies import DECOMPOSITION_STUDY, PILOT_STUDY, REPEAT_STUDY
from readout_audit.judge.protocol._switch import SWITCH_STUDY
from readout_audit.log._summary import Summary


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
    switch: SwitchAnalysis | None = None
    """The reference-switch study's analysis (its runs only)."""
    decomposition: DecompositionAnalysis | None = None
    repeat: RepeatAnalysis | None = None
    pilot: PilotAnalysis | None = None


def judge_tables(records: Sequence[JudgeRecord], settings: JudgeAnalysisSettings) -> JudgeSummary:
    """Every table of the summary (without its checks), from the records and settings."""
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
    if settings.search_stage is not None:
        return described
    if settings.study == SWITCH_STUDY:
        seed = settings.seed(family[0], family) if family else 0
        found_switch = analyse_switch(records, family, seed=seed)
        return described.model_copy(update={"switch": found_switch})
    if settings.study == DECOMPOSITION_STUDY:
        found = analyse_decomposition(records, settings)
        return described.model_copy(update={"decomposition": found})
    if settings.study == REPEAT_STUDY:
        return described.model_copy(update={"repeat": analyse_repeat(records, settings, family)})
    if settings.study == PILOT_STUDY:
        return described.model_copy(update={"pilot": analyse_pilot(records, settings, family)})
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
