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

__all__ = [
    "BUDGETS",
    "REPEATS",
    "BudgetRow",
    "OffsetFit",
    "OffsetGrid",
    "Recovery",
    "budget_curve",
    "corrected_predictions",
    "evaluate_recovery",
    "fit_offsets",
    "macro_f1",
    "subsample",
]
