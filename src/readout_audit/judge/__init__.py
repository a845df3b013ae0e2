"""LLM-judge robustness (seed 004): presentation and cue experiments run as frozen protocols."""

from readout_audit.judge._analysis import (
    analyse_judge,
    summarise_judge,
)
from readout_audit.judge._cells import (
    CONFIRMATION_CELLS,
    CONTROL_CELLS,
    FIXTURE_CELLS,
    PREFLIGHT_CELLS,
    PRESENTATIONS,
    PRIMARY_CELLS,
    REPEAT_CELLS,
)
from readout_audit.judge._checks import (
    judge_checks,
)
from readout_audit.judge._descriptives import (
    AcceptanceRow,
    DuplicateRow,
    LabelMass,
    acceptance_table,
    duplicate_table,
    label_mass_table,
)
from readout_audit.judge._directional import (
    DirectionalResult,
    directional_family,
)
from readout_audit.judge._gates import (
    GATE_PERCENT,
    CellCount,
    Gate,
    Qualification,
    control_gates,
    qualify,
    required_correct,
)
from readout_audit.judge._kind import (
    JUDGE,
)
from readout_audit.judge._panel import (
    JudgePanel,
)
from readout_audit.judge._planned import (
    PlannedRequest,
)
from readout_audit.judge._primary import (
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
from readout_audit.judge._record import (
    JudgeRecord,
)
from readout_audit.judge._report import (
    judge_sections,
)
from readout_audit.judge._scores import (
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
from readout_audit.judge._secondary import (
    SecondaryResult,
    discordances,
    secondary_family,
)
from readout_audit.judge._settings import (
    PAPER_BOOTSTRAP_SEED,
    PRIMARY_DRAWS,
    JudgeAnalysisSettings,
)
from readout_audit.judge._summary import (
    JudgeSummary,
    judge_tables,
)

__all__ = [
    "AcceptanceRow",
    "CONFIRMATION_CELLS",
    "CONTROL_CELLS",
    "CROSSING_THRESHOLDS",
    "CellCount",
    "Crossings",
    "DirectionalResult",
    "DuplicateRow",
    "FIXTURE_CELLS",
    "GATE_PERCENT",
    "Gate",
    "InteractionTest",
    "JUDGE",
    "JudgeAnalysisSettings",
    "JudgePanel",
    "JudgeRecord",
    "JudgeSummary",
    "LabelMass",
    "PAPER_BOOTSTRAP_SEED",
    "PREFLIGHT_CELLS",
    "PRESENTATIONS",
    "PRIMARY_CELLS",
    "PRIMARY_DRAWS",
    "PRIMARY_TERMS",
    "PairedChange",
    "PlannedRequest",
    "PrimaryResult",
    "Qualification",
    "REPEAT_CELLS",
    "SCORE_READINGS",
    "ScoreInteraction",
    "SecondaryResult",
    "SourceCells",
    "acceptance_table",
    "analyse_judge",
    "conditional_correctness",
    "control_gates",
    "directional_family",
    "discordances",
    "displayed_gap",
    "duplicate_table",
    "interaction_test",
    "judge_checks",
    "judge_sections",
    "judge_tables",
    "label_mass_table",
    "log_ratio",
    "paired_score_changes",
    "panel_bounds",
    "planned_weights",
    "positive_score",
    "primary_cells",
    "primary_family",
    "qualify",
    "required_correct",
    "score_crossings",
    "score_interaction",
    "secondary_family",
    "summarise_judge",
]
