"""The probe audits (training size, other targets, direction stability) against scikit-learn.

Every probe is refitted here with scikit-learn's own pipeline on the rows the documented
sampling picks; the audits must give the same accuracies, weights and agreements.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import cosine as cosine_distance
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from readout_audit.recover._probe_audits import (
    Labelled,
    auxiliary_probe,
    cosine,
    direction_stability,
    encode_targets,
    probe_sizes,
)
from readout_audit.recover._report_audits import probe_section
from readout_audit.recover._summary import ConfigurationResult, SplitResult
from readout_audit.report import TableBlock

SEEDS = (42, 123)


def _split(rng, n, shift=0.0, k=3, width=12):
    y = rng.integers(0, k, n)
    x = rng.normal(size=(n, width)) + np.eye(k, width)[y] * 1.5 + shift
    return Labelled(x, y)


def _sklearn(x, y):
    return make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=1000)).fit(x, y)


def _rows(n, size, seed, shuffle, y, replicate=False):
    """fit_probe's documented sampling: disjoint blocks with ``size`` rows for every seed, a
    subsample below n rows, at n all of them (or a bootstrap replicate when ``replicate``)."""
    rng = np.random.default_rng(seed)
    if n >= len(SEEDS) * size:
        start = SEEDS.index(seed) * size
        rows = np.sort(np.random.default_rng(list(SEEDS)).permutation(n)[start : start + size])
    elif n > size:
        rows = np.sort(rng.choice(n, size=size, replace=False))
    else:
        rows = np.sort(rng.choice(n, size=n, replace=True)) if replicate else np.arange(n)
    return rows, (rng.permutation(y[rows]) if shuffle else y[rows])


def test_training_size_curve_equals_refits():
    rng = np.random.default_rng(0)
    train, held = _split(rng, 300), {"a": _split(rng, 80), "b": _split(rng, 60, shift=0.3)}
    rows = probe_sizes(train, held, seeds=SEEDS, k=3, sizes=(100, 250, 500))
    assert [r.size for r in rows] == [100, 250, 300]
    for row in rows:
        for name, split in held.items():
            found = {False: [], True: []}
            for shuffle in found:
                for seed in SEEDS:
                    used, y = _rows(300, row.size, seed, shuffle, train.y)
                    model = _sklearn(train.x[used], y)
                    found[shuffle].append(np.mean(model.predict(split.x) == split.y))
            assert row.accuracy[name] == pytest.approx(np.mean(found[False]), abs=1e-12)
            if row.size < 300:
                assert row.sd[name] == pytest.approx(np.std(found[False], ddof=1), abs=1e-12)
            assert row.shuffled[name] == pytest.approx(np.mean(found[True]), abs=1e-12)
    assert rows[-1].accuracy["a"] > 0.6 > np.mean([r.shuffled["a"] for r in rows])
    # more rows than the largest size: the curve stops there, each seed on its own 250 rows
    capped = probe_sizes(train, held, seeds=SEEDS, k=3, sizes=(100, 150))
    assert [r.size for r in capped] == [100, 150]


def test_last_point_is_the_probe_on_every_training_row_and_named_so():
    """Sizes at or above the 150 training rows collapse into one point: the probe on all of
    them, as an independent scikit-learn fit on every row reads it, not the seeds' bootstrap
    replicates (0.75 and 0.77 on "a" here, the full probe 0.80: a replicate holds about 63%
    distinct rows)."""
    rng = np.random.default_rng(4)
    train, held = _split(rng, 150), {"a": _split(rng, 100), "b": _split(rng, 100, shift=0.3)}
    rows = probe_sizes(train, held, seeds=SEEDS, k=3, sizes=(100, 150, 500))
    assert [(r.size, r.sd is None) for r in rows] == [(100, False), (150, True)]
    full = make_pipeline(
        StandardScaler(), LogisticRegression(C=1.0, solver="lbfgs", max_iter=1000)
    ).fit(train.x, train.y)
    replicates = []
    for seed in SEEDS:
        used, y = _rows(150, 150, seed, False, train.y, replicate=True)
        replicates.append(np.mean(_sklearn(train.x[used], y).predict(held["a"].x) == held["a"].y))
    for name, split in held.items():
        assert rows[-1].accuracy[name] == pytest.approx(
            np.mean(full.predict(split.x) == split.y), abs=1e-12
        )
    assert rows[-1].accuracy["a"] == pytest.approx(0.80) and replicates == pytest.approx(
        [0.75, 0.77]
    )
    config = ConfigurationResult.model_construct(
        configuration="main",
        candidates=list("tfu"),
        splits=[
            SplitResult.model_construct(split=name, n=100, gold_histogram=[40, 30, 30], readouts=[])
            for name in held
        ],
        probe_sizes=rows,
        auxiliary=[],
        directions=[],
    )
    section = probe_section(config)
    assert section is not None
    (table, *_) = section.blocks
    assert isinstance(table, TableBlock)
    assert [r[0] for r in table.rows] == ["100", "all 150 rows (one fit)"]
    assert table.rows[-1][1] == f"0.800 ({rows[-1].shuffled['a']:.3f})"
    assert "±" in table.rows[0][1] and '"all N rows" is the one probe' in (table.note or "")


def test_auxiliary_targets_against_majority_and_unseen_values():
    rng = np.random.default_rng(1)
    depth = rng.integers(0, 2, 200)
    x = rng.normal(size=(200, 8)) + depth[:, None] * 2.0
    values = [int(d) + 1 for d in depth]  # depths 1 and 2
    known = sorted(set(values))
    held_values = [1, 2, 3, 3, 1, 2, 2, 2]  # depth 3: never seen in training
    held_x = rng.normal(size=(8, 8)) + np.array([0, 1, 1, 1, 0, 1, 1, 1])[:, None] * 2.0
    target = encode_targets(held_values, known)
    assert target.tolist() == [0, 1, -1, -1, 0, 1, 1, 1]
    row = auxiliary_probe(
        "depth",
        Labelled(x, encode_targets(values, known)),
        {"deep": Labelled(held_x, target)},
        seeds=(7,),
        max_rows=500,
        k=2,
    )
    used, y = _rows(200, 500, 7, False, encode_targets(values, known))
    model = _sklearn(x[used], y)
    assert row.accuracy["deep"] == np.mean(model.predict(held_x) == target)
    assert row.accuracy["deep"] <= 6 / 8  # the two unseen depths count as wrong
    # the majority rate counts the unseen value as a class of its own
    assert row.baseline["deep"] == 4 / 8 and (row.target, row.classes) == ("depth", 2)


def test_direction_stability_equals_scikit_learn_weights():
    rng = np.random.default_rng(2)
    train = _split(rng, 150)
    held = {"a": _split(rng, 90), "b": _split(rng, 90, shift=0.5), "two": _split(rng, 40, k=2)}
    rows = direction_stability(train, held, layer=7, seed=5, max_rows=1000, k=3)
    assert [r.source for r in rows] == ["a", "b"]  # "two" lacks a label: no comparable weights
    base = _sklearn(train.x, train.y)

    def weights(model):
        scaler, logistic = model.steps[0][1], model.steps[1][1]
        return logistic.coef_ / scaler.scale_

    for row in rows:
        other = _sklearn(held[row.source].x, held[row.source].y)
        expected = 1 - cosine_distance(weights(base).ravel(), weights(other).ravel())
        assert row.cosine == pytest.approx(expected, abs=1e-9)
        assert row.layer == 7 and set(row.transfer) == set(held) - {row.source}
        for name in row.transfer:
            split = held[name]
            assert row.transfer[name] == np.mean(other.predict(split.x) == split.y)
            assert row.agreement[name] == np.mean(other.predict(split.x) == base.predict(split.x))
    assert cosine(np.ones((2, 3)), -np.ones((2, 3))) == pytest.approx(-1.0)
    assert cosine(np.zeros(3), np.ones(3)) == 0.0
