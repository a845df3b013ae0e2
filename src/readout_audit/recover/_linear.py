"""What the recovery protocol's linear classifiers share: input checks and one logistic fit.

scikit-learn is imported inside :func:`fit_logistic`, so that importing the package (and
starting the CLI) does not load it.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from readout_audit._exceptions import InputError

C = 1.0
"""Inverse L2 strength: scikit-learn's default, on standardised features or TF-IDF rows (the
paper gives none). Some penalty is needed: 2,000 rows of a hidden state thousands of features
wide are linearly separable, and an unpenalised fit would not converge."""
MAX_ITER = 1000
"""L-BFGS iterations; ten times scikit-learn's default, enough for 2,000 × 4,096 features."""


def class_labels(labels: Any, n: int, k: int, field: str) -> np.ndarray:
    """``n`` integer labels in 0..k−1 as int64, or an InputError naming ``field``."""
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 2:
        raise InputError(f"the number of labels must be an integer >= 2, got {k!r}", field="k")
    array = np.asarray(labels)
    if array.shape != (n,):
        raise InputError(f"expected {n} labels, one per row, got shape {array.shape}", field=field)
    if array.dtype.kind == "f" and np.all(np.isfinite(array)) and np.all(array == np.round(array)):
        array = array.astype(np.int64)
    if array.dtype.kind not in "iu":
        raise InputError(f"labels must be integers, got dtype {array.dtype}", field=field)
    outside = np.flatnonzero((array < 0) | (array >= k))
    if outside.size:
        at = int(outside[0])
        raise InputError(f"label {array[at]} at row {at} is outside 0..{k - 1}", field=field)
    return array.astype(np.int64)


def feature_matrix(features: Any, field: str, *, width: int | None = None) -> np.ndarray:
    """A finite 2-D float64 array (of ``width`` columns when given), or an InputError."""
    array = np.asarray(features, dtype=np.float64)
    if array.ndim != 2 or array.shape[0] == 0 or (width is not None and array.shape[1] != width):
        wanted = "(rows, features)" if width is None else f"(rows, {width})"
        raise InputError(f"expected shape {wanted}, got {array.shape}", field=field)
    bad = np.argwhere(~np.isfinite(array))
    if bad.size:
        row, column = (int(i) for i in bad[0])
        raise InputError(f"non-finite value {array[row, column]} at [{row}, {column}]", field=field)
    return array


def two_classes(labels: np.ndarray, field: str) -> None:
    """An InputError unless the training labels hold at least two classes."""
    present = np.unique(labels)
    if present.size < 2:
        raise InputError(
            f"the training rows hold only label {present.tolist()}; a classifier needs two",
            field=field,
        )


def fit_logistic(x: Any, y: np.ndarray) -> tuple[Any, bool]:
    """A multinomial L-BFGS logistic regression (C, MAX_ITER above) and whether it converged.

    L-BFGS is deterministic, so no random state enters. A fit that stops at MAX_ITER is
    reported by the returned flag rather than by a ConvergenceWarning.
    """
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=C, solver="lbfgs", max_iter=MAX_ITER)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(x, y)
    return model, bool(np.max(model.n_iter_) < MAX_ITER)
