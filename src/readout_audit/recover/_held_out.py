"""One held-out split's analysis: each readout's accuracy and gaps, recovery, null, budgets.

The main configuration's splits add the prior sensitivity and the slice TF-IDF misses.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np

from readout_audit.data import LABELS
from readout_audit.recover._evaluate import (
    BUDGETS,
    budget_curve,
    evaluate_recovery,
    recovery_intervals,
)
from readout_audit.recover._gap import readout_gap
from readout_audit.recover._offsets import corrected_predictions
from readout_audit.recover._priors import PRIOR_RADII, PriorSensitivity, prior_sensitivity
from readout_audit.recover._slices import tfidf_predictions
from readout_audit.recover._strata import depth_strata
from readout_audit.recover._summary import (
    BudgetResult,
    NativeReadout,
    NullResult,
    PriorResult,
    ReadoutAccuracy,
    ReadoutGap,
    RecoveryResult,
    SliceResult,
    SplitResult,
)
from readout_audit.recover._tables import Settings, Table
from readout_audit.stats import permutation_null

NULL_BINS = 40
STRING = "full string"
LOGITS = "label logits"
SLOT_PROBE = "answer-slot probe"
WHOLE_PROBE = f"{SLOT_PROBE}, one fit on every training row"
"""Shown where the seeds fit bootstrap replicates, which see about 63% distinct rows each."""
OFFSET = "full string + label-free offsets"


def _recovery(
    scores: np.ndarray,
    labels: np.ndarray,
    offsets: np.ndarray,
    clusters: Sequence[str],
    settings: Settings,
) -> RecoveryResult:
    """Raw against corrected on held-out rows, with clustered bootstrap intervals."""
    result = dataclasses.asdict(evaluate_recovery(scores, labels, offsets))
    intervals = recovery_intervals(
        scores, labels, offsets, clusters=clusters, n_boot=settings.n_boot, seed=settings.seed
    )
    return RecoveryResult(
        **result, corrected_interval=intervals.corrected, gain_interval=intervals.gain
    )


def _priors(sensitivity: PriorSensitivity, n: int) -> list[PriorResult]:
    """The sensitivity on ``n`` rows at each of the paper's radii (subsets of the widest's)."""
    rows = []
    for radius in PRIOR_RADII:
        within = sensitivity.within(radius)
        rows.append(
            PriorResult(
                n=n,
                raw_accuracy=within.raw_accuracy,
                n_priors=within.n_priors,
                radius=radius,
                step=within.step,
                worst_accuracy=within.worst_accuracy,
                median_accuracy=within.median_accuracy,
                worst_gain=within.worst_gain,
                worst_macro_f1=within.worst_macro_f1,
            )
        )
    return rows


def _null(pred: np.ndarray, labels: np.ndarray, settings: Settings) -> NullResult:
    null = permutation_null(pred, labels, n_perm=settings.n_perm, seed=settings.seed)
    counts, edges = np.histogram(null.null, bins=NULL_BINS)
    return NullResult(
        observed=null.observed,
        null_mean=null.null_mean,
        null_low=null.null_low,
        null_high=null.null_high,
        gap=null.gap,
        p_value=null.p_value,
        n_perm=settings.n_perm,
        counts=counts.tolist(),
        edges=edges.tolist(),
    )


def _budgets(fit: np.ndarray, scores: np.ndarray, labels: np.ndarray, s: Settings) -> list[Any]:
    """The fit-budget curve: the paper's budgets below the fit split's size, then all of it."""
    budgets = [b for b in BUDGETS if b < len(fit)] + [len(fit)]
    rows = budget_curve(
        fit, scores, labels, budgets=budgets, seed=s.seed, prior=s.prior, grid=s.grid
    )
    return [
        BudgetResult(
            budget=row.budget,
            draws=len(row.accuracies),
            mean=row.mean,
            sd=row.sd,
            minimum=min(row.accuracies),
            n_positive=row.n_positive,
            raw_accuracy=row.raw_accuracy,
            macro_f1=row.macro_f1,
            null_gap=row.null_gap,
            null_gap_min=min(row.null_gaps),
        )
        for row in rows
    ]


def _accuracy(pred: np.ndarray, labels: np.ndarray) -> float:
    return float(np.mean(pred == labels))


def analyse_split(
    name: str,
    table: Table,
    fit: Table,
    offsets: tuple[np.ndarray, np.ndarray],
    probes: dict[str, np.ndarray],
    train: Table,
    full: bool,
    s: Settings,
    native: list[NativeReadout],
) -> SplitResult:
    """One held-out split: ``offsets`` are the sum and mean scores' label-free offsets."""
    labels = table.labels
    assert labels is not None
    readouts, correct = _readout_accuracies(table, probes)
    clusters = [r.cluster for r in table.records]
    gaps = _gaps(correct, clusters, s)
    corrected = corrected_predictions(table.sums, offsets[0])
    readouts.append(
        ReadoutAccuracy(readout=OFFSET, accuracy=_accuracy(corrected, labels), n=len(labels))
    )
    correct[OFFSET] = (corrected == labels).astype(float)
    budgets, priors, slices = (
        _fit_sensitivity(table, fit, train, offsets[0], s) if full else ([], [], None)
    )
    return SplitResult(
        split=name,
        n=len(labels),
        gold_histogram=np.bincount(labels, minlength=len(LABELS)).tolist(),
        readouts=readouts,
        gaps=gaps,
        recovery=_recovery(table.sums, labels, offsets[0], clusters, s),
        recovery_mean=_recovery(table.means, labels, offsets[1], clusters, s),
        null=_null(corrected, labels, s),
        budgets=budgets,
        priors=priors,
        tfidf=slices,
        depths=depth_strata(correct, [r.depth for r in table.records]),
        native=native,
    )


def _readout_accuracies(
    table: Table, probes: dict[str, np.ndarray]
) -> tuple[list[ReadoutAccuracy], dict[str, np.ndarray]]:
    """Each probe's and each score's accuracy, and per readout each example's correctness.

    A probe's correctness is its seeds' mean; its sd is across seeds, where there are several.
    """
    labels = table.labels
    assert labels is not None
    correct: dict[str, np.ndarray] = {}
    readouts = []
    for readout, values in probes.items():
        per_seed = values.mean(axis=1)
        readouts.append(
            ReadoutAccuracy(
                readout=readout,
                accuracy=float(values.mean()),
                sd=float(np.std(per_seed, ddof=1)) if len(per_seed) > 1 else None,
                n=len(labels),
                seeds_agree=bool(np.all(values == values[0])) if len(per_seed) > 1 else None,
            )
        )
        correct[readout] = values.mean(axis=0)
    if table.logits is not None:
        correct[LOGITS] = (np.argmax(table.logits, axis=1) == labels).astype(float)
    correct["first-label token"] = (np.argmax(table.firsts, axis=1) == labels).astype(float)
    raw = corrected_predictions(table.sums, np.zeros(len(LABELS)))
    correct[STRING] = (raw == labels).astype(float)
    correct["full string (mean)"] = (np.argmax(table.means, axis=1) == labels).astype(float)
    readouts += [
        ReadoutAccuracy(readout=r, accuracy=float(c.mean()), n=len(labels))
        for r, c in correct.items()
        if r not in probes
    ]
    return readouts, correct


def _gaps(correct: dict[str, np.ndarray], clusters: list[str], s: Settings) -> list[ReadoutGap]:
    """The probe, label-logit and string readouts' paired gaps, among those the split has."""
    pairs = [
        (a, b)
        for a, b in ((SLOT_PROBE, LOGITS), (SLOT_PROBE, STRING), (LOGITS, STRING))
        if a in correct and b in correct
    ]
    found = (
        readout_gap(correct, pairs, n_boot=s.n_boot, seed=s.seed, clusters=clusters)
        if pairs  # none without hidden states (a served model): no probe, no label logits
        else []
    )
    return [
        ReadoutGap(a=g.a, b=g.b, difference=g.difference, low=g.low, high=g.high, p_value=g.p_value)
        for g in found
    ]


def _fit_sensitivity(
    table: Table, fit: Table, train: Table, offsets: np.ndarray, s: Settings
) -> tuple[list[BudgetResult], list[PriorResult], SliceResult | None]:
    """The main configuration's extras: the fit-budget curve, the prior sensitivity, the slice."""
    labels = table.labels
    assert labels is not None
    budgets = _budgets(fit.sums, table.sums, labels, s)
    sensitivity = prior_sensitivity(fit.sums, table.sums, labels, grid=s.grid)
    priors = _priors(sensitivity, len(labels))
    slices = None
    if train.labels is not None and len(train.records):
        slices = _tfidf(table, fit, train, offsets, sensitivity, s)
    return budgets, priors, slices


def _tfidf(
    table: Table,
    fit: Table,
    train: Table,
    offsets: np.ndarray,
    sensitivity: PriorSensitivity,
    s: Settings,
) -> SliceResult:
    labels = table.labels
    assert labels is not None and train.labels is not None
    predicted = tfidf_predictions(
        [r.text for r in train.records],
        train.labels,
        [r.text for r in table.records],
        k=len(LABELS),
    )
    missed = predicted != labels
    if not missed.any():
        return SliceResult(tfidf_accuracy=1.0, n_missed=0, recovery=None, null=None, budgets=[])
    scores, gold = table.sums[missed], labels[missed]
    clusters = [r.cluster for r, m in zip(table.records, missed, strict=True) if m]
    return SliceResult(
        tfidf_accuracy=_accuracy(predicted, labels),
        n_missed=int(missed.sum()),
        recovery=_recovery(scores, gold, offsets, clusters, s),
        null=_null(corrected_predictions(scores, offsets), gold, s),
        budgets=_budgets(fit.sums, scores, gold, s),
        priors=_priors(sensitivity.judged_on(scores, gold), len(gold)),
    )
