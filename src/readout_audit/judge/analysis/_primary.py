"""The primary presentation-by-cue interaction (seed 004, Eq. 3) and its Holm family.

Per complete source, D_i = [V(sorted, R:) − V(sorted, R)] − [V(insertion, R:) − V(insertion, R)]
∈ {−2, …, 2}; θ̂ = Σ_d w_d · mean_{C_d} D over the complete sources C_d of each dataset. Its
p-value is the two-sided null-centred source bootstrap (49,999 draws within datasets); when
every dataset's complete sample is constant the Hoeffding fallback replaces it. Holm covers
every configuration of the family; success needs Holm p < α and both-presentation competence.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict

from readout_audit.judge.analysis._gates import Qualification
from readout_audit.judge.analysis._panel import (
    JudgePanel,
    Reading,
    Source,
    acceptance,
    weighted_mean,
)
from readout_audit.judge.analysis._settings import JudgeAnalysisSettings
from readout_audit.judge.protocol import Presentation
from readout_audit.stats import (
    centered_bootstrap_pvalue,
    hoeffding_interval,
    holm,
    missingness_bounds,
    stratified_bootstrap,
)

PRIMARY_TERMS: tuple[tuple[Presentation, str, int], ...] = (
    ("sorted", "random_colon", 1),
    ("sorted", "random", -1),
    ("insertion", "random_colon", -1),
    ("insertion", "random", 1),
)
"""The four signed cells of D_i: (presentation, cell, sign)."""


@dataclass(frozen=True)
class SourceCells:
    """One planned source's four primary readings (NaN where unresolved)."""

    source: Source
    values: tuple[float, float, float, float]

    @property
    def complete(self) -> bool:
        """All four cells resolved."""
        return not any(math.isnan(v) for v in self.values)

    @property
    def interaction(self) -> float:
        """Σ sign · value over the four terms (NaN for an incomplete source)."""
        return sum(sign * v for (_, _, sign), v in zip(PRIMARY_TERMS, self.values, strict=True))


def primary_cells(
    panel: JudgePanel, configuration: str, reading: Reading = acceptance
) -> list[SourceCells]:
    """Every confirmation source planned in a primary cell, with its four readings."""
    found = []
    for source in panel.sources("confirmation", configuration):
        records = [
            panel.get("confirmation", configuration, source.source_id, cell, presentation)
            for presentation, cell, _ in PRIMARY_TERMS
        ]
        if all(r is None for r in records):
            continue
        values = [math.nan if r is None else reading(r) for r in records]
        cells = tuple(math.nan if v is None else float(v) for v in values)
        found.append(SourceCells(source, cells))  # type: ignore[arg-type]
    return found


def planned_weights(
    panel: JudgePanel, settings: JudgeAnalysisSettings, configuration: str
) -> dict[str, float]:
    """w_d over the datasets of a configuration's planned primary sources."""
    return settings.weights(c.source.dataset for c in primary_cells(panel, configuration))


class _Row(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class InteractionTest(_Row):
    """θ̂ with its 95% interval and raw p-value, from complete sources."""

    estimate: float | None
    """Σ_d w_d mean_d D (None when a weighted dataset has no complete source)."""
    pooled: float | None
    """The unweighted mean over every complete source (differs when datasets are unequal)."""
    low: float | None
    high: float | None
    p_value: float
    """Raw two-sided p (1 without inference)."""
    method: Literal["bootstrap", "hoeffding", "none"]
    n_complete: dict[str, int]
    weights: dict[str, float]


def interaction_test(
    values: Sequence[float],
    datasets: Sequence[str],
    weights: Mapping[str, float],
    *,
    n_boot: int,
    seed: int,
    alpha: float = 0.05,
    tolerance: float = 1e-12,
    value_range: tuple[float, float] = (-2.0, 2.0),
) -> InteractionTest:
    """θ̂, its percentile interval and null-centred bootstrap p, or the Hoeffding fallback.

    Bootstrap: p = (1 + #{|θ*_b − θ̂| ≥ |θ̂| − tol}) / (B + 1), sources resampled within each
    dataset. Fallback (every weighted dataset's sample constant): θ̂ ± R√(S log(2/α) / 2), S =
    Σ w_d² / n_d, R the width of ``value_range`` (4 for D_i ∈ [−2, 2]), truncated to it,
    p = min(1, 2 exp(−2θ̂² / (R² S))), 1 at θ̂ = 0.
    """
    x, d = np.asarray(values, dtype=np.float64), np.asarray(datasets)
    weighted = {k: w for k, w in weights.items() if w > 0}
    n_complete = {k: int(np.sum(d == k)) for k in weights}
    untested = InteractionTest(
        estimate=weighted_mean(x, d, weighted) if weighted else None,
        pooled=float(x.mean()) if x.size else None,
        low=None,
        high=None,
        p_value=1.0,
        method="none",
        n_complete=n_complete,
        weights=dict(weights),
    )
    if untested.estimate is None:
        return untested
    if all(np.ptp(x[d == k]) == 0 for k in weighted):
        bound = hoeffding_interval(
            untested.estimate,
            [n_complete[k] for k in weighted],
            list(weighted.values()),
            value_range=value_range,
            alpha=alpha,
        )
        found = {"low": bound.low, "high": bound.high, "p_value": bound.p_value}
        return untested.model_copy(update={**found, "method": "hoeffding"})
    keep = np.isin(d, list(weighted))
    interval = stratified_bootstrap(
        x[keep], d[keep], weighted, n_boot=n_boot, alpha=alpha, seed=seed
    )
    p = centered_bootstrap_pvalue(interval.estimate, interval.replicates, tolerance=tolerance)
    found = {"estimate": interval.estimate, "low": interval.low, "high": interval.high}
    return untested.model_copy(update={**found, "p_value": p, "method": "bootstrap"})


def panel_bounds(
    cells: Sequence[SourceCells], weights: Mapping[str, float]
) -> tuple[float, float] | None:
    """Bounds of the full planned finite-panel θ with every unresolved indicator set to 0 and 1.

    θ_panel = Σ_d w_d / N_d · Σ_{i∈d} D_i over all N_d planned sources, a signed sum of the
    indicators; None when nothing is planned (a preflight-only run) or a weighted dataset has
    no planned source.
    """
    planned = {k: sum(c.source.dataset == k for c in cells) for k in weights}
    if not cells or any(planned[k] == 0 for k, w in weights.items() if w > 0):
        return None
    values: list[float] = []
    coefficients: list[float] = []
    for c in cells:
        scale = weights.get(c.source.dataset, 0.0) / planned[c.source.dataset]
        values += c.values
        coefficients += [sign * scale for _, _, sign in PRIMARY_TERMS]
    return missingness_bounds(values, coefficients)


class PrimaryResult(_Row):
    """One configuration's slot in the primary family."""

    configuration: str
    seed: int
    n_boot: int
    test: InteractionTest
    n_planned: dict[str, int]
    bounds: tuple[float, float] | None
    """The full planned panel's θ with unresolved indicators at 0 and 1."""
    skipped: bool
    """Preflight failed: the test keeps p = 1 in the family."""
    p_raw: float
    p_holm: float
    competent: bool
    success: bool
    """Holm p < α and both presentations competent."""


def _unadjusted(
    panel: JudgePanel,
    settings: JudgeAnalysisSettings,
    family: Sequence[str],
    gate: Qualification,
) -> PrimaryResult:
    """One configuration's slot before Holm (its Holm p set to its raw p)."""
    cells = primary_cells(panel, gate.configuration)
    # a configuration of the family without records here: untested, p = 1 in the family
    weights = settings.weights(c.source.dataset for c in cells) if cells else {}
    complete = [c for c in cells if c.complete]
    seed = settings.seed(gate.configuration, list(family))
    test = interaction_test(
        [c.interaction for c in complete],
        [c.source.dataset for c in complete],
        weights,
        n_boot=settings.n_boot,
        seed=seed,
        alpha=settings.alpha,
        tolerance=settings.tolerance,
    )
    p_raw = 1.0 if gate.skipped else test.p_value
    return PrimaryResult(
        configuration=gate.configuration,
        seed=seed,
        n_boot=settings.n_boot,
        test=test,
        n_planned={k: sum(c.source.dataset == k for c in cells) for k in weights},
        bounds=panel_bounds(cells, weights),
        skipped=gate.skipped,
        p_raw=p_raw,
        p_holm=p_raw,
        competent=gate.competent,
        success=False,
    )


def primary_family(
    panel: JudgePanel,
    settings: JudgeAnalysisSettings,
    family: Sequence[str],
    qualification: Sequence[Qualification],
) -> list[PrimaryResult]:
    """The primary interaction of every configuration, Holm-adjusted over the family."""
    gates = {q.configuration: q for q in qualification}
    slots = [_unadjusted(panel, settings, family, gates[c]) for c in family]
    adjusted = holm([s.p_raw for s in slots]).tolist() if slots else []
    return [
        s.model_copy(update={"p_holm": p, "success": p < settings.alpha and s.competent})
        for s, p in zip(slots, adjusted, strict=True)
    ]
