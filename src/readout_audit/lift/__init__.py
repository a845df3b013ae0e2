"""Likelihood lift (seed 001): forecasts of hidden TeX continuations scored by a fixed scorer."""

from readout_audit.lift._conditions import (
    SFT,
    LiftSetup,
)
from readout_audit.lift._cut import (
    Cut,
    CutKind,
)
from readout_audit.lift._cutfile import (
    CUT_KIND,
    cut_papers,
    cut_table,
    read_cuts,
    write_cuts,
)
from readout_audit.lift._cutting import (
    CutOutcome,
    CutRun,
    cut_sources,
)
from readout_audit.lift._displays import (
    Display,
    find_displays,
)
from readout_audit.lift._equation_cuts import (
    cut_equations,
    equation_body,
)
from readout_audit.lift._example import (
    ExampleDetail,
    example_detail,
    example_text,
)
from readout_audit.lift._forecasts import (
    Forecast,
    read_forecasts,
)
from readout_audit.lift._kind import LIFT
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
from readout_audit.lift._predict import (
    EQUATION_PROMPT,
    PROSE_PROMPT,
    PredictRun,
    clean_forecast,
    forecast_cut,
    forecast_seed,
    predict_cut_file,
    predict_summary,
    predictor_prompt,
    write_forecasts,
)
from readout_audit.lift._prose_cuts import (
    cut_prose,
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
from readout_audit.lift._score_run import (
    LiftScoreRun,
    ScoreInputs,
    forecasts_by_cut,
    read_score_inputs,
    score_cut_file,
    token_counts,
)
from readout_audit.lift._select import (
    CutSettings,
    PaperStats,
    seed_for,
)
from readout_audit.lift._sft_scorer import (
    SftScorer,
)
from readout_audit.lift._sources import (
    TexPaper,
    read_papers,
)
from readout_audit.lift._summary import (
    LiftSummary,
)
from readout_audit.lift._tex import (
    clean_tex,
)
from readout_audit.lift._toy import (
    TOY_CASES,
    ToyCase,
    ToyRow,
    toy_check,
    toy_rows,
    toy_table,
)

__all__ = [
    "CUT_KIND",
    "Contrast",
    "Cut",
    "CutKind",
    "CutOutcome",
    "CutRun",
    "CutScores",
    "CutSettings",
    "Display",
    "EQUATION_PROMPT",
    "ExampleDetail",
    "Forecast",
    "HEADLINE",
    "LIFT",
    "LadderRow",
    "LiftRecord",
    "LiftScoreRun",
    "LiftSetup",
    "LiftSummary",
    "NEAR_MAXIMUM",
    "NearMaximum",
    "POSITIVE_TOLERANCE",
    "PROSE_PROMPT",
    "PairedScores",
    "PaperStats",
    "PredictRun",
    "RULES",
    "RuleName",
    "RuleRow",
    "SFT",
    "ScoreInputs",
    "SftScorer",
    "TOY_CASES",
    "TexPaper",
    "TokenRecords",
    "TokenScore",
    "ToyCase",
    "ToyRow",
    "WINDOWS",
    "WindowRow",
    "check_logprobs",
    "clean_forecast",
    "clean_tex",
    "condition_ladder",
    "cut_equations",
    "cut_papers",
    "cut_prose",
    "cut_sources",
    "cut_table",
    "equation_body",
    "example_detail",
    "example_text",
    "find_displays",
    "forecast_cut",
    "forecast_seed",
    "forecasts_by_cut",
    "near_maximum",
    "normal_p_value",
    "paired_contrast",
    "paired_scores",
    "predict_cut_file",
    "predict_summary",
    "predictor_prompt",
    "read_cuts",
    "read_forecasts",
    "read_papers",
    "read_score_inputs",
    "rule_scores",
    "rule_table",
    "score_cut_file",
    "score_lift",
    "score_tokens",
    "seed_for",
    "token_counts",
    "token_values",
    "toy_check",
    "toy_rows",
    "toy_table",
    "window_curve",
    "write_cuts",
    "write_forecasts",
]
