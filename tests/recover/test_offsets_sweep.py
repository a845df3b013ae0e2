"""The swept offset fit equals the enumerating search it replaced, bit for bit, even on ties."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from readout_audit.recover import OffsetGrid, _offsets, fit_offsets


def enumerated_fit(table, target, reference, values):
    """The former implementation: every grid vector, in chunks, ranked by one lexsort per chunk."""
    n, k = table.shape
    free = [label for label in range(k) if label != reference]
    best = None
    product = itertools.product(values, repeat=len(free))
    while chunk := list(itertools.islice(product, 2_048)):
        candidates = np.zeros((len(chunk), k))
        candidates[:, free] = np.asarray(chunk)
        winners = np.argmax(table[None, :, :] + candidates[:, None, :], axis=2)
        counts = np.stack([(winners == label).sum(axis=1) for label in range(k)], axis=1)
        fractions = counts / n
        loss = np.round(np.sum((fractions - target) ** 2, axis=1), 12)
        collapse = fractions.max(axis=1)
        norm = np.round(np.linalg.norm(candidates, axis=1), 12)
        order = np.lexsort((*candidates.T[::-1], norm, collapse, loss))
        i = int(order[0])
        key = (float(loss[i]), float(collapse[i]), float(norm[i]), tuple(candidates[i]))
        if best is None or key < best:
            best = key
    return best


def assert_same_fit(table, prior, reference, grid):
    fit = fit_offsets(table, prior, reference=reference, grid=grid, widen=False)
    k = table.shape[1]
    target = np.full(k, 1.0 / k) if prior is None else np.asarray(prior)
    ref = k - 1 if reference is None else reference
    loss, collapse, _, offsets = enumerated_fit(table, target, ref, grid.values())
    assert fit.loss == loss and fit.collapse == collapse
    assert fit.offsets.tobytes() == np.asarray(offsets).tobytes()  # the very same floats


def random_table(rng, kind, n, k):
    """Continuous scores, small integers (many exact ties), or multiples of 0.05 (ties with
    grid offsets), each with a label shift that collapses the raw argmax."""
    shift = np.linspace(0.0, 2.0, k)
    if kind == "normal":
        return rng.normal(size=(n, k)) + shift
    if kind == "integer":
        return rng.integers(-3, 4, size=(n, k)).astype(float) + np.round(shift)
    return np.round(rng.normal(size=(n, k)) * 20) * 0.05 + np.round(shift * 20) * 0.05


@pytest.mark.parametrize("kind", ["normal", "integer", "grid-aligned"])
@pytest.mark.parametrize("k", [2, 3, 4])
@pytest.mark.parametrize("seed", range(4))
def test_the_sweep_equals_the_enumerating_search(kind, k, seed):
    rng = np.random.default_rng([seed, k, len(kind)])
    n = int(rng.integers(1, 60))
    table = random_table(rng, kind, n, k)
    prior = None if seed == 0 else rng.dirichlet(np.ones(k))
    reference = [None, 0, k - 1, int(rng.integers(0, k))][seed]
    grid = {2: OffsetGrid(-4.0, 4.0, 0.05), 3: OffsetGrid(-3.0, 3.0, 0.1)}.get(
        k, OffsetGrid(-1.5, 1.5, 0.25)
    )
    assert_same_fit(table, prior, reference, grid)


@pytest.mark.parametrize("reference", [0, 1, 2])
def test_exact_ties_with_grid_offsets_on_the_default_step(reference):
    # every score difference is a multiple of the grid step, so s_y + c_y ties s_ref at many
    # grid points; the tie goes to the earlier label on both sides of the swept label
    rng = np.random.default_rng(reference)
    table = rng.integers(-8, 9, size=(30, 3)) * 0.05
    assert_same_fit(table, rng.dirichlet([1, 1, 1]), reference, OffsetGrid(-0.6, 0.6, 0.05))


def test_identical_rows_and_a_grid_of_one_value():
    assert_same_fit(np.zeros((5, 3)), None, None, OffsetGrid(0.0, 0.0, 0.1))
    assert_same_fit(np.ones((7, 4)), np.array([0.1, 0.2, 0.3, 0.4]), 1, OffsetGrid(-1, 1, 0.5))


def test_blocks_of_offsets_and_chunks_of_rows_keep_the_first_best(monkeypatch):
    # one offset vector and one row per step: the counts are summed over chunks and the best
    # is carried across blocks, and the result must not move
    rng = np.random.default_rng(11)
    table = np.round(rng.normal(size=(40, 3)) * 4) / 4
    grid = OffsetGrid(-2.0, 2.0, 0.25)
    whole = fit_offsets(table, grid=grid)
    monkeypatch.setattr(_offsets, "_BLOCK_CELLS", 1)
    split = fit_offsets(table, grid=grid)
    assert split.offsets.tobytes() == whole.offsets.tobytes()
    assert_same_fit(table, None, None, grid)
