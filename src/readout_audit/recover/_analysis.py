"""A recovery run's summary from its files alone: per configuration, offsets, probes and splits.

Everything is recomputed from ``records.jsonl``, ``hidden.f32`` and the manifest, so a run can
be re-analysed (other seeds, another grid) without the model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from readout_audit.data import LABELS
from readout_audit.log import Run
from readout_audit.recover._checks import grid_checks, recover_checks, seed_checks
from readout_audit.recover._held_out import SLOT_PROBE, WHOLE_PROBE, analyse_split
from readout_audit.recover._leakage import LeakageText, surface_leakage
from readout_audit.recover._native import best_native, native_accuracies, native_rows
from readout_audit.recover._offsets import corrected_predictions, fit_offsets
from readout_audit.recover._probe_audits import audit_probes
from readout_audit.recover._probes import fit_probe, probe_predictions
from readout_audit.recover._record import RecoverRecord
from readout_audit.recover._seeds import seed_aggregates
from readout_audit.recover._store import HiddenLayout, read_hidden
from readout_audit.recover._summary import (
    ConfigurationResult,
    LeakageResult,
    NativeReadout,
    RecoverSummary,
)
from readout_audit.recover._tables import Settings, Table


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
        analyse_split(n, t, fit, offsets, probes[n], train, full, s, native[n])
        for n, t in evals.items()
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
