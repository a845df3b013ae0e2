"""Input checks shared by the statistics: clear errors that say what was expected and received."""

from __future__ import annotations

from typing import Any

import numpy as np


def as_float_array(values: Any, name: str, *, allow_empty: bool = False) -> np.ndarray:
    """A finite 1-D float64 array, or a ValueError naming the argument."""
    array = np.asarray(values, dtype=np.float64)
    if array.ndim != 1:
        raise ValueError(f"Expected `{name}` to be one-dimensional, but got shape {array.shape}")
    if array.size == 0 and not allow_empty:
        raise ValueError(f"Expected `{name}` to be non-empty, but got an empty array")
    if not np.all(np.isfinite(array)):
        bad = int(np.flatnonzero(~np.isfinite(array))[0])
        raise ValueError(
            f"Expected `{name}` to hold finite numbers, but got {array[bad]} at index {bad}"
        )
    return array


def as_binary_array(values: Any, name: str) -> np.ndarray:
    """A 1-D boolean array from bools or 0/1 numbers, or a ValueError naming the argument."""
    array = np.asarray(values)
    if array.dtype == bool:
        if array.ndim != 1 or array.size == 0:
            raise ValueError(
                f"Expected `{name}` to be a non-empty 1-D array, but got shape {array.shape}"
            )
        return array
    numeric = as_float_array(array, name)
    if not np.all((numeric == 0) | (numeric == 1)):
        bad = numeric[(numeric != 0) & (numeric != 1)][0]
        raise ValueError(f"Expected `{name}` to hold only 0/1 or booleans, but got {bad}")
    return numeric.astype(bool)


def same_length(**arrays: np.ndarray) -> int:
    """The common length of the arrays, or a ValueError listing every length."""
    lengths = {name: len(array) for name, array in arrays.items()}
    if len(set(lengths.values())) > 1:
        listed = ", ".join(f"`{name}` has {n}" for name, n in lengths.items())
        raise ValueError(f"Expected arrays of equal length, but {listed}")
    return next(iter(lengths.values()))


MAX_REPLICATES = 1_000_000
"""The most bootstrap or permutation replicates: a replicate matrix grows with their number
times the items (10^10 replicates asked 224 GiB), and a million already fixes a p-value's third
decimal."""


def check_replicates(n_boot: int) -> int:
    """The number of bootstrap or Monte Carlo replicates, from 1 to :data:`MAX_REPLICATES`."""
    if (
        isinstance(n_boot, bool)
        or not isinstance(n_boot, int | np.integer)
        or not 1 <= n_boot <= MAX_REPLICATES
    ):
        raise ValueError(
            f"Expected the number of replicates to be an integer in [1, {MAX_REPLICATES:,}], "
            f"but got {n_boot!r}"
        )
    return int(n_boot)


def check_alpha(alpha: float) -> float:
    """A two-sided error level strictly between 0 and 1."""
    if not 0 < alpha < 1:
        raise ValueError(f"Expected `alpha` in (0, 1), but got {alpha}")
    return float(alpha)


def check_probability(p: Any, name: str) -> np.ndarray:
    """Finite values in [0, 1]."""
    array = as_float_array(p, name)
    if np.any((array < 0) | (array > 1)):
        bad = array[(array < 0) | (array > 1)][0]
        raise ValueError(f"Expected `{name}` in [0, 1], but got {bad}")
    return array
