"""Displayed scores as returned (seed 004, descriptive): interaction, paired changes, crossings.

Read per record from its returned label probabilities (never reconstructed from the verdict):
p_c = p(positive label); q_c = p_c / (p_c + p_i) with p_i the probability of the candidate's
target (negative) label, defined when the sum is positive; the log ratio log(p_c / p_i) =
logit(q_c), defined when both are positive; the displayed gap g = p_c − max of the other labels
(= 2p_c + min(p_i, p_n) − (p_c + p_i + p_n) with three labels). The returned verdict stays the
categorical endpoint.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict

from readout_audit.judge.analysis._panel import JudgePanel, Reading, weighted_mean
from readout_audit.judge.analysis._primary import primary_cells
from readout_audit.judge.protocol import PRESENTATIONS, JudgeRecord, Presentation
from readout_audit.stats import threshold_crossings

CROSSING_THRESHOLDS = tuple(round(0.1 * k, 1) for k in range(1, 10))
"""Thresholds at which the crossing fractions are reported."""


def _probability(record: JudgeRecord, label: str) -> float | None:
    return None if record.label_probs is None else record.label_probs.get(label)


def positive_score(record: JudgeRecord) -> float | None:
    """p_c: the displayed probability of the accepting label."""
    return _probability(record, record.positive_label)


def conditional_correctness(record: JudgeRecord) -> float | None:
    """q_c = p_c / (p_c + p_i), p_i the target label's probability (a negative target only)."""
    p_c, p_i = positive_score(record), _probability(record, record.target_label)
    if record.target_label == record.positive_label or p_c is None or p_i is None:
        return None
    return p_c / (p_c + p_i) if p_c + p_i > 0 else None


def log_ratio(record: JudgeRecord) -> float | None:
    """log(p_c / p_i) = logit(q_c), where both probabilities are positive."""
    p_c, p_i = positive_score(record), _probability(record, record.target_label)
    if record.target_label == record.positive_label or p_c is None or p_i is None:
        return None
    return math.log(p_c / p_i) if p_c > 0 and p_i > 0 else None


def displayed_gap(record: JudgeRecord) -> float | None:
    """G = p_c − the largest other label's probability (every label's probability needed)."""
    probs = record.label_probs or {}
    others = [p for label, p in probs.items() if label != record.positive_label]
    p_c = positive_score(record)
    if p_c is None or not others or any(p is None for p in others):
        return None
    return p_c - max(p for p in others if p is not None)


SCORE_READINGS: dict[str, Reading] = {
    "p_c": positive_score,
    "q_c": conditional_correctness,
    "log_ratio": log_ratio,
    "gap": displayed_gap,
}
"""The displayed-score readings compared between R: and R."""


class _Row(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ScoreInteraction(_Row):
    """The displayed-score analogue of D_i (same four signed terms on p_c), descriptive."""

    configuration: str
    n_complete: dict[str, int]
    weighted_mean: float | None
    pooled_mean: float | None


def score_interaction(
    panel: JudgePanel, configuration: str, weights: Mapping[str, float]
) -> ScoreInteraction:
    """Mean of [p_c(s, R:) − p_c(s, R)] − [p_c(i, R:) − p_c(i, R)] over complete sources."""
    complete = [c for c in primary_cells(panel, configuration, positive_score) if c.complete]
    values = [c.interaction for c in complete]
    datasets = [c.source.dataset for c in complete]
    return ScoreInteraction(
        configuration=configuration,
        n_complete={k: datasets.count(k) for k in weights},
        weighted_mean=weighted_mean(values, datasets, weights) if complete else None,
        pooled_mean=float(np.mean(values)) if values else None,
    )


class PairedChange(_Row):
    """R: minus R of one displayed reading, source by source within one presentation."""

    configuration: str
    presentation: Presentation
    quantity: str
    n: int
    n_undefined: int
    """Paired sources where the reading is undefined in either request (excluded)."""
    weighted_mean: float | None
    pooled_mean: float | None
    median: float | None
    n_up: int
    n_down: int
    n_tie: int


class Crossings(_Row):
    """Threshold crossings of p_c from R to R: (seed 004, Eq. 15), dataset-weighted sources."""

    configuration: str
    presentation: Presentation
    n: int
    thresholds: list[float]
    up: list[float]
    down: list[float]
    area: float
    """∫ (U − D) dt, equal to the weighted mean change of p_c."""


def _paired(
    panel: JudgePanel, configuration: str, presentation: Presentation, reading: Reading
) -> tuple[list[tuple[float, float, str]], int]:
    """(R value, R: value, dataset) per source with both defined; and the undefined pairs."""
    pairs, undefined = [], 0
    for source in panel.sources("confirmation", configuration):
        control, cue = (
            panel.get("confirmation", configuration, source.source_id, cell, presentation)
            for cell in ("random", "random_colon")
        )
        if control is None or cue is None:
            continue
        before, after = reading(control), reading(cue)
        if before is None or after is None:
            undefined += 1
        else:
            pairs.append((before, after, source.dataset))
    return pairs, undefined


def paired_score_changes(
    panel: JudgePanel, configuration: str, weights: Mapping[str, float]
) -> list[PairedChange]:
    """Every reading's R: − R change in each presentation."""
    rows = []
    for presentation in PRESENTATIONS:
        for quantity, reading in SCORE_READINGS.items():
            pairs, undefined = _paired(panel, configuration, presentation, reading)
            deltas = np.array([b - a for a, b, _ in pairs])
            datasets = [d for _, _, d in pairs]
            rows.append(
                PairedChange(
                    configuration=configuration,
                    presentation=presentation,
                    quantity=quantity,
                    n=len(pairs),
                    n_undefined=undefined,
                    weighted_mean=weighted_mean(deltas, datasets, weights) if pairs else None,
                    pooled_mean=float(deltas.mean()) if pairs else None,
                    median=float(np.median(deltas)) if pairs else None,
                    n_up=int((deltas > 0).sum()),
                    n_down=int((deltas < 0).sum()),
                    n_tie=int((deltas == 0).sum()),
                )
            )
    return rows


def source_weights(datasets: Sequence[str], weights: Mapping[str, float]) -> np.ndarray:
    """ω_i = w_d / n_d, renormalised over the datasets present, so Σ ω_i = 1."""
    d = np.asarray(datasets)
    omega = np.array([weights.get(k, 0.0) / np.sum(d == k) for k in datasets])
    return np.asarray(omega / omega.sum(), dtype=np.float64)


def score_crossings(
    panel: JudgePanel, configuration: str, weights: Mapping[str, float]
) -> list[Crossings]:
    """U(t) and D(t) of p_c from R to R: in each presentation."""
    rows = []
    for presentation in PRESENTATIONS:
        pairs, _ = _paired(panel, configuration, presentation, positive_score)
        if not pairs:
            continue
        omega = source_weights([d for _, _, d in pairs], weights)
        found = threshold_crossings(
            [a for a, _, _ in pairs], [b for _, b, _ in pairs], omega, CROSSING_THRESHOLDS
        )
        rows.append(
            Crossings(
                configuration=configuration,
                presentation=presentation,
                n=len(pairs),
                thresholds=list(CROSSING_THRESHOLDS),
                up=found.up.tolist(),
                down=found.down.tolist(),
                area=found.area,
            )
        )
    return rows
