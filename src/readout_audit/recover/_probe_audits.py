"""What the probes can and cannot tell (seed 003, Appendix D, Tables 14, 15 and 17).

Three audits of the answer-slot probe, each fitted as :func:`fit_probe` fits the main one:

* **training size** (Table 17): probes on 100, 250, 500, 1,000 and 2,000 training rows (those
  below the training split's size, then the one probe on all of it if it holds no more than
  2,000), each beside the shuffled-label control fitted on as many rows, so a probe's accuracy
  is read against how much it was given;
* **auxiliary targets** (Table 14): the same probe trained to predict something other than the
  answer (the reasoning depth, the queried property, whether a bag-of-words classifier gets
  the item right), each against the majority-class rate of the split it is judged on: a probe
  that decodes everything the items vary in is a weaker witness for the answer;
* **direction stability** (Table 15): a probe trained on a held-out split instead of the
  training split; the cosine between the two probes' weights (in the raw feature space,
  classes flattened), each one's accuracy on the other splits, and how often the two agree
  there. Directions that move between splits bound how far a probe is a fixed property of the
  model.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TypeVar

import numpy as np

from readout_audit._exceptions import InputError
from readout_audit.data import LABELS
from readout_audit.recover._probes import Probe, fit_probe
from readout_audit.recover._record import RecoverRecord
from readout_audit.recover._slices import tfidf_predictions
from readout_audit.recover._summary import AuxiliaryProbe, DirectionRow, ProbeSizeRow
from readout_audit.recover._tables import Settings, Table

T = TypeVar("T")

PROBE_SIZES = (100, 250, 500, 1000, 2000)
"""The paper's probe-training sizes (Table 17)."""


@dataclass(frozen=True)
class Labelled:
    """One split's features and integer targets (in 0..k−1) for a probe audit."""

    x: np.ndarray
    y: np.ndarray


def _mean_accuracy(probes: Sequence[Probe], split: Labelled) -> tuple[float, float]:
    per_seed = [float(np.mean(p.predict(split.x) == split.y)) for p in probes]
    sd = float(np.std(per_seed, ddof=1)) if len(per_seed) > 1 else 0.0
    return float(np.mean(per_seed)), sd


def _size_row(
    train: Labelled, evals: Mapping[str, Labelled], *, seeds: Sequence[int], k: int, size: int
) -> ProbeSizeRow:
    """Probes on ``size`` of the training rows (not all), one per seed, with their controls."""
    fitted = {
        shuffle: [
            fit_probe(
                train.x, train.y, seed=s, max_rows=size, k=k, shuffle_labels=shuffle, seeds=seeds
            )
            for s in seeds
        ]
        for shuffle in (False, True)
    }
    found = {name: _mean_accuracy(fitted[False], split) for name, split in evals.items()}
    return ProbeSizeRow(
        size=size,
        accuracy={name: a for name, (a, _) in found.items()},
        sd={name: sd for name, (_, sd) in found.items()},
        shuffled={name: _mean_accuracy(fitted[True], split)[0] for name, split in evals.items()},
    )


def _every_row(
    train: Labelled, evals: Mapping[str, Labelled], *, seeds: Sequence[int], k: int
) -> ProbeSizeRow:
    """The probe on every training row, fitted once; its control shuffles once per seed."""
    n = train.y.size
    probe = fit_probe(train.x, train.y, seed=seeds[0], max_rows=n, k=k, replicate=False)
    shuffled = [
        fit_probe(train.x, train.y, seed=s, max_rows=n, k=k, shuffle_labels=True, replicate=False)
        for s in seeds
    ]
    return ProbeSizeRow(
        size=n,
        accuracy={name: _mean_accuracy([probe], e)[0] for name, e in evals.items()},
        sd=None,
        shuffled={name: _mean_accuracy(shuffled, e)[0] for name, e in evals.items()},
    )


def probe_sizes(
    train: Labelled,
    evals: Mapping[str, Labelled],
    *,
    seeds: Sequence[int],
    k: int,
    sizes: Sequence[int] = PROBE_SIZES,
) -> list[ProbeSizeRow]:
    """The training-size curve: ``sizes`` below the training rows, then all of them if fewer.

    All of them count only when no more than the largest size (more is a size not asked for);
    the sizes at or above the training rows collapse into that last point. It is the one probe
    on every row, as the paper's 2,000-row point on its 2,000-row split, not a seed's bootstrap
    replicate: no step of that fit is seeded, so it is fitted once and has no sd over seeds.
    """
    n = train.y.size
    rows = [_size_row(train, evals, seeds=seeds, k=k, size=s) for s in sizes if s < n]
    return rows + ([_every_row(train, evals, seeds=seeds, k=k)] if n <= max(sizes) else [])


def auxiliary_probe(
    target: str,
    train: Labelled,
    evals: Mapping[str, Labelled],
    *,
    seeds: Sequence[int],
    max_rows: int,
    k: int,
) -> AuxiliaryProbe:
    """Probes (one per seed) on ``target``'s values, judged on each split against its majority."""
    probes = [
        fit_probe(train.x, train.y, seed=s, max_rows=max_rows, k=k, seeds=seeds) for s in seeds
    ]
    return AuxiliaryProbe(
        target=target,
        classes=k,
        accuracy={name: _mean_accuracy(probes, split)[0] for name, split in evals.items()},
        baseline={
            name: float(np.unique(split.y, return_counts=True)[1].max() / split.y.size)
            for name, split in evals.items()
        },
    )


def encode_targets(values: Sequence[object], known: Sequence[object]) -> np.ndarray:
    """Values as indices of ``known`` (sorted distinct training values); unseen ones as −1.

    A probe never predicts −1, so an example whose value training never saw counts as wrong.
    """
    index = {value: i for i, value in enumerate(known)}
    return np.array([index.get(v, -1) for v in values], dtype=np.int64)


def raw_weights(probe: Probe) -> np.ndarray:
    """The probe's weights on unstandardised features: coef / scale, one row per class."""
    return np.asarray(probe.coef / probe.scale)


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    """The cosine of two weight arrays of one shape, flattened."""
    if a.shape != b.shape:
        raise InputError(f"weights of shapes {a.shape} and {b.shape} differ", field="weights")
    norm = float(np.linalg.norm(a) * np.linalg.norm(b))
    return float(np.sum(a * b) / norm) if norm else 0.0


def direction_stability(
    train: Labelled,
    evals: Mapping[str, Labelled],
    *,
    layer: int,
    seed: int,
    max_rows: int,
    k: int,
) -> list[DirectionRow]:
    """For each held-out split with every label, a probe on it against the training probe.

    Both probes take all their split's rows (up to ``max_rows``, no bootstrap replicate), so
    they differ by the data alone.
    """
    base = fit_probe(train.x, train.y, seed=seed, max_rows=max_rows, k=k, replicate=False)
    rows = []
    for source, split in evals.items():
        if np.unique(split.y).size < k or np.unique(train.y).size < k:
            continue  # weights over other classes are not comparable
        other = fit_probe(split.x, split.y, seed=seed, max_rows=max_rows, k=k, replicate=False)
        others = {name: s for name, s in evals.items() if name != source}
        rows.append(
            DirectionRow(
                source=source,
                layer=layer,
                cosine=cosine(raw_weights(base), raw_weights(other)),
                transfer={n: float(np.mean(other.predict(s.x) == s.y)) for n, s in others.items()},
                agreement={
                    n: float(np.mean(other.predict(s.x) == base.predict(s.x)))
                    for n, s in others.items()
                },
            )
        )
    return rows


def _tfidf_easy(
    train: Table, evals: Mapping[str, Table]
) -> tuple[np.ndarray, dict[str, np.ndarray]] | None:
    """Whether a bag-of-words classifier gets each item right (1) or not (0).

    Training items are judged out of fold (two folds, even and odd rows, each predicted by a
    classifier trained on the other); held-out items by one trained on every training item.
    """
    assert train.labels is not None
    texts = [r.text for r in train.records]
    folds = [np.arange(len(texts)) % 2 == parity for parity in (0, 1)]
    if any(np.unique(train.labels[~fold]).size < 2 for fold in folds):
        return None
    easy = np.zeros(len(texts), dtype=np.int64)
    for fold in folds:
        rest = [t for t, f in zip(texts, fold, strict=True) if not f]
        held = [t for t, f in zip(texts, fold, strict=True) if f]
        easy[fold] = tfidf_predictions(rest, train.labels[~fold], held) == train.labels[fold]
    judged = {
        name: (
            tfidf_predictions(texts, train.labels, [r.text for r in t.records]) == t.labels
        ).astype(np.int64)
        for name, t in evals.items()
    }
    return easy, judged


def _targets(
    train: Table, evals: Mapping[str, Table]
) -> dict[str, tuple[np.ndarray, dict[str, np.ndarray], int]]:
    """The auxiliary targets the records give: (training values, held-out values, classes)."""
    found = {}
    readers: dict[str, Callable[[RecoverRecord], object]] = {
        "depth": lambda r: r.depth,
        "query": lambda r: r.metadata.get("property"),
    }
    for target, read in readers.items():
        values = [read(r) for r in train.records]
        if any(v is None for v in values) or len(set(values)) < 2:
            continue
        known = sorted(set(values), key=str)
        found[target] = (
            encode_targets(values, known),
            {
                name: encode_targets([read(r) for r in t.records], known)
                for name, t in evals.items()
            },
            len(known),
        )
    easy = _tfidf_easy(train, evals)
    if easy is not None and np.unique(easy[0]).size == 2:
        found["TF-IDF-easy"] = (easy[0], easy[1], 2)
    return found


def _one_auxiliary(
    target: str,
    train: Labelled,
    evals: Mapping[str, Labelled],
    settings: Settings,
    classes: int,
) -> list[AuxiliaryProbe]:
    return [
        auxiliary_probe(
            target,
            train,
            evals,
            seeds=settings.probe_seeds,
            max_rows=settings.probe_rows,
            k=classes,
        )
    ]


def _unless_too_few(audit: Callable[[], list[T]]) -> list[T]:
    """An audit's rows, or none when a training sample holds a single class.

    A handful of training rows can draw a sample (a subsample or a seed's replicate) with one
    label, on which no probe can be fitted; that audit is left out rather than the summary.
    """
    try:
        return audit()
    except InputError:
        return []


def audit_probes(
    train: Table,
    evals: Mapping[str, Table],
    states: np.ndarray,
    layers: Sequence[int],
    settings: Settings,
) -> tuple[list[ProbeSizeRow], list[AuxiliaryProbe], list[DirectionRow]]:
    """The three audits of the answer-slot probe, from a run's stored hidden states."""
    labels = train.labels
    if (
        labels is None
        or np.unique(labels).size < 2
        or any(t.labels is None for t in evals.values())
    ):
        return [], [], []
    k = len(LABELS)
    final = len(layers) - 1

    def at(layer: int, y: np.ndarray | None, table: Table) -> Labelled:
        assert y is not None
        return Labelled(table.hidden(states, 1, layer), y)

    held_out = {name: at(final, t.labels, t) for name, t in evals.items()}
    sizes = _unless_too_few(
        lambda: probe_sizes(at(final, labels, train), held_out, seeds=settings.probe_seeds, k=k)
    )
    auxiliary: list[AuxiliaryProbe] = []
    for target, (values, judged, classes) in _targets(train, evals).items():
        tested = {name: Labelled(held_out[name].x, y) for name, y in judged.items()}
        auxiliary += _unless_too_few(
            partial(_one_auxiliary, target, at(final, values, train), tested, settings, classes)
        )
    directions: list[DirectionRow] = []
    for j, layer in enumerate(layers):
        tested = {name: at(j, t.labels, t) for name, t in evals.items()}
        directions += _unless_too_few(
            partial(
                direction_stability,
                at(j, labels, train),
                tested,
                layer=layer,
                seed=settings.probe_seeds[0],
                max_rows=settings.probe_rows,
                k=k,
            )
        )
    return sizes, auxiliary, directions
