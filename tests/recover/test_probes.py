"""Linear probes: as a direct scikit-learn pipeline, seeded, at chance on shuffled labels."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from readout_audit._exceptions import InputError
from readout_audit.data._logic import LABELS
from readout_audit.recover import (
    PROBE_ROWS,
    PROBE_SEEDS,
    fit_probe,
    probe_predictions,
    recover_splits,
)


def gaussian_clusters(n: int, d: int, seed: int, spread: float) -> tuple[np.ndarray, np.ndarray]:
    """Three Gaussian clusters, fixed centres of norm ~``spread``; labels 0, 1, 2 in turn."""
    labels = np.arange(n) % 3
    centres = np.random.default_rng(0).normal(size=(3, d)) * spread / np.sqrt(d)
    return centres[labels] + np.random.default_rng(seed).normal(size=(n, d)), labels


def direct_pipeline(x, y, seed, max_rows, shuffle=False):
    """The paper's probe written out with scikit-learn: seeded rows (a seeded bootstrap
    replicate when there are no more rows than it takes), scaler, L-BFGS, C = 1."""
    rng = np.random.default_rng(seed)
    n = len(x)
    rows = np.sort(rng.choice(n, max_rows if n > max_rows else n, replace=n <= max_rows))
    y_train = rng.permutation(y[rows]) if shuffle else y[rows]
    pipeline = make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=1000))
    return pipeline.fit(x[rows], y_train), rows


@pytest.mark.parametrize(("seed", "shuffle"), [(42, False), (123, False), (456, True)])
def test_probe_equals_a_direct_scikit_learn_pipeline(seed, shuffle):
    x, y = gaussian_clusters(300, 10, 1, spread=2.0)  # overlapping: accuracy well below 1
    held_out, gold = gaussian_clusters(200, 10, 2, spread=2.0)
    probe = fit_probe(x, y, seed=seed, max_rows=200, shuffle_labels=shuffle)
    pipeline, rows = direct_pipeline(x, y, seed, 200, shuffle)
    assert np.array_equal(probe.rows, rows)
    assert np.array_equal(probe.predict(held_out), pipeline.predict(held_out))
    np.testing.assert_allclose(probe.coef, pipeline[-1].coef_, rtol=1e-12)
    assert probe.converged
    if not shuffle:
        assert 0.5 < np.mean(probe.predict(held_out) == gold) < 0.95


def test_two_classes_seen_is_a_binary_fit_with_the_original_indices():
    x, y = gaussian_clusters(300, 6, 3, spread=2.0)
    keep = y != 1
    probe = fit_probe(x[keep], y[keep], seed=42)
    pipeline, _ = direct_pipeline(x[keep], y[keep], 42, 2000)
    assert probe.classes.tolist() == [0, 2] and probe.coef.shape == (1, 6)
    assert np.array_equal(probe.predict(x), pipeline.predict(x))
    assert set(probe.predict(x)) == {0, 2}


def test_subsample_is_seeded_and_refits_are_identical():
    x, y = gaussian_clusters(500, 8, 4, spread=2.0)
    first, again = fit_probe(x, y, seed=123, max_rows=100), fit_probe(x, y, seed=123, max_rows=100)
    assert first.rows.size == 100 and np.unique(first.rows).size == 100
    assert np.all(np.diff(first.rows) > 0) and first.rows[-1] < 500
    assert np.array_equal(first.rows, again.rows)
    assert np.array_equal(first.predict(x), again.predict(x))
    assert not np.array_equal(first.rows, fit_probe(x, y, seed=456, max_rows=100).rows)
    # no more rows than the probe takes: each seed its own bootstrap replicate of them
    replicate = fit_probe(x, y, seed=7, max_rows=500).rows
    assert replicate.size == 500 and np.unique(replicate).size < 500
    assert not np.array_equal(replicate, fit_probe(x, y, seed=8, max_rows=500).rows)
    assert np.array_equal(
        fit_probe(x, y, seed=7, max_rows=500, replicate=False).rows, np.arange(500)
    )


def test_seeds_with_rows_enough_each_fit_their_own_distinct_rows():
    # 300 rows, 100 per probe, three seeds: disjoint blocks of one permutation, no row twice
    x, y = gaussian_clusters(300, 6, 9, spread=2.0)
    held_out = gaussian_clusters(90, 6, 10, spread=2.0)[0]
    order = np.random.default_rng(list(PROBE_SEEDS)).permutation(300)
    predictions = probe_predictions(x, y, {"held_out": held_out}, max_rows=100)["held_out"]
    rows = []
    for i, seed in enumerate(PROBE_SEEDS):
        probe = fit_probe(x, y, seed=seed, max_rows=100, seeds=PROBE_SEEDS)
        assert np.array_equal(probe.rows, np.sort(order[100 * i : 100 * (i + 1)]))
        pipeline = make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=1000))
        pipeline.fit(x[probe.rows], y[probe.rows])
        assert np.array_equal(predictions[i], pipeline.predict(held_out))
        rows.append(probe.rows)
    assert np.array_equal(np.sort(np.concatenate(rows)), np.arange(300))  # distinct, disjoint
    # fewer rows than that: each seed draws its own 100 without replacement, as it does alone
    fewer = fit_probe(x[:250], y[:250], seed=42, max_rows=100, seeds=PROBE_SEEDS)
    assert np.array_equal(fewer.rows, fit_probe(x[:250], y[:250], seed=42, max_rows=100).rows)
    with pytest.raises(InputError, match="field 'seeds'"):
        fit_probe(x, y, seed=7, seeds=PROBE_SEEDS)


def test_a_generated_training_split_gives_each_probe_seed_its_own_items():
    splits = recover_splits(generate="controlled-logic", n=3, evals=["id"])
    texts = [f"{item.context}\n{item.statement}" for item in splits.train]
    assert len(texts) == PROBE_ROWS * len(PROBE_SEEDS) == len(set(texts))  # 6,000 distinct items
    labels = np.array([LABELS.index(item.label) for item in splits.train])
    features = np.eye(3)[labels] + np.random.default_rng(0).normal(size=(len(labels), 3))
    seen = [fit_probe(features, labels, seed=seed, seeds=PROBE_SEEDS).rows for seed in PROBE_SEEDS]
    assert all(np.unique(rows).size == PROBE_ROWS for rows in seen)
    assert np.unique(np.concatenate(seen)).size == len(texts)


def test_shuffled_labels_stay_near_chance_on_separable_data():
    # 600 rows of 300 features, as hidden states are wider than the probe's training rows
    x, y = gaussian_clusters(600, 300, 1, spread=9.0)
    held_out, gold = gaussian_clusters(600, 300, 2, spread=9.0)
    real = probe_predictions(x, y, {"held_out": held_out})["held_out"]
    shuffled = probe_predictions(x, y, {"held_out": held_out}, shuffle_labels=True)["held_out"]
    assert np.all(real == gold)  # separable: every seed's probe is exact
    accuracy = (shuffled == gold).mean(axis=1)  # measured 0.330, 0.337, 0.342
    assert np.all(accuracy < 0.40), accuracy


def test_probe_predictions_stack_one_row_per_seed():
    x, y = gaussian_clusters(120, 5, 5, spread=2.0)
    splits = {"id": gaussian_clusters(30, 5, 6, 2.0)[0], "ood": gaussian_clusters(20, 5, 7, 4.0)[0]}
    out = probe_predictions(x, y, splits, max_rows=80)
    assert {name: a.shape for name, a in out.items()} == {"id": (3, 30), "ood": (3, 20)}
    for i, seed in enumerate(PROBE_SEEDS):
        probe = fit_probe(x, y, seed=seed, max_rows=80)
        assert np.array_equal(out["ood"][i], probe.predict(splits["ood"]))
    # no subsample (120 rows ≤ 2,000): each seed fits its own replicate, so seeds differ
    whole = probe_predictions(x, y, splits)
    for i, seed in enumerate(PROBE_SEEDS):
        assert np.array_equal(whole["id"][i], fit_probe(x, y, seed=seed).predict(splits["id"]))
    assert not all(np.array_equal(whole["ood"][0], row) for row in whole["ood"][1:])


def test_bad_input_names_the_field():
    x, y = gaussian_clusters(30, 4, 8, spread=2.0)
    cases = [
        (lambda: fit_probe(x, y[:-1], seed=0), "field 'labels'.*expected 30 labels"),
        (lambda: fit_probe(x, np.where(y == 2, 3, y), seed=0), "label 3 at row 2 is outside 0..2"),
        (lambda: fit_probe(x, np.zeros(30, int), seed=0), "only label \\[0\\]"),
        (lambda: fit_probe(np.where(x > 2, np.nan, x), y, seed=0), "field 'features'.*non-finite"),
        (lambda: fit_probe(x[0], y, seed=0), "field 'features'.*shape"),
        (lambda: fit_probe(x, y + 0.5, seed=0), "labels must be integers"),
        (lambda: fit_probe(x, y, seed=0, k=1), "field 'k'"),
        (lambda: fit_probe(x, y, seed=0, max_rows=1), "field 'max_rows'"),
        (lambda: fit_probe(x, y, seed=0).predict(x[:, :3]), "expected shape \\(rows, 4\\)"),
        (lambda: probe_predictions(x, y, {"ood": x[:, :3]}), "field \"evals\\['ood'\\]\""),
        (lambda: probe_predictions(x, y[:5], {}), "field 'train_y'"),
        (lambda: probe_predictions(x, y, {}, seeds=()), "field 'seeds'"),
    ]
    for call, message in cases:
        with pytest.raises(InputError, match=message):
            call()


def test_importing_the_package_does_not_load_scikit_learn():
    code = (
        "import sys, readout_audit; "
        "from readout_audit.recover import fit_probe, readout_gap, tfidf_predictions; "
        "assert 'sklearn' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
