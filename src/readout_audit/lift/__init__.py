"""Likelihood lift (seed 001): forecasts of hidden TeX continuations scored by a fixed scorer."""

from readout_audit.lift._cut import Cut, CutKind
from readout_audit.lift._forecasts import Forecast, read_forecasts
from readout_audit.lift._predict import (
    EQUATION_PROMPT,
    PROSE_PROMPT,
    clean_forecast,
    forecast_cut,
    forecast_seed,
    predictor_prompt,
    write_forecasts,
)

__all__ = [
    "Cut",
    "CutKind",
    "EQUATION_PROMPT",
    "Forecast",
    "PROSE_PROMPT",
    "clean_forecast",
    "forecast_cut",
    "forecast_seed",
    "predictor_prompt",
    "read_forecasts",
    "write_forecasts",
]
