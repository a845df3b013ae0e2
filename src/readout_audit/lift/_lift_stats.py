"""Lift statistics (seed 001, sections 5-7, appendices B and E): per-cut scores, paper-clustered.

Every comparison is paired: two conditions are compared on the cuts both have, matched by cut
id, and each cut's difference is one observation; standard errors are clustered by paper (CR1,
:func:`readout_audit.stats.cluster_se`). Intervals are ±2 SE and p-values the two-sided normal
approximation, as the paper's figures and tables report them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict

from readout_audit._exceptions import InputError
from readout_audit.lift._rules import HEADLINE, RULES, RuleName, check_window, score_tokens
from readout_audit.stats import as_float_array, cluster_se, same_length

TokenRecords = Mapping[str, Mapping[str, Any]]
"""condition → cut id → the target's per-token log-probabilities under that condition."""
CutScores = Mapping[str, Mapping[str, float]]
"""condition → cut id → the target's score under one rule."""

WINDOWS = (50, 100, 200, 400)
"""Table 10's scored target-token windows."""
NEAR_MAXIMUM = -0.10
"""Section 6's clipLL_2 level counted as near the scaffold's maximum of 0."""
_LISTED = 5


class FrozenRow(BaseModel):
    """A result row of the lift tables: frozen, no unknown fields (read back from JSON)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Contrast(FrozenRow):
    """Paired difference a − b over cuts: mean, paper-clustered SE, ±2 SE, sign counts, p."""

    mean: float
    se: float | None
    """None when the cuts come from a single paper (no clustered SE exists)."""
    low: float | None
    """mean − 2 SE."""
    high: float | None
    """mean + 2 SE."""
    positive: float
    """Fraction of cuts with a − b > 0 (Table 6's "frac. +")."""
    median: float | None = None
    """Median of the per-cut differences (section 5's paired medians)."""
    ties: float
    """Fraction of cuts with a − b = 0 exactly."""
    p_value: float | None
    """2(1 − Φ(|mean/SE|)); None when SE = 0 or undefined."""
    n_cuts: int
    n_papers: int


class LadderRow(FrozenRow):
    """One condition against the reference on the cuts both have (Table 8)."""

    condition: str
    mean: float
    """The condition's mean score on those cuts."""
    reference_mean: float
    vs_reference: Contrast


class WindowRow(FrozenRow):
    """Lift on the first ``window`` target tokens (Table 10)."""

    window: int
    lift: Contrast
    truncated: int
    """Cuts whose target is longer than the window (the others are scored whole)."""
    mean_scored: float
    """Mean number of target tokens scored per cut."""


class RuleRow(FrozenRow):
    """Lift under one scoring rule (Tables 3 and 4)."""

    rule: RuleName
    lift: Contrast


class NearMaximum(FrozenRow):
    """Cuts whose score is at least ``threshold`` (section 6: 16.3% at −0.10)."""

    threshold: float
    count: int
    n_cuts: int
    fraction: float


@dataclass(frozen=True)
class PairedScores:
    """Scores of several conditions aligned over the cuts every one of them has."""

    conditions: tuple[str, ...]
    cuts: tuple[str, ...]
    papers: np.ndarray
    scores: dict[str, np.ndarray]
    missing: dict[str, tuple[str, ...]]
    """Per condition, the cuts another condition has but it lacks (left out of ``cuts``)."""

    def contrast(self, a: str, b: str) -> Contrast:
        """Paired contrast of condition a minus condition b."""
        return paired_contrast(self.scores[a], self.scores[b], self.papers)


def rule_scores(
    records: TokenRecords, *, rule: RuleName = HEADLINE, window: int | None = None
) -> dict[str, dict[str, float]]:
    """Every condition's every cut scored under ``rule`` on its first ``window`` tokens."""
    return {
        condition: {
            cut: score_tokens(values, rule, window=window, item_id=cut, field=condition).score
            for cut, values in by_cut.items()
        }
        for condition, by_cut in records.items()
    }


def _listed(cuts: Iterable[str]) -> str:
    names = sorted(cuts)
    shown = ", ".join(repr(c) for c in names[:_LISTED])
    return shown + (f" and {len(names) - _LISTED} more" if len(names) > _LISTED else "")


def paired_scores(
    scores: CutScores,
    papers: Mapping[str, str],
    conditions: Sequence[str] | None = None,
    *,
    allow_missing: bool = False,
) -> PairedScores:
    """Align conditions by cut id; a cut lacking a condition is an error unless allowed.

    With ``allow_missing`` the comparison keeps the cuts every condition has and reports the
    others in ``missing``; cuts are sorted by id and each must have a paper.
    """
    names = tuple(scores) if conditions is None else tuple(conditions)
    unknown = [c for c in names if c not in scores]
    if not names or unknown:
        raise ValueError(f"Expected conditions among {sorted(scores)}, but got {list(names)}")
    every = set().union(*(scores[c].keys() for c in names))
    missing = {c: tuple(sorted(every - scores[c].keys())) for c in names}
    missing = {c: cuts for c, cuts in missing.items() if cuts}
    if missing and not allow_missing:
        listed = "; ".join(f"{c!r} lacks {len(m)}: {_listed(m)}" for c, m in missing.items())
        raise InputError(
            f"cuts missing a condition ({listed}); score every condition on every cut, "
            f"or pass allow_missing to compare on the cuts all have"
        )
    cuts = tuple(sorted(set.intersection(*(set(scores[c]) for c in names))))
    if not cuts:
        raise InputError(f"no cut has every one of the conditions {list(names)}")
    unplaced = [cut for cut in sorted(every) if cut not in papers]
    if unplaced:
        raise InputError(f"no paper for {len(unplaced)} cut(s): {_listed(unplaced)}")
    return PairedScores(
        conditions=names,
        cuts=cuts,
        papers=np.asarray([papers[cut] for cut in cuts]),
        scores={c: np.asarray([scores[c][cut] for cut in cuts], dtype=np.float64) for c in names},
        missing=missing,
    )


def normal_p_value(mean: float, se: float) -> float | None:
    """Two-sided normal-approximation p = 2(1 − Φ(|mean/SE|)) = erfc(|mean/SE|/√2)."""
    if not (math.isfinite(mean) and math.isfinite(se)) or se < 0:
        raise ValueError(f"Expected a finite mean and SE >= 0, but got {mean!r} and {se!r}")
    return None if se == 0 else math.erfc(abs(mean / se) / math.sqrt(2))


def paired_contrast(a: Any, b: Any, papers: Any) -> Contrast:
    """Mean of dᵢ = aᵢ − bᵢ over cuts with its paper-clustered (CR1) SE, ±2 SE, sign counts, p.

    SE² = G/(G − 1) · Σ_g (Σ_{i∈g} (dᵢ − d̄))² / n² over G papers; p = 2(1 − Φ(|d̄/SE|)).
    """
    x, y = as_float_array(a, "a"), as_float_array(b, "b")
    labels = np.asarray(papers)
    same_length(a=x, b=y, papers=labels)
    d = x - y
    mean = float(d.mean())
    n_papers = len(set(labels.tolist()))
    se = cluster_se(d, labels) if n_papers > 1 else None
    return Contrast(
        mean=mean,
        se=se,
        low=None if se is None else mean - 2 * se,
        high=None if se is None else mean + 2 * se,
        positive=float(np.mean(d > 0)),
        median=float(np.median(d)),
        ties=float(np.mean(d == 0)),
        p_value=None if se is None else normal_p_value(mean, se),
        n_cuts=int(d.size),
        n_papers=n_papers,
    )


def condition_ladder(
    scores: CutScores,
    papers: Mapping[str, str],
    reference: str,
    conditions: Sequence[str] | None = None,
) -> list[LadderRow]:
    """Each condition's mean and its paired lift over ``reference`` (Table 8's control ladder).

    Each row uses the cuts that condition shares with the reference, so a condition scored
    on fewer cuts (Table 8's held-out SFT control: 220 of 731) is compared on those alone.
    """
    names = tuple(scores) if conditions is None else tuple(conditions)
    rows = []
    for name in names:
        paired = paired_scores(scores, papers, (reference, name), allow_missing=True)
        rows.append(
            LadderRow(
                condition=name,
                mean=float(paired.scores[name].mean()),
                reference_mean=float(paired.scores[reference].mean()),
                vs_reference=paired.contrast(name, reference),
            )
        )
    return rows


def window_curve(
    forecast_tokens: Mapping[str, Any],
    control_tokens: Mapping[str, Any],
    papers: Mapping[str, str],
    *,
    windows: Sequence[int] = WINDOWS,
    rule: RuleName = HEADLINE,
    allow_missing: bool = False,
) -> list[WindowRow]:
    """Lift of forecast over control scored on the first N target tokens, per N (Table 10).

    Both conditions score the same target, so a cut whose two token counts differ is an error
    (its first N tokens would not be the same text).
    """
    records = {"forecast": forecast_tokens, "control": control_tokens}
    shared = forecast_tokens.keys() & control_tokens.keys()
    lengths = {cut: len(np.asarray(forecast_tokens[cut])) for cut in shared}
    unequal = [cut for cut in shared if len(np.asarray(control_tokens[cut])) != lengths[cut]]
    if unequal:
        raise InputError(
            f"forecast and control score different numbers of target tokens on "
            f"{len(unequal)} cut(s): {_listed(unequal)}"
        )
    rows = []
    for limit in [check_window(w) for w in windows]:
        paired = paired_scores(
            rule_scores(records, rule=rule, window=limit), papers, allow_missing=allow_missing
        )
        sizes = np.asarray([lengths[cut] for cut in paired.cuts])
        rows.append(
            WindowRow(
                window=limit,
                lift=paired.contrast("forecast", "control"),
                truncated=int(np.sum(sizes > limit)),
                mean_scored=float(np.minimum(sizes, limit).mean()),
            )
        )
    return rows


def rule_table(
    records: TokenRecords,
    papers: Mapping[str, str],
    condition: str,
    control: str,
    *,
    rules: Sequence[RuleName] = RULES,
    window: int | None = None,
    allow_missing: bool = False,
) -> list[RuleRow]:
    """Lift of ``condition`` over ``control`` under each scoring rule (Tables 3 and 4)."""
    absent = [name for name in (condition, control) if name not in records]
    if absent:
        raise ValueError(f"Expected conditions among {sorted(records)}, but got {absent}")
    pair = {name: records[name] for name in (condition, control)}
    rows = []
    for rule in rules:
        scores = rule_scores(pair, rule=rule, window=window)
        paired = paired_scores(scores, papers, allow_missing=allow_missing)
        rows.append(RuleRow(rule=rule, lift=paired.contrast(condition, control)))
    return rows


def near_maximum(scores: Any, threshold: float = NEAR_MAXIMUM) -> NearMaximum:
    """Fraction of cuts whose (clipLL_2) score is ≥ ``threshold`` (section 6)."""
    values = as_float_array(scores, "scores")
    count = int(np.sum(values >= threshold))
    return NearMaximum(
        threshold=threshold, count=count, n_cuts=values.size, fraction=count / values.size
    )
