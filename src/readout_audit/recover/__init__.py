"""Collapsed sequence scores (seed 003): where the answer is lost, and label-free recovery."""

from readout_audit.recover._evaluate import (
    BUDGETS,
    REPEATS,
    BudgetRow,
    Recovery,
    budget_curve,
    evaluate_recovery,
    macro_f1,
    subsample,
)
from readout_audit.recover._offsets import (
    OffsetFit,
    OffsetGrid,
    corrected_predictions,
    fit_offsets,
)
from readout_audit.recover._priors import (
    PRIOR_RADIUS,
    PRIOR_STEP,
    PriorSensitivity,
    perturbed_priors,
    prior_sensitivity,
)

__all__ = [
    "BUDGETS",
    "PRIOR_RADIUS",
    "PRIOR_STEP",
    "REPEATS",
    "BudgetRow",
    "OffsetFit",
    "OffsetGrid",
    "PriorSensitivity",
    "Recovery",
    "budget_curve",
    "corrected_predictions",
    "evaluate_recovery",
    "fit_offsets",
    "macro_f1",
    "perturbed_priors",
    "prior_sensitivity",
    "subsample",
]
