"""Prior-conditioned additive offsets (seed 003): fitted on unlabelled scores, then frozen.

The corrected prediction is ŷ_c(x) = argmax_y s_y(x) + c_y. One reference offset is fixed at 0
(a uniform shift keeps the argmax), and the others are chosen by a deterministic grid search that
minimises Σ_y (q_c(y) − π_y)², the squared gap between the prediction fractions the offsets
induce on an unlabelled fit set and the target prior π. Ties are broken as the paper's code
does: lower collapse (the largest prediction fraction), then the smaller offset norm, then the
lexicographically smaller offsets.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from readout_audit._exceptions import InputError

MAX_CANDIDATES = 20_000_000
"""Largest number of offset vectors one fit may try (grid points ** free offsets)."""
_CHUNK = 2_048
_DECIMALS = 12
"""Losses and norms are compared after rounding, so that equal fits in a different summation
order count as ties."""


@dataclass(frozen=True)
class OffsetGrid:
    """The values each free offset may take: ``low``, ``low + step``, ..., ``high``."""

    low: float = -10.0
    high: float = 10.0
    step: float = 0.05

    def values(self) -> np.ndarray:
        """The grid's values, exact to 10 decimals (so 0.0 is on a symmetric grid)."""
        if not self.step > 0 or not self.high >= self.low:
            raise InputError(
                f"an offset grid needs step > 0 and high ≥ low, got {self}", field="grid"
            )
        count = round((self.high - self.low) / self.step) + 1
        return np.round(self.low + self.step * np.arange(count), 10)


@dataclass(frozen=True)
class OffsetFit:
    """The offsets chosen on a fit set, with the fit's criterion values."""

    offsets: np.ndarray
    """One per label; ``offsets[reference]`` is 0."""
    reference: int
    loss: float
    """Σ_y (q_c(y) − π_y)² on the fit set."""
    collapse: float
    """The largest prediction fraction the offsets leave on the fit set."""
    fractions: np.ndarray
    prior: np.ndarray
    n_fit: int
    grid: OffsetGrid


def corrected_predictions(scores: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """argmax_y s_y(x) + c_y per row (an exact tie goes to the earlier label)."""
    return np.asarray(np.argmax(np.asarray(scores) + np.asarray(offsets), axis=1))


def _check(scores: np.ndarray, prior: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    table = np.asarray(scores, dtype=np.float64)
    if table.ndim != 2 or table.shape[0] == 0 or table.shape[1] < 2:
        raise InputError(
            f"scores must be a non-empty (examples, labels ≥ 2) table, got {table.shape}",
            field="scores",
        )
    if not np.all(np.isfinite(table)):
        raise InputError("scores hold a non-finite value", field="scores")
    k = table.shape[1]
    target = np.full(k, 1.0 / k) if prior is None else np.asarray(prior, dtype=np.float64)
    if target.shape != (k,) or np.any(target < 0) or not np.isclose(target.sum(), 1.0):
        raise InputError(f"the prior must be {k} non-negative numbers summing to 1", field="prior")
    return table, target


def fit_offsets(
    scores: np.ndarray,
    prior: np.ndarray | None = None,
    *,
    reference: int | None = None,
    grid: OffsetGrid | None = None,
) -> OffsetFit:
    """Offsets minimising the prior gap on an unlabelled score table (no target is read).

    ``reference``: the label whose offset stays 0 (default the last, ``unknown`` in the paper's
    label order); ``prior``: uniform by default.
    """
    table, target = _check(scores, prior)
    n, k = table.shape
    ref = k - 1 if reference is None else reference
    if not 0 <= ref < k:
        raise InputError(f"reference label {ref} is not one of {k} labels", field="reference")
    grid = grid or OffsetGrid()
    values = grid.values()
    free = [label for label in range(k) if label != ref]
    if values.size ** len(free) > MAX_CANDIDATES:
        raise InputError(
            f"{values.size}^{len(free)} offset vectors exceed {MAX_CANDIDATES:,}: "
            "use a coarser grid",
            field="grid",
        )
    best: tuple[float, float, float, tuple[float, ...]] | None = None
    product = itertools.product(values, repeat=len(free))
    while chunk := list(itertools.islice(product, _CHUNK)):
        candidates = np.zeros((len(chunk), k))
        candidates[:, free] = np.asarray(chunk)
        counts = _prediction_counts(table, candidates)
        fractions = counts / n
        loss = np.round(np.sum((fractions - target) ** 2, axis=1), _DECIMALS)
        collapse = fractions.max(axis=1)
        norm = np.round(np.linalg.norm(candidates, axis=1), _DECIMALS)
        order = np.lexsort((*candidates.T[::-1], norm, collapse, loss))
        i = int(order[0])
        key = (float(loss[i]), float(collapse[i]), float(norm[i]), tuple(candidates[i]))
        if best is None or key < best:
            best = key
    assert best is not None
    offsets = np.asarray(best[3])
    fractions = np.bincount(corrected_predictions(table, offsets), minlength=k) / n
    return OffsetFit(
        offsets=offsets,
        reference=ref,
        loss=best[0],
        collapse=best[1],
        fractions=fractions,
        prior=target,
        n_fit=n,
        grid=grid,
    )


def _prediction_counts(table: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """Per candidate offset vector, how many rows each label wins: shape (candidates, labels)."""
    shifted = table[None, :, :] + candidates[:, None, :]
    winners = np.argmax(shifted, axis=2)
    k = table.shape[1]
    return np.stack([(winners == label).sum(axis=1) for label in range(k)], axis=1)
