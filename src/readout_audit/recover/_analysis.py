"""A recovery run's analysis from its files alone: probes, offsets, nulls, slices and budgets.

Everything is recomputed from ``records.jsonl``, ``hidden.f32`` and the manifest, so a run can
be re-analysed (other seeds, another grid) without the model.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from readout_audit.data._logic import LABELS
from readout_audit.log._run import Run
from readout_audit.log._summary import Check, Verdict
from readout_audit.readout import MASS_FLOOR
from readout_audit.recover._evaluate import (
    BUDGETS,
    budget_curve,
    evaluate_recovery,
    recovery_intervals,
)
from readout_audit.recover._gap import readout_gap
from readout_audit.recover._leakage import LeakageText, surface_leakage
from readout_audit.recover._native import best_native, native_accuracies, native_rows
from readout_audit.recover._offsets import (
    MAX_CANDIDATES,
    OffsetGrid,
    corrected_predictions,
    fit_offsets,
)
from readout_audit.recover._priors import PRIOR_RADII, PriorSensitivity, prior_sensitivity
from readout_audit.recover._probe_audits import audit_probes
from readout_audit.recover._probes import fit_probe, probe_predictions
from readout_audit.recover._record import RecoverRecord
from readout_audit.recover._seeds import seed_aggregates
from readout_audit.recover._slices import tfidf_predictions
from readout_audit.recover._store import HiddenLayout, read_hidden
from readout_audit.recover._strata import depth_strata
from readout_audit.recover._summary import (
    BudgetResult,
    ConfigurationResult,
    LeakageResult,
    NativeReadout,
    NullResult,
    PriorResult,
    ReadoutAccuracy,
    ReadoutGap,
    RecoverSummary,
    RecoveryResult,
    SliceResult,
    SplitResult,
)
from readout_audit.recover._tables import Settings, Table
from readout_audit.stats._permutation import permutation_null

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


def _probe_correct(
    train: Table,
    evals: dict[str, Table],
    states: Any,
    layers: Sequence[int],
    settings: Settings,
) -> dict[str, dict[str, np.ndarray]]:
    """Per held-out split and probe readout, each example's correctness (one row per seed).

    With no more training rows than a probe takes, the seeds' probes are bootstrap replicates;
    the answer-slot probe fitted once on every row is added beside them (one row).
    """
    correct: dict[str, dict[str, np.ndarray]] = {name: {} for name in evals}
    if states is None or train.labels is None or len(set(train.labels.tolist())) < 2:
        return correct
    final = len(layers) - 1
    probes = [
        (position, index, name if index == final else f"{name} (layer {layer})", False)
        for position, name in ((0, "prompt-end probe"), (1, SLOT_PROBE))
        for index, layer in enumerate(layers)
    ]
    probes.append((1, final, f"{SLOT_PROBE}, shuffled labels", True))
    for position, layer, readout, shuffle in probes:
        predictions = probe_predictions(
            train.hidden(states, position, layer),
            train.labels,
            {name: t.hidden(states, position, layer) for name, t in evals.items()},
            seeds=settings.probe_seeds,
            max_rows=settings.probe_rows,
            k=len(LABELS),
            shuffle_labels=shuffle,
        )
        for name, table in evals.items():
            correct[name][readout] = (predictions[name] == table.labels).astype(float)
    if train.labels.size <= settings.probe_rows:
        whole = fit_probe(
            train.hidden(states, 1, final),
            train.labels,
            seed=settings.probe_seeds[0],
            max_rows=settings.probe_rows,
            k=len(LABELS),
            replicate=False,
        )
        for name, table in evals.items():
            right = whole.predict(table.hidden(states, 1, final)) == table.labels
            correct[name][WHOLE_PROBE] = right[None, :].astype(float)
    return correct


def _split(
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
    labels = table.labels
    assert labels is not None
    k = len(LABELS)
    raw = corrected_predictions(table.sums, np.zeros(k))
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
    correct[STRING] = (raw == labels).astype(float)
    correct["full string (mean)"] = (np.argmax(table.means, axis=1) == labels).astype(float)
    readouts += [
        ReadoutAccuracy(readout=r, accuracy=float(c.mean()), n=len(labels))
        for r, c in correct.items()
        if r not in probes
    ]
    pairs = [
        (a, b)
        for a, b in ((SLOT_PROBE, LOGITS), (SLOT_PROBE, STRING), (LOGITS, STRING))
        if a in correct and b in correct
    ]
    clusters = [r.cluster for r in table.records]
    found = (
        readout_gap(correct, pairs, n_boot=s.n_boot, seed=s.seed, clusters=clusters)
        if pairs  # none without hidden states (a served model): no probe, no label logits
        else []
    )
    gaps = [
        ReadoutGap(a=g.a, b=g.b, difference=g.difference, low=g.low, high=g.high, p_value=g.p_value)
        for g in found
    ]
    corrected = corrected_predictions(table.sums, offsets[0])
    readouts.append(
        ReadoutAccuracy(readout=OFFSET, accuracy=_accuracy(corrected, labels), n=len(labels))
    )
    correct[OFFSET] = (corrected == labels).astype(float)
    priors: list[PriorResult] = []
    slices = None
    budgets: list[BudgetResult] = []
    if full:
        budgets = _budgets(fit.sums, table.sums, labels, s)
        sensitivity = prior_sensitivity(fit.sums, table.sums, labels, grid=s.grid)
        priors = _priors(sensitivity, len(labels))
        if train.labels is not None and len(train.records):
            slices = _tfidf(table, fit, train, offsets[0], sensitivity, s)
    return SplitResult(
        split=name,
        n=len(labels),
        gold_histogram=np.bincount(labels, minlength=k).tolist(),
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


def _native(
    train: Table, evals: dict[str, Table], layers: Sequence[int]
) -> dict[str, list[NativeReadout]]:
    """Per held-out split, the output layer at every stored position and layer."""
    selected = None
    if train.lens is not None and train.labels is not None:
        selected = best_native(native_accuracies(train.lens, train.labels))
    return {
        name: native_rows(native_accuracies(t.lens, t.labels), layers, selected)
        if t.lens is not None and t.labels is not None
        else []
        for name, t in evals.items()
    }


def _configuration(
    name: str,
    records: list[RecoverRecord],
    full: bool,
    states: Any,
    layers: Sequence[int],
    s: Settings,
) -> ConfigurationResult | None:
    by_split: dict[str, list[RecoverRecord]] = {}
    for record in records:
        by_split.setdefault(record.split, []).append(record)
    roles = {r.split: r.role for r in records}
    fit = Table.of(by_split.get("fit", []))
    train = Table.of(by_split.get("train", []))
    evals = {n: Table.of(rs) for n, rs in by_split.items() if roles[n] == "eval"}
    evals = {n: t for n, t in evals.items() if t.labels is not None}
    if not len(fit.records) or not evals:
        return None  # an interrupted run before its fit or held-out rows: nothing to judge
    k = len(LABELS)
    fitted = fit_offsets(fit.sums, s.prior, grid=s.grid)
    fitted_mean = fit_offsets(fit.means, s.prior, grid=s.grid)
    raw_fit = np.bincount(corrected_predictions(fit.sums, np.zeros(k)), minlength=k)
    probes = _probe_correct(train, evals, states, layers, s)
    offsets = (fitted.offsets, fitted_mean.offsets)
    tokens = [int(np.median([len(r.option_token_ids[i] or ()) for r in records])) for i in range(k)]
    native = _native(train, evals, layers)
    sizes, auxiliary, directions = (
        audit_probes(train, evals, states, layers, s)
        if full and states is not None
        else ([], [], [])
    )
    splits = [
        _split(n, t, fit, offsets, probes[n], train, full, s, native[n]) for n, t in evals.items()
    ]
    return ConfigurationResult(
        configuration=name,
        full=full,
        candidates=list(records[0].options),
        candidate_tokens=tokens,
        n_fit=len(fit.records),
        offsets=fitted.offsets.tolist(),
        offsets_mean=fitted_mean.offsets.tolist(),
        fit_loss=fitted.loss,
        fit_collapse=fitted.collapse,
        offset_grid=(fitted.grid.low, fitted.grid.high),
        offsets_pinned=fitted.pinned,
        raw_collapse=float(raw_fit.max() / raw_fit.sum()),
        raw_fit_histogram=raw_fit.tolist(),
        collapsed=bool(raw_fit.max() / raw_fit.sum() >= s.collapse_threshold),
        n_unscored=len(records)
        - len(fit.records)
        - len(train.records)
        - sum(len(t.records) for t in evals.values()),
        splits=splits,
        seed_aggregates=seed_aggregates(splits),
        probe_sizes=sizes,
        auxiliary=auxiliary,
        directions=directions,
    )


def recover_checks(
    records: Sequence[RecoverRecord],
    names: Sequence[str],
    threshold: float,
    train_overlap: Mapping[str, int] | None = None,
) -> list[Check]:
    """Label-free checks: clean candidates, their mass at the slot, string-score collapse.

    With ``train_overlap``, a warning names the held-out items the probes were trained on.
    """
    broken = [r for r in records if not r.boundary_preserved or r.distinct_first_tokens is False]
    checks = [
        Check(
            "candidates",
            "fail" if broken else "pass",
            f"{len(broken)} record(s) with a candidate that does not continue the slot "
            "cleanly or shares its first token"
            if broken
            else "every candidate continues the slot with its own first token",
            {"n_broken": len(broken), "examples": [r.item_id for r in broken[:5]]},
            "Change the verbalizer or the slot's last characters." if broken else None,
        )
    ]
    main = [r for r in records if names and r.variant == names[0]]
    masses = [r.option_mass for r in main if r.option_mass is not None]
    if masses:
        median = float(np.median(masses))
        checks.append(
            Check(
                "label_mass",
                "fail" if median < MASS_FLOOR else "pass",
                f"{names[0]}: the candidates' first tokens hold a median {median:.3g} of the "
                "slot's next-token probability",
                {"median_mass": median, "floor": MASS_FLOOR},
                "The model is about to write something else: check the slot's rendering."
                if median < MASS_FLOOR
                else None,
            )
        )
    shares = {}
    for name in names:
        table = Table.of([r for r in records if r.variant == name and r.role == "fit"])
        if len(table.records):
            hist = np.bincount(np.argmax(table.sums, axis=1), minlength=len(LABELS))
            shares[name] = (float(hist.max() / hist.sum()), LABELS[int(hist.argmax())], hist)
    if names and names[0] in shares:
        share, label, hist = shares[names[0]]
        verdict: Verdict = "fail" if share >= threshold else "warn" if share >= 0.5 else "pass"
        checks.append(
            Check(
                "collapse",
                verdict,
                f"{names[0]}: the full string score predicts {label!r} for {share:.1%} of the "
                "unlabelled fit split",
                {
                    "histogram": dict(zip(LABELS, hist.tolist(), strict=True)),
                    "share": share,
                    "threshold": threshold,
                },
                "Read the held-out recovery: a label-free offset may expose the ranking."
                if verdict != "pass"
                else None,
            )
        )
    cut = [r for r in records if r.truncated_words]
    if cut:
        per_split = {
            split: sum(r.split == split for r in cut)
            for split in dict.fromkeys(r.split for r in cut)
        }
        checks.append(
            Check(
                "truncation",
                "warn",
                f"{len(cut)} record(s) lost the start of their context to fit the token limit "
                f"(at most {max(r.truncated_words for r in cut)} words): "
                + ", ".join(f"{split} {n}" for split, n in per_split.items()),
                {"per_split": per_split, "examples": [r.item_id for r in cut[:5]]},
                "Their readouts read the shortened items: raise --max-tokens to keep them whole.",
            )
        )
    if train_overlap:
        checks.append(
            Check(
                "probe_overlap",
                "warn",
                "held-out items the probes were trained on: "
                + ", ".join(f"{name} {n}" for name, n in train_overlap.items()),
                dict(train_overlap),
                "Probe accuracy on those splits is not held out: train on a disjoint split.",
            )
        )
    if len(shares) > 1:
        collapsed = [n for n, (share, _, _) in shares.items() if share >= threshold]
        checks.append(
            Check(
                "collapse_across_configurations",
                "warn" if collapsed else "pass",
                f"{len(collapsed)} of {len(shares)} prompt/verbalizer configurations collapse "
                f"(one label ≥ {threshold:.0%} of the fit split)",
                {"n_collapsed": len(collapsed), "n": len(shares), "threshold": threshold},
                "The collapse is not one wording's: read the per-configuration table."
                if collapsed
                else None,
            )
        )
    return checks


def grid_checks(results: Sequence[ConfigurationResult], asked: OffsetGrid) -> list[Check]:
    """Offset fits the grid bound (an edge, a label out of reach): widened, or still bound."""
    wider = [r for r in results if r.offset_grid != (asked.low, asked.high)]
    edge = [r for r in results if r.offsets_pinned]
    if not wider and not edge:
        return []
    where = "; ".join(
        f"{r.configuration}: [{r.offset_grid[0]:g}, {r.offset_grid[1]:g}]"
        + (f" (still bound: {_unwidened(r.offset_grid, asked.step)})" if r.offsets_pinned else "")
        for r in [*wider, *(r for r in edge if r not in wider)]
    )
    return [
        Check(
            "offset_grid",
            "warn",
            f"the offset grid [{asked.low:g}, {asked.high:g}] bound a fit (an offset on its edge, "
            f"or a label that no offsets on it let win a row); searched: {where}",
            {r.configuration: list(r.offset_grid) for r in [*wider, *edge]},
            "The grid was too narrow for the fit: its span was doubled about its centre while "
            "it bound the fit. A fit still bound stopped at the widest grid the search allows; "
            "a coarser --grid step reaches further.",
        )
    ]


def _unwidened(span: tuple[float, float], step: float) -> str:
    """Why a grid that still binds was not doubled again."""
    if OffsetGrid(*span, step).size == 1:
        return "a grid of one value cannot widen"
    return f"doubling it would exceed {MAX_CANDIDATES:,} offset vectors"


def seed_checks(results: Sequence[ConfigurationResult]) -> list[Check]:
    """Probes whose seeds all got the same examples right: their spread is not a spread."""
    agree = sorted(
        {
            f"{split.split}: {r.readout}"
            for c in results
            for split in c.splits
            for r in split.readouts
            if r.seeds_agree
        }
    )
    if not agree:
        return []
    return [
        Check(
            "probe_seeds",
            "warn",
            f"every probe seed got the same examples right on {len(agree)} split/readout(s) "
            f"({'; '.join(agree[:3])}): their sd of 0 measures nothing about seeds",
            {"agree": agree},
            "Give more training rows than the probe takes, or more distinct seeds.",
        )
    ]


def _leakage(records: Sequence[RecoverRecord]) -> list[LeakageResult]:
    """The surface leakage table of the labelled training and held-out records, if any."""

    def texts(role: str) -> dict[str, list[LeakageText]]:
        found: dict[str, list[LeakageText]] = {}
        for r in records:
            if r.role == role and r.label is not None:
                example = LeakageText.from_text(r.text, LABELS.index(r.label), r.metadata)
                found.setdefault(r.split, []).append(example)
        return found

    train = texts("train").get("train", [])
    if len({e.label for e in train}) < 2:
        return []
    rows = surface_leakage(train, texts("eval"), k=len(LABELS))
    return [LeakageResult(group=r.group, accuracies=r.accuracies, n=r.n) for r in rows]


def summarise_recover_run(run: Run[RecoverRecord]) -> RecoverSummary:
    """The recovery summary from the run's files (records, hidden states, manifest)."""
    config = run.manifest.config
    s = Settings.from_config(config)
    records = run.records
    layout = HiddenLayout.from_config(config["hidden"]) if config.get("hidden") else None
    needed = 1 + max((r.hidden_row for r in records if r.hidden_row is not None), default=-1)
    states = read_hidden(run.directory, layout, needed) if layout is not None else None
    layers = list(layout.layers) if layout is not None else []
    names = list(config["configurations"])
    found = [
        _configuration(name, [r for r in records if r.variant == name], i == 0, states, layers, s)
        for i, name in enumerate(names)
        if any(r.variant == name for r in records)
    ]
    results = [c for c in found if c is not None]
    checks = recover_checks(records, names, s.collapse_threshold, config.get("train_overlap"))
    return RecoverSummary(
        kind=run.manifest.kind,
        n_records=len(records),
        n_items=len({(r.split, r.item_id) for r in records}),
        checks=[*checks, *grid_checks(results, s.grid), *seed_checks(results)],
        labels=list(LABELS),
        layers=layers,
        collapse_threshold=s.collapse_threshold,
        n_collapsed=sum(c.collapsed for c in results),
        configurations=results,
        leakage=_leakage([r for r in records if names and r.variant == names[0]])
        if results
        else [],
    )
