"""Collapsed sequence scores (seed 003): where the answer is lost, and label-free recovery."""

from readout_audit.recover._audit import RecoverSplits, audit_recover, plan_items
from readout_audit.recover._evaluate import (
    BUDGETS,
    REPEATS,
    BudgetRow,
    Recovery,
    RecoveryIntervals,
    budget_curve,
    evaluate_recovery,
    macro_f1,
    null_accuracy,
    recovery_intervals,
    subsample,
)
from readout_audit.recover._gap import GapRow, readout_gap
from readout_audit.recover._kind import RECOVER
from readout_audit.recover._leakage import LeakageRow, LeakageText, surface_leakage, template_only
from readout_audit.recover._offsets import (
    OffsetFit,
    OffsetGrid,
    corrected_predictions,
    fit_offsets,
)
from readout_audit.recover._priors import (
    PRIOR_RADII,
    PRIOR_RADIUS,
    PRIOR_STEP,
    PriorSensitivity,
    perturbed_priors,
    prior_sensitivity,
)
from readout_audit.recover._probes import (
    PROBE_ROWS,
    PROBE_SEEDS,
    Probe,
    fit_probe,
    probe_predictions,
)
from readout_audit.recover._record import RecoverRecord
from readout_audit.recover._seeds import seed_aggregates, seeded_name
from readout_audit.recover._settings import RecoverRun
from readout_audit.recover._setup import (
    ALL_CONFIGURATIONS,
    PROMPTS,
    VERBALIZERS,
    Configuration,
    RecoverSetup,
    Verbalizer,
    configurations_named,
)
from readout_audit.recover._slices import tfidf_predictions
from readout_audit.recover._sources import (
    GENERATED_EVALS,
    GENERATED_N,
    GENERATED_TRAIN_N,
    GENERATORS,
    RecoverSources,
    recover_splits,
)
from readout_audit.recover._store import HiddenLayout, read_hidden
from readout_audit.recover._strata import depth_strata
from readout_audit.recover._summary import RecoverSummary

__all__ = [
    "ALL_CONFIGURATIONS",
    "BUDGETS",
    "BudgetRow",
    "Configuration",
    "GENERATED_EVALS",
    "GENERATED_N",
    "GENERATED_TRAIN_N",
    "GENERATORS",
    "GapRow",
    "HiddenLayout",
    "LeakageRow",
    "LeakageText",
    "OffsetFit",
    "OffsetGrid",
    "PRIOR_RADII",
    "PRIOR_RADIUS",
    "PRIOR_STEP",
    "PROBE_ROWS",
    "PROBE_SEEDS",
    "PROMPTS",
    "PriorSensitivity",
    "Probe",
    "RECOVER",
    "REPEATS",
    "RecoverRecord",
    "RecoverRun",
    "RecoverSetup",
    "RecoverSources",
    "RecoverSplits",
    "RecoverSummary",
    "Recovery",
    "RecoveryIntervals",
    "VERBALIZERS",
    "Verbalizer",
    "audit_recover",
    "budget_curve",
    "configurations_named",
    "corrected_predictions",
    "depth_strata",
    "evaluate_recovery",
    "fit_offsets",
    "fit_probe",
    "macro_f1",
    "null_accuracy",
    "perturbed_priors",
    "plan_items",
    "prior_sensitivity",
    "probe_predictions",
    "read_hidden",
    "readout_gap",
    "recover_splits",
    "recovery_intervals",
    "seed_aggregates",
    "seeded_name",
    "subsample",
    "surface_leakage",
    "template_only",
    "tfidf_predictions",
]
