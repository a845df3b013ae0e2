"""Prior-conditioned additive offsets (seed 003): fitted on unlabelled scores, then frozen.

The corrected prediction is ŷ_c(x) = argmax_y s_y(x) + c_y. One reference offset is fixed at 0
(a uniform shift keeps the argmax), and the others are chosen by a deterministic grid search that
minimises Σ_y (q_c(y) − π_y)², the squared gap between the prediction fractions the offsets
induce on an unlabelled fit set and the target prior π. Ties are broken as the paper's code
does: lower collapse (the largest prediction fraction), then the smaller offset norm, then the
lexicographically smaller offsets.

The search sweeps the last free offset over its whole grid at once: a row predicts that label
from some grid index on (a binary search with the argmax's own float comparisons finds it) and,
before it, the label it predicts without it, so counts for every grid value come from a
cumulative sum. A 1,000 × 3 fit on the default grid takes tens of milliseconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from readout_audit._exceptions import InputError

MAX_CANDIDATES = 20_000_000
"""Largest number of offset vectors one fit may try (grid points ** free offsets)."""
_BLOCK_CELLS = 1 << 21
"""About how many (row or grid value) × offset vector × label cells one step of the search holds."""
_Key = tuple[float, float, float, tuple[float, ...]]
"""(loss, collapse, norm, offsets): the order in which candidate offsets are ranked."""
_DECIMALS = 12
"""Losses and norms are compared after rounding, so that equal fits in a different summation
order count as ties."""


@dataclass(frozen=True)
class OffsetGrid:
    """The values each free offset may take: ``low``, ``low + step``, ..., ``high``."""

    low: float = -10.0
    high: float = 10.0
    step: float = 0.05

    def __post_init__(self) -> None:
        finite = all(math.isfinite(v) for v in (self.low, self.high, self.step))
        if not finite or not self.step > 0 or not self.high >= self.low or not _spanned(self):
            raise InputError(
                "an offset grid needs finite bounds, a finite span, step > 0 and high ≥ low, got "
                f"low={self.low}, high={self.high}, step={self.step}",
                field="grid",
            )

    @property
    def size(self) -> int:
        """How many values the grid holds (known before any is made)."""
        return round((self.high - self.low) / self.step) + 1

    def check_size(self, free: int) -> None:
        """Refuse a grid whose ``free``-fold product exceeds :data:`MAX_CANDIDATES` offsets."""
        if self.size**free > MAX_CANDIDATES:
            raise InputError(
                f"{self.size:,}^{free} offset vectors exceed {MAX_CANDIDATES:,}: "
                "use a coarser grid",
                field="grid",
            )

    def values(self) -> np.ndarray:
        """The grid's values, exact to 10 decimals (so 0.0 is on a symmetric grid)."""
        return np.round(self.low + self.step * np.arange(self.size), 10)


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
    """The grid searched: the one asked for, or a wider one (see ``widened``)."""
    widened: int = 0
    """How many times the grid's span was doubled about its centre because it bound the fit
    (0: the grid asked for)."""
    pinned: bool = False
    """The grid still binds: an offset on its edge, or a label with a positive prior that no
    offsets of the grid let win a single row. Only when the grid could not be widened: the
    next doubling would exceed ``MAX_CANDIDATES`` offset vectors (or the grid holds one
    value), or ``widen`` was False."""


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
    widen: bool = True,
) -> OffsetFit:
    """Offsets minimising the prior gap on an unlabelled score table (no target is read).

    ``reference``: the label whose offset stays 0 (default the last, ``unknown`` in the paper's
    label order); ``prior``: uniform by default. The grid can bind: an optimum on its edge, or
    a label with a positive prior that no offsets of the grid let win a row (it trails by more
    than the grid reaches). With ``widen``, the grid's span is doubled about its centre while
    it binds, up to the widest grid of at most ``MAX_CANDIDATES`` offset vectors (±80 at the
    default step for three labels); doublings on which such a label still wins no row are not
    searched. A wider grid holds the narrower one, so its fit is never worse. The fit records
    the grid searched, how often it was doubled, and whether it still binds.
    """
    table, target = _check(scores, prior)
    n, k = table.shape
    ref = k - 1 if reference is None else reference
    if not 0 <= ref < k:
        raise InputError(f"reference label {ref} is not one of {k} labels", field="reference")
    grid = grid or OffsetGrid()
    free = [label for label in range(k) if label != ref]
    grid.check_size(len(free))
    best, widened = _search(table, target, grid.values(), free), 0
    while widen and _pinned(table, target, best[3], grid, free):
        wider, doublings = _doubled(grid, len(free)), 1
        while wider is not None and _unreachable(table, target, wider, free):
            further = _doubled(wider, len(free))
            if further is None:
                break
            wider, doublings = further, doublings + 1
        if wider is None:
            break
        best, grid = _search(table, target, wider.values(), free), wider
        widened += doublings
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
        widened=widened,
        pinned=_pinned(table, target, best[3], grid, free),
    )


def _search(table: np.ndarray, target: np.ndarray, values: np.ndarray, free: list[int]) -> _Key:
    """The best key over the grid's product on the ``free`` labels, in enumeration order.

    The outer offsets (all free but the last) go in blocks; each block's counts are summed over
    chunks of rows, so memory stays near ``_BLOCK_CELLS`` whatever the table's size.
    """
    n, k = table.shape
    *outer, last = free
    n_outer = values.size ** len(outer)
    per_block = max(1, _BLOCK_CELLS // (values.size * k))
    best: _Key | None = None
    for start in range(0, n_outer, per_block):
        fixed = _outer_offsets(values, len(outer), start, min(start + per_block, n_outer))
        rows = max(1, _BLOCK_CELLS // (len(fixed) * k))
        counts = np.zeros((len(fixed), values.size, k), dtype=np.int64)
        for first in range(0, n, rows):
            counts += _sweep(table[first : first + rows], values, outer, last, fixed)
        candidates = np.zeros((len(fixed), values.size, k))
        candidates[:, :, outer] = fixed[:, None, :]
        candidates[:, :, last] = values
        key = _first_best(candidates.reshape(-1, k), counts.reshape(-1, k), n, target)
        if best is None or key < best:
            best = key
    assert best is not None
    return best


def _outer_offsets(values: np.ndarray, width: int, start: int, stop: int) -> np.ndarray:
    """Rows ``start`` to ``stop`` of the grid's ``width``-fold product, the last column fastest."""
    powers = values.size ** np.arange(width - 1, -1, -1)
    return np.asarray(values[(np.arange(start, stop)[:, None] // powers) % values.size])


def _sweep(
    table: np.ndarray, values: np.ndarray, outer: list[int], last: int, fixed: np.ndarray
) -> np.ndarray:
    """Prediction counts for every grid value of the ``last`` offset, per ``fixed`` combination.

    Shape (combinations, grid, labels). A row predicts ``last`` from some grid index on and, before
    it, the winner among the other labels, which does not depend on the ``last`` offset.
    """
    n, k = table.shape
    b, g = fixed.shape[0], values.size
    offsets = np.zeros((b, k))
    offsets[:, outer] = fixed
    best = below = above = np.full((n, b), -np.inf)
    others = np.full((n, b), 1 if last == 0 else 0)
    for label in (y for y in range(k) if y != last):
        score = table[:, label, None] + offsets[:, label]
        np.copyto(others, label, where=score > best)  # strictly: a tie stays with the earlier
        best = np.maximum(best, score)
        if label < last:
            below = best
        else:
            above = np.maximum(above, score)
    start = _first_win(table[:, last], values, below, above)
    cell = (np.arange(b) * (g + 1) + start) * k + others
    won = np.cumsum(np.bincount(cell.ravel(), minlength=b * (g + 1) * k).reshape(b, g + 1, k), 1)
    counts = won[:, g:, :] - won[:, :g, :]
    counts[:, :, last] = n - sum(counts[:, :, y] for y in range(k) if y != last)
    return counts


def _first_win(
    column: np.ndarray, values: np.ndarray, below: np.ndarray, above: np.ndarray
) -> np.ndarray:
    """Per row, the first grid index at which the ``last`` label wins the argmax (``g`` if none).

    It wins when s + c beats every earlier label (``below``) and at least ties every later one
    (``above``), the argmax's own comparisons: s + c ≥ max(next float after ``below``,
    ``above``), or never when ``below`` is +inf. Float addition is monotone in c, so each row's
    scores over the grid are sorted and a binary search on them finds the index.
    """
    threshold = np.maximum(np.nextafter(below, np.inf), above)
    start = np.empty(threshold.shape, dtype=np.intp)
    for row, scores in enumerate(column[:, None] + values):
        start[row] = np.searchsorted(scores, threshold[row])
    start[below == np.inf] = values.size
    return start


def _first_best(candidates: np.ndarray, counts: np.ndarray, n: int, target: np.ndarray) -> _Key:
    """The first candidate with the smallest (loss, collapse, norm, offsets).

    Each key after the loss is computed only for the candidates still tied: numpy reduces each
    row of a table alike whatever the table's length, so the floats are those of the whole.
    """
    fractions = counts / n
    loss = np.round(np.sum((fractions - target) ** 2, axis=1), _DECIMALS)
    rows = np.flatnonzero(loss == loss.min())
    collapse = fractions[rows].max(axis=1)
    rows = rows[collapse == collapse.min()]
    norm = np.round(np.linalg.norm(candidates[rows], axis=1), _DECIMALS)
    rows = rows[norm == norm.min()]
    for column in candidates.T:
        rows = rows[column[rows] == column[rows].min()]
    return float(loss.min()), float(collapse.min()), float(norm.min()), tuple(candidates[rows[0]])


def _spanned(grid: OffsetGrid) -> bool:
    """Whether the grid's span and its count of steps are finite (1e308 - -1e308 is not)."""
    return math.isfinite((grid.high - grid.low) / grid.step)


def _doubled(grid: OffsetGrid, free: int) -> OffsetGrid | None:
    """The grid's span doubled about its centre, or None past the search's bound.

    Each side grows by half the grid's steps, rounded up to a whole step, so that the wider
    grid holds every value of the narrower one and its fit is never worse.
    """
    half = math.ceil((grid.size - 1) / 2) * grid.step
    if half == 0 or not math.isfinite((grid.high - grid.low + 2 * half) / grid.step):
        return None
    wider = OffsetGrid(grid.low - half, grid.high + half, grid.step)
    return None if wider.size**free > MAX_CANDIDATES else wider


def _pinned(
    table: np.ndarray,
    target: np.ndarray,
    offsets: tuple[float, ...],
    grid: OffsetGrid,
    free: list[int],
) -> bool:
    """Whether the grid binds the fit: an offset on its edge, or a wanted label out of reach."""
    values = grid.values()
    on_edge = any(offsets[label] in (values[0], values[-1]) for label in free)
    return on_edge or _unreachable(table, target, grid, free)


def _unreachable(table: np.ndarray, target: np.ndarray, grid: OffsetGrid, free: list[int]) -> bool:
    """Whether a label with a positive prior can win no row under any offsets of the grid.

    Its own offset at the grid's top and every other free one at its bottom is its best chance.
    A label merely unpredicted by the chosen offsets is no sign that the grid is too narrow.
    """
    values = grid.values()
    for label in np.flatnonzero(target > 0):
        best = np.array([values[0] if y in free else 0.0 for y in range(len(target))])
        best[label] = values[-1] if label in free else 0.0
        shifted = table + best
        if not np.any(shifted[:, label] >= np.delete(shifted, label, axis=1).max(axis=1)):
            return True
    return False
