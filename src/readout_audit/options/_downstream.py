"""The forecast scored against the note-only reader's correctness (seed 000, Tables 4, 12, 13)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict

from readout_audit.log import Interval, PairedScores, ScoreRecord
from readout_audit.stats import paired_bootstrap, resampling_clusters

READOUTS: Mapping[str, str] = {
    "production": "(a) original position",
    "stem": "(b) answer stem",
    "instruction_deleted": "(c) item instruction deleted",
    "T1": "(d) template T1",
    "T1_stem": "(e) T1 with Estimate:",
    "written": "(f) number in the greedy text",
}
"""Seed 000's forecast readouts (Table 13 and the text below it), each named by the rung it
reads; (f) reads the original position's greedy continuation."""
REFERENCES = ("production", "stem")
"""The readouts every other one is compared with, as in Table 13's lower panel."""
WRITTEN_TOKENS = 48
"""Readout (f)'s cap in new tokens: the original position's greedy text runs at least this far
when the reader runs."""
WRITTEN_ABSENT = 0.5
"""Readout (f)'s forecast when the greedy text holds no grid number."""


def written_forecast(text: str, options: Sequence[str]) -> float:
    """Readout (f): the first maximal digit run of ``text`` that is an option, divided by 100.

    Other numbers are skipped; a text with no grid number is scored 0.5.
    """
    grid = {option.strip() for option in options}
    for run in re.finditer(r"[0-9]+", text):
        if run.group() in grid:
            return int(run.group()) / 100
    return WRITTEN_ABSENT


def readout_forecasts(
    records: Sequence[ScoreRecord],
) -> tuple[list[ScoreRecord], dict[str, list[float]], dict[str, int]]:
    """The evaluation rows, every readout's forecast p on each, and the readouts left out.

    A row is an original-position record with the reader's outcome whose item is also scored
    with the answer stem. A rung's readout enters only when it holds p = Σ (value/100)·p_o on
    every row; otherwise it is left out with the number of rows it misses (options merging with
    the rendered ending have no p).
    """
    by_variant = {v: {r.item_id: r for r in records if r.variant == v} for v in READOUTS}
    stem = by_variant["stem"]
    rows = [
        r
        for r in by_variant["production"].values()
        if isinstance(r.target, bool)
        and r.expected_value is not None
        and r.item_id in stem
        and stem[r.item_id].expected_value is not None
    ]
    forecasts: dict[str, list[float]] = {}
    missing: dict[str, int] = {}
    for variant, got in by_variant.items():
        if not got:
            continue
        values = [got[r.item_id].expected_value if r.item_id in got else None for r in rows]
        absent = sum(v is None for v in values)
        if absent:
            missing[variant] = absent
        else:
            forecasts[variant] = [v / 100 for v in values if v is not None]
    forecasts["written"] = [written_forecast(r.greedy.text, r.options) for r in rows]
    return rows, forecasts, missing


class Downstream(BaseModel):
    """The forecast against the note-only reader's correctness (seed 000, Eq. 1, Tables 4 and 13).

    Differences are keyed as written: ``auc["stem - production"]`` is AUC(stem) − AUC(production)
    and ``brier["production - stem"]`` is Brier(production) − Brier(stem), so a positive value
    favours the readout over its reference in both.
    """

    model_config = ConfigDict(extra="forbid")

    n: int
    n_reader_correct: int
    base_rate: float
    """ȳ, the share of rows the reader answers correctly: the fitted constant."""
    brier_constant_half: float = 0.25
    brier_fitted_constant: float
    """Brier of the constant ȳ fitted on these rows, ȳ(1 − ȳ) (Table 12; descriptive)."""
    n_boot: int
    n_clusters: int
    readouts: list[str]
    """The readouts scored, in the paper's order (a)–(f)."""
    comparisons: list[tuple[str, str]]
    """(reference r, readout x) pairs with paired differences: every later readout against (a)
    and (b)."""
    unscored: dict[str, int]
    """Rungs left out because their forecast is missing on some rows: how many rows."""
    auc: dict[str, Interval] | None
    """AUC of each readout and AUC(x) − AUC(r) against (a) and (b); None when one class is
    absent."""
    brier: dict[str, Interval]
    """Brier of each readout and Brier(r) − Brier(x) against (a) and (b)."""
    forecasts: PairedScores
    """Each readout's p on every row, with the reader's correctness."""


def _pairs(names: Sequence[str]) -> list[tuple[str, str]]:
    """(reference, readout) for every readout after each reference, in the paper's order."""
    return [(r, x) for k, r in enumerate(names) if r in REFERENCES for x in names[k + 1 :]]


def forecast_downstream(
    records: Sequence[ScoreRecord], *, n_boot: int = 20_000, seed: int = 0
) -> Downstream | None:
    """AUC and Brier of every forecast readout against the reader's correctness (seed 000).

    The readouts (a)–(f) on the same rows with paired cluster-bootstrap intervals (one set of
    replicates for all), and paired differences against (a) and (b): ΔAUC = AUC(x) − AUC(r),
    ΔBrier = Brier(r) − Brier(x). Beside them the Brier scores of a constant 0.5 and of the
    base rate fitted on these rows. None when the records carry no reader outcomes.
    """
    rows, forecasts, unscored = readout_forecasts(records)
    if not rows:
        return None
    y = np.array([r.target for r in rows], dtype=bool)
    clusters = [r.cluster for r in rows]
    resampled = resampling_clusters(clusters)
    names = list(forecasts)
    pairs = _pairs(names)
    base_rate = float(y.mean())

    def intervals(
        statistic: Literal["auc", "brier"], order: list[tuple[str, str]]
    ) -> dict[str, Interval]:
        boot = paired_bootstrap(
            forecasts,
            y,
            statistic=statistic,
            clusters=resampled,
            n_boot=n_boot,
            seed=seed,
            pairs=order,
        )
        return {
            name: Interval.from_bootstrap(iv, clusters, n_boot=n_boot, paired=True)
            for name, iv in {**boot.readouts, **boot.differences}.items()
        }

    return Downstream(
        n=len(rows),
        n_reader_correct=int(y.sum()),
        base_rate=base_rate,
        brier_fitted_constant=float(np.mean((base_rate - y) ** 2)),
        n_boot=n_boot,
        n_clusters=len(set(clusters)),
        readouts=names,
        comparisons=pairs,
        unscored=unscored,
        auc=None if y.all() or not y.any() else intervals("auc", pairs),
        brier=intervals("brier", [(x, r) for r, x in pairs]),
        forecasts=PairedScores(
            ids=[r.item_id for r in rows],
            labels=[bool(v) for v in y],
            scores={name: [float(p) for p in values] for name, values in forecasts.items()},
        ),
    )
