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
from readout_audit.recover._gap import GapRow, readout_gap
from readout_audit.recover._offsets import (
    OffsetFit,
    OffsetGrid,
    corrected_predictions,
    fit_offsets,
)
from readout_audit.recover._probes import (
    PROBE_ROWS,
    PROBE_SEEDS,
    Probe,
    fit_probe,
    probe_predictions,
)
from readout_audit.recover._slices import tfidf_predictions

__all__ = [
    "BUDGETS",
    "PROBE_ROWS",
    "PROBE_SEEDS",
    "REPEATS",
    "BudgetRow",
    "GapRow",
    "OffsetFit",
    "OffsetGrid",
    "Probe",
    "Recovery",
    "budget_curve",
    "corrected_predictions",
    "evaluate_recovery",
    "fit_offsets",
    "fit_probe",
    "macro_f1",
    "probe_predictions",
    "readout_gap",
    "subsample",
    "tfidf_predictions",
]
