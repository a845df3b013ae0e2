"""Likelihood lift (seed 001): forecasts of hidden TeX continuations scored by a fixed scorer."""

from readout_audit.lift._conditions import (
    LiftSetup,
)
from readout_audit.lift._cut import Cut, CutKind
from readout_audit.lift._lift_stats import (
    NEAR_MAXIMUM,
    WINDOWS,
    Contrast,
    CutScores,
    LadderRow,
    NearMaximum,
    PairedScores,
    RuleRow,
    TokenRecords,
    WindowRow,
    condition_ladder,
    near_maximum,
    normal_p_value,
    paired_contrast,
    paired_scores,
    rule_scores,
    rule_table,
    window_curve,
)
from readout_audit.lift._record import (
    LiftRecord,
)
from readout_audit.lift._rules import (
    HEADLINE,
    POSITIVE_TOLERANCE,
    RULES,
    RuleName,
    TokenScore,
    check_logprobs,
    score_tokens,
    token_values,
)
from readout_audit.lift._score import (
    score_lift,
)
from readout_audit.lift._summary import (
    LiftSummary,
)
from readout_audit.lift._toy import (
    TOY_CASES,
    ToyCase,
    ToyRow,
    toy_check,
    toy_rows,
)

__all__ = [
    "Contrast",
    "Cut",
    "CutKind",
    "CutScores",
    "HEADLINE",
    "LadderRow",
    "LiftRecord",
    "LiftSetup",
    "LiftSummary",
    "NEAR_MAXIMUM",
    "NearMaximum",
    "POSITIVE_TOLERANCE",
    "PairedScores",
    "RULES",
    "RuleName",
    "RuleRow",
    "TOY_CASES",
    "TokenRecords",
    "TokenScore",
    "ToyCase",
    "ToyRow",
    "WINDOWS",
    "WindowRow",
    "check_logprobs",
    "condition_ladder",
    "near_maximum",
    "normal_p_value",
    "paired_contrast",
    "paired_scores",
    "rule_scores",
    "rule_table",
    "score_lift",
    "score_tokens",
    "token_values",
    "toy_check",
    "toy_rows",
    "window_curve",
]
