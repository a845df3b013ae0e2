"""Statistics: pure, seeded, vectorised functions over numpy arrays (no torch).

Every function states its formula in its docstring and is tested against an independent
implementation (scipy, scikit-learn, statsmodels) or a value printed in a seed paper.
"""

from readout_audit.stats._bootstrap import (
    BINARY_METRICS,
    Interval,
    PairedBootstrap,
    binary_scores_bootstrap,
    bootstrap_ci,
    centered_bootstrap_pvalue,
    cluster_bootstrap,
    cluster_se,
    paired_bootstrap,
    stratified_bootstrap,
)
from readout_audit.stats._bounds import (
    BoundedInterval,
    ThresholdCrossings,
    hoeffding_epsilon,
    hoeffding_interval,
    missingness_bounds,
    threshold_crossings,
)
from readout_audit.stats._exact import (
    FisherResult,
    SignFlipResult,
    fisher_exact,
    holm,
    intersection_union_test,
    mcnemar_exact,
    sign_flip_test,
)
from readout_audit.stats._metrics import BinaryScores, accuracy, auc, binary_scores, brier
from readout_audit.stats._paired import (
    ClosedFormF1,
    TransitionTable,
    f1_closed_form,
    transition_table,
)
from readout_audit.stats._permutation import PermutationNull, permutation_null
from readout_audit.stats._rejection import PredictionRejectionRatio, prr
from readout_audit.stats._resample import resampling_clusters
from readout_audit.stats._validate import MAX_REPLICATES, as_float_array, same_length

__all__ = [
    "BINARY_METRICS",
    "BinaryScores",
    "BoundedInterval",
    "ClosedFormF1",
    "FisherResult",
    "Interval",
    "MAX_REPLICATES",
    "PairedBootstrap",
    "PermutationNull",
    "PredictionRejectionRatio",
    "SignFlipResult",
    "ThresholdCrossings",
    "TransitionTable",
    "accuracy",
    "as_float_array",
    "auc",
    "binary_scores",
    "binary_scores_bootstrap",
    "bootstrap_ci",
    "brier",
    "centered_bootstrap_pvalue",
    "cluster_bootstrap",
    "cluster_se",
    "f1_closed_form",
    "fisher_exact",
    "hoeffding_epsilon",
    "hoeffding_interval",
    "holm",
    "intersection_union_test",
    "mcnemar_exact",
    "missingness_bounds",
    "paired_bootstrap",
    "permutation_null",
    "prr",
    "resampling_clusters",
    "same_length",
    "sign_flip_test",
    "stratified_bootstrap",
    "threshold_crossings",
    "transition_table",
]
