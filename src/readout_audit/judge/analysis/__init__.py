"""The judge study's analysis.

The panel of records, control gates, primary and secondary families, scores, summary, report.
"""

from readout_audit.judge.analysis._checks import (
    judge_checks,
)
from readout_audit.judge.analysis._chronology import CHRONOLOGY, Chronology, chronology
from readout_audit.judge.analysis._contrasts import (
    ContrastTest,
    StudyCellCount,
    StudyGate,
    StudyPanel,
    contrast_slot,
    contrast_values,
    run_family,
)
from readout_audit.judge.analysis._coverage import (
    AMENDMENT,
    NO_RECORD,
    PLANNED,
    cover,
    kept_plan,
    set_apart,
)
from readout_audit.judge.analysis._decomposition import (
    DecompositionAnalysis,
    Witness,
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
from readout_audit.judge.analysis._directional import (
    DirectionalResult,
    directional_family,
)
from readout_audit.judge.analysis._gates import (
    GATE_PERCENT,
    CellCount,
    Gate,
    Qualification,
    control_gates,
    qualify,
    required_correct,
)
from readout_audit.judge.analysis._panel import (
    JudgePanel,
)
from readout_audit.judge.analysis._pilot import (
    CellMean,
    PilotAnalysis,
    analyse_pilot,
)
from readout_audit.judge.analysis._primary import (
    PRIMARY_TERMS,
    InteractionTest,
    PrimaryResult,
    SourceCells,
    interaction_test,
    panel_bounds,
    planned_weights,
    primary_cells,
    primary_family,
)
from readout_audit.judge.analysis._repeat import (
    Agreement,
    PassCounts,
    RepeatAnalysis,
    ScoreShift,
    agreement,
    analyse_repeat,
    score_shift,
)
from readout_audit.judge.analysis._report import table_sections
from readout_audit.judge.analysis._scores import (
    CROSSING_THRESHOLDS,
    SCORE_READINGS,
    Crossings,
    PairedChange,
    ScoreInteraction,
    conditional_correctness,
    displayed_gap,
    log_ratio,
    paired_score_changes,
    positive_score,
    score_crossings,
    score_interaction,
)
from readout_audit.judge.analysis._secondary import (
    SecondaryResult,
    discordances,
    secondary_family,
)
from readout_audit.judge.analysis._settings import (
    PAPER_BOOTSTRAP_SEED,
    PRIMARY_DRAWS,
    JudgeAnalysisSettings,
)
from readout_audit.judge.analysis._slopes import (
    SLOPE_DRAWS,
    SlopeCheck,
    slope_check,
)
from readout_audit.judge.analysis._study_report import (
    decomposition_section,
    pilot_section,
    repeat_section,
    switch_section,
)
from readout_audit.judge.analysis._summary import (
    JudgeSummary,
    StudyResult,
    judge_tables,
)
from readout_audit.judge.analysis._switch import (
    SWITCH_BOOTSTRAP_DRAWS,
    HalfDifference,
    SwitchAnalysis,
    SwitchComparison,
    analyse_switch,
    half_difference,
    switch_scores,
    world_effect,
)

__all__ = [
    "AMENDMENT",
    "AcceptanceRow",
    "Agreement",
    "CHRONOLOGY",
    "CROSSING_THRESHOLDS",
    "CellCount",
    "CellMean",
    "Chronology",
    "ContrastTest",
    "Crossings",
    "DecompositionAnalysis",
    "DirectionalResult",
    "DuplicateRow",
    "GATE_PERCENT",
    "Gate",
    "HalfDifference",
    "InteractionTest",
    "JudgeAnalysisSettings",
    "JudgePanel",
    "JudgeSummary",
    "LabelMass",
    "NO_RECORD",
    "PAPER_BOOTSTRAP_SEED",
    "PLANNED",
    "PRIMARY_DRAWS",
    "PRIMARY_TERMS",
    "PairedChange",
    "PassCounts",
    "PilotAnalysis",
    "PrimaryResult",
    "Qualification",
    "RepeatAnalysis",
    "SCORE_READINGS",
    "SLOPE_DRAWS",
    "SWITCH_BOOTSTRAP_DRAWS",
    "ScoreInteraction",
    "ScoreShift",
    "SecondaryResult",
    "SlopeCheck",
    "SourceCells",
    "StudyCellCount",
    "StudyGate",
    "StudyPanel",
    "StudyResult",
    "SwitchAnalysis",
    "SwitchComparison",
    "Witness",
    "acceptance_table",
    "agreement",
    "analyse_decomposition",
    "analyse_pilot",
    "analyse_repeat",
    "analyse_switch",
    "chronology",
    "conditional_correctness",
    "contrast_slot",
    "contrast_values",
    "control_gates",
    "cover",
    "decomposition_section",
    "directional_family",
    "discordances",
    "displayed_gap",
    "duplicate_table",
    "half_difference",
    "interaction_test",
    "judge_checks",
    "judge_tables",
    "kept_plan",
    "label_mass_table",
    "log_ratio",
    "paired_score_changes",
    "panel_bounds",
    "pilot_section",
    "planned_weights",
    "positive_score",
    "primary_cells",
    "primary_family",
    "qualify",
    "repeat_section",
    "required_correct",
    "run_family",
    "score_crossings",
    "score_interaction",
    "score_shift",
    "secondary_family",
    "set_apart",
    "slope_check",
    "switch_scores",
    "switch_section",
    "table_sections",
    "world_effect",
]
