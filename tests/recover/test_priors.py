"""The prior lattice around uniform, and held-out accuracy of offsets fitted under each prior."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import f1_score

from readout_audit._exceptions import InputError
from readout_audit.recover import (
    PRIOR_RADIUS,
    PRIOR_STEP,
    OffsetGrid,
    corrected_predictions,
    fit_offsets,
    perturbed_priors,
    prior_sensitivity,
)


@pytest.mark.parametrize(("radius", "count"), [(0.0, 1), (0.025, 7), (0.05, 19), (0.10, 61)])
def test_three_label_lattices_have_the_papers_counts(radius, count):
    priors = perturbed_priors(3, radius)
    assert priors.shape == (count, 3)
    assert priors[0].tolist() == [1 / 3] * 3
    assert np.allclose(priors.sum(axis=1), 1.0, rtol=0, atol=1e-15)
    assert np.abs(priors - 1 / 3).max() <= radius + 1e-12
    assert len({tuple(np.round(p, 12)) for p in priors}) == count
    # every prior is uniform plus whole steps
    steps = (priors - 1 / 3) / PRIOR_STEP
    assert np.allclose(steps, np.round(steps), atol=1e-9)


def test_defaults_are_the_widest_setting():
    assert (PRIOR_STEP, PRIOR_RADIUS) == (0.025, 0.10)
    assert perturbed_priors().shape == (61, 3)


def test_the_first_ring_in_order():
    # ring by ring, then v lexicographically: v = (-1, 0, 1), (-1, 1, 0), (0, -1, 1), ...
    third, up, down = 1 / 3, 1 / 3 + 0.025, 1 / 3 - 0.025
    expected = [
        [third, third, third],
        [down, third, up],
        [down, up, third],
        [third, down, up],
        [third, up, down],
        [up, down, third],
        [up, third, down],
    ]
    assert np.array_equal(perturbed_priors(3, 0.025), np.array(expected))


def test_two_labels_by_hand():
    expected = [[0.5, 0.5], [0.475, 0.525], [0.525, 0.475], [0.45, 0.55], [0.55, 0.45]]
    assert np.allclose(perturbed_priors(2, 0.05), expected, rtol=0, atol=1e-15)
    # step 0.25 out to 0.75: (0, 1) stays (a zero entry), (−0.25, 1.25) is dropped
    assert perturbed_priors(2, 0.75, 0.25).tolist() == [
        [0.5, 0.5],
        [0.25, 0.75],
        [0.75, 0.25],
        [0.0, 1.0],
        [1.0, 0.0],
    ]


def test_four_labels_first_ring():
    # 1 + 12 vectors like (1, −1, 0, 0) + 6 like (1, 1, −1, −1)
    priors = perturbed_priors(4, 0.025)
    assert priors.shape == (19, 4) and priors[0].tolist() == [0.25] * 4


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"k": 1}, "k"),
        ({"k": 2.0}, "k"),
        ({"step": 0.0}, "step"),
        ({"step": float("nan")}, "step"),
        ({"radius": -0.1}, "radius"),
        ({"radius": float("inf")}, "radius"),
        ({"k": 12, "radius": 0.1}, "radius"),
    ],
)
def test_bad_lattice_arguments_name_their_field(kwargs, field):
    with pytest.raises(InputError) as error:
        perturbed_priors(**kwargs)
    assert error.value.field == field


def collapsed(rng, gold):
    """Scores that hold the gold label under a shift that sends the raw argmax to the last."""
    return rng.normal(size=(gold.size, 3)) * 0.6 + np.eye(3)[gold] * 1.5 + [0.0, 0.4, 2.5]


def test_sensitivity_equals_a_direct_loop():
    rng = np.random.default_rng(5)
    gold_fit, gold_eval = rng.integers(0, 3, 150), rng.integers(0, 3, 120)
    fit_scores, eval_scores = collapsed(rng, gold_fit), collapsed(rng, gold_eval)
    grid = OffsetGrid(-5.0, 5.0, 0.1)
    result = prior_sensitivity(fit_scores, eval_scores, gold_eval, radius=0.05, grid=grid)
    assert result.n_priors == 19
    accuracies, f1s = [], []
    for i, prior in enumerate(perturbed_priors(3, 0.05)):
        offsets = fit_offsets(fit_scores, prior, grid=grid).offsets
        assert np.array_equal(result.offsets[i], offsets)
        predicted = corrected_predictions(eval_scores, offsets)
        accuracies.append(np.mean(predicted == gold_eval))
        f1s.append(f1_score(gold_eval, predicted, average="macro", labels=[0, 1, 2]))
    raw = np.mean(np.argmax(eval_scores, axis=1) == gold_eval)
    assert result.accuracies.tolist() == accuracies
    assert result.macro_f1s.tolist() == pytest.approx(f1s, abs=1e-12)
    assert result.raw_accuracy == raw
    assert result.worst_accuracy == min(accuracies)
    assert result.median_accuracy == sorted(accuracies)[9]
    assert result.worst_gain == min(accuracies) - raw
    assert result.worst_macro_f1 == pytest.approx(min(f1s), abs=1e-12)
    # the collapse is real and every prior near uniform recovers from it
    assert raw < 0.5 and result.worst_gain > 0.2


def test_sensitivity_rejects_mismatched_tables_and_labels():
    scores = np.zeros((4, 3))
    with pytest.raises(InputError) as error:
        prior_sensitivity(np.zeros((4, 2)), scores, [0, 1, 2, 0])
    assert error.value.field == "eval_scores"
    with pytest.raises(InputError) as error:
        prior_sensitivity(scores, scores, [0, 1, 3, 0])
    assert error.value.field == "labels"
