"""The prior-conditioned offset fit against a brute-force search, on hand-made score tables."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from readout_audit._exceptions import InputError
from readout_audit.recover import OffsetGrid, _offsets, corrected_predictions, fit_offsets
from readout_audit.recover._checks import grid_checks
from readout_audit.recover._summary import ConfigurationResult


def brute_force(scores, prior, reference, values):
    """Every grid vector in plain Python; the best by (loss, collapse, norm, offsets)."""
    n, k = len(scores), len(scores[0])
    free = [label for label in range(k) if label != reference]
    best = None
    for chosen in itertools.product(values, repeat=len(free)):
        offsets = [0.0] * k
        for label, value in zip(free, chosen, strict=True):
            offsets[label] = float(value)
        counts = [0] * k
        for row in scores:
            shifted = [s + c for s, c in zip(row, offsets, strict=True)]
            counts[shifted.index(max(shifted))] += 1
        fractions = [c / n for c in counts]
        loss = round(sum((q - p) ** 2 for q, p in zip(fractions, prior, strict=True)), 12)
        norm = round(math.sqrt(sum(c * c for c in offsets)), 12)
        key = (loss, max(fractions), norm, tuple(offsets))
        best = key if best is None or key < best else best
    return best


COLLAPSED = [  # raw argmax is "unknown" (last) for every row; the ranking underneath is not
    [-1.0, -3.0, 0.0],
    [-1.2, -3.0, 0.0],
    [-3.0, -1.0, 0.0],
    [-3.0, -1.2, 0.0],
    [-3.0, -3.0, 0.0],
    [-3.2, -3.1, 0.0],
]


@pytest.mark.parametrize(
    ("reference", "expected"), [(2, (1.25, 1.25, 0.0)), (0, (0.0, 0.0, -1.25))]
)
def test_grid_search_equals_brute_force_and_a_hand_worked_fit(reference, expected):
    # by hand: a 2/2/2 split needs false and true to beat unknown by more than 1.2 and less
    # than 3.0; the smallest such grid offset is 1.25 (or unknown lowered by 1.25)
    grid = OffsetGrid(-4.0, 4.0, 0.25)
    fit = fit_offsets(np.array(COLLAPSED), reference=reference, grid=grid)
    assert tuple(fit.offsets) == expected
    assert fit.loss == 0.0 and fit.collapse == pytest.approx(1 / 3)
    assert fit.fractions.tolist() == pytest.approx([1 / 3] * 3)
    loss, collapse, _, offsets = brute_force(COLLAPSED, [1 / 3] * 3, reference, grid.values())
    assert (fit.loss, fit.collapse, tuple(fit.offsets)) == (loss, collapse, offsets)
    assert corrected_predictions(np.array(COLLAPSED), fit.offsets).tolist() == [0, 0, 1, 1, 2, 2]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_grid_search_equals_brute_force_on_random_tables_and_priors(seed):
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=(40, 3)) + np.array([0.0, 0.5, 2.0])
    prior = rng.dirichlet([2, 2, 2])
    grid = OffsetGrid(-3.0, 3.0, 0.2)
    fit = fit_offsets(scores, prior, grid=grid)
    loss, collapse, _, offsets = brute_force(scores.tolist(), prior, 2, grid.values())
    assert (fit.loss, fit.collapse, tuple(fit.offsets)) == (loss, collapse, offsets)


def test_two_labels_search_one_offset():
    scores = np.array([[0.0, 1.0], [0.2, 1.0], [0.9, 1.0], [0.1, 1.5]])
    fit = fit_offsets(scores, grid=OffsetGrid(-2.0, 2.0, 0.1))
    loss, _, _, offsets = brute_force(scores.tolist(), [0.5, 0.5], 1, fit.grid.values())
    assert (fit.loss, tuple(fit.offsets)) == (loss, offsets) and loss == 0.0


def test_the_papers_worked_example():
    """Section 3's Qwen3.5-9B lexical-OOD row (gold true) collapses to unknown; offsets fitted on
    unlabelled rows rescue it. The paper does not print its 1,000 fit rows, so these 30 are
    built to pin the printed offsets as the default grid's unique optimum (a uniform prior):
    false must beat unknown by more than 1.52 and less than 1.60 (on the 0.05 grid: 1.55 only),
    true by more than 3.22 and less than 3.30 (3.25 only); the fit must find exactly them."""
    fit_rows = (
        [[-1.52, -10.0, 0.0]] * 10  # false once its offset passes 1.52
        + [[-10.0, -3.22, 0.0]] * 10  # true once its offset passes 3.22
        + [[-1.60, -3.30, 0.0]] * 10  # unknown while false < 1.60 and true < 3.30
    )
    fit = fit_offsets(np.array(fit_rows))
    assert fit.grid == OffsetGrid() and fit.widened == 0 and not fit.pinned
    assert fit.offsets.tolist() == pytest.approx([1.55, 3.25, 0.0], abs=1e-9)
    assert fit.loss == 0.0 and fit.fractions.tolist() == pytest.approx([1 / 3] * 3)
    raw = np.array([[-6.18, -5.89, -3.49]])  # false, true, unknown
    assert corrected_predictions(raw, np.zeros(3))[0] == 2  # raw: unknown
    assert (raw + fit.offsets)[0] == pytest.approx([-4.63, -2.64, -3.49])  # the printed column
    assert corrected_predictions(raw, fit.offsets)[0] == 1  # corrected: true, the gold label


def test_an_optimum_on_the_grid_edge_widens_the_grid_and_is_recorded():
    # false trails by about 14 nats: on the default ±10 grid it is never predicted
    rng = np.random.default_rng(0)
    scores = rng.normal(scale=0.3, size=(90, 3)) + np.array([-14.0, 0.0, 0.0])
    scores[:, 1] += np.repeat([0.8, -0.8, 0.0], 30)
    pinned = fit_offsets(scores, widen=False)
    assert pinned.pinned and pinned.fractions[0] == 0.0  # no offset on ±10 makes it win
    fit = fit_offsets(scores)
    assert fit.widened == 1 and fit.grid == OffsetGrid(-20.0, 20.0, 0.05) and not fit.pinned
    assert 10.0 < fit.offsets[0] < 20.0 and fit.loss < pinned.loss
    # the same fit as a search on the ±20 grid from the start
    wide = fit_offsets(scores, grid=OffsetGrid(-20.0, 20.0, 0.05), widen=False)
    assert (fit.loss, fit.collapse, tuple(fit.offsets)) == (
        wide.loss,
        wide.collapse,
        tuple(wide.offsets),
    )
    # with a prior of 0 for it, the label never predicted is the fit: nothing widens
    zero = fit_offsets(scores, [0.0, 0.5, 0.5])
    assert zero.widened == 0 and zero.grid == OffsetGrid() and not zero.pinned


def test_a_label_35_nats_behind_is_predicted_after_widening_past_a_doubling_that_fails():
    # by hand: false (label 0) trails unknown (the reference, offset 0) by 35 ± 0.9 nats, so it
    # can win a row only with an offset near 35: no offset on ±10 nor on ±20 reaches it; the
    # first doubling that does is ±40
    rng = np.random.default_rng(0)
    scores = rng.normal(scale=0.3, size=(90, 3)) + np.array([-35.0, 0.0, 0.0])
    scores[:, 1] += np.repeat([0.8, -0.8, 0.0], 30)
    gap = scores[:, 2] - scores[:, 0]  # what false's offset must reach to win each row
    assert gap.min() > 20.0 and gap.max() < 40.0
    assert fit_offsets(scores, grid=OffsetGrid(-20.0, 20.0, 0.05), widen=False).pinned
    fit = fit_offsets(scores)
    assert fit.grid == OffsetGrid(-40.0, 40.0, 0.05) and fit.widened == 2 and not fit.pinned
    predicted = np.bincount(np.argmax(scores + fit.offsets, axis=1), minlength=3)
    assert predicted[0] > 0 and fit.fractions.tolist() == pytest.approx(predicted / 90)
    # the first offset at which false wins a row is the smallest gap; the fit's lies beyond it
    assert gap.min() <= fit.offsets[0] < 40.0 and fit.loss < 0.001
    wide = fit_offsets(scores, grid=OffsetGrid(-40.0, 40.0, 0.05), widen=False)
    assert (fit.loss, tuple(fit.offsets)) == (wide.loss, tuple(wide.offsets))


def test_a_grid_is_widened_up_to_its_bound_and_the_check_says_so():
    rng = np.random.default_rng(1)
    far = rng.normal(size=(60, 3)) + np.array([-200.0, 0.0, 0.0])  # beyond any grid allowed
    near = rng.normal(scale=0.3, size=(90, 3)) + np.array([-35.0, 0.0, 0.0])
    bound, widened = fit_offsets(far), fit_offsets(near)
    # ±80 at 0.05 is 3,201² offset vectors; ±160 would be 6,401² > MAX_CANDIDATES
    assert bound.grid == OffsetGrid(-80.0, 80.0, 0.05) and bound.pinned
    assert bound.grid.size**2 <= _offsets.MAX_CANDIDATES < OffsetGrid(-160, 160, 0.05).size ** 2
    results = [
        ConfigurationResult.model_construct(
            configuration=name, offset_grid=(f.grid.low, f.grid.high), offsets_pinned=f.pinned
        )
        for name, f in (("far", bound), ("near", widened))
    ]
    (check,) = grid_checks(results, OffsetGrid())
    assert check.finding.endswith(
        "far: [-80, 80] (still bound: doubling it would exceed 20,000,000 offset vectors); "
        "near: [-40, 40]"
    )
    assert "no wider grid helped" not in (check.repair or "")


def test_grid_values_and_bad_input():
    assert OffsetGrid(-1.0, 1.0, 0.5).values().tolist() == [-1.0, -0.5, 0.0, 0.5, 1.0]
    assert 0.0 in OffsetGrid().values() and OffsetGrid().values().size == 401
    with pytest.raises(InputError, match="step > 0"):
        OffsetGrid(0.0, 1.0, 0.0).values()
    with pytest.raises(InputError, match="prior"):
        fit_offsets(np.zeros((3, 3)), [0.5, 0.5])
    with pytest.raises(InputError, match="non-finite"):
        fit_offsets(np.array([[0.0, np.nan]]))
    with pytest.raises(InputError, match="coarser grid"):
        fit_offsets(np.zeros((2, 5)), grid=OffsetGrid(-10, 10, 0.01))
