"""The repeat panel's analysis (seed 004, Sections F.1 and G): recurrence over identical calls.

Per FINAL3 configuration: the four clean gates (76/80 and 72/80 at 80 sources); the primary
family (R:−R punctuation excess with X by exact McNemar, the prefix-by-punctuation interaction
by the centred bootstrap) and a secondary family of three exact McNemar comparisons, each
Holm-adjusted across configurations, on the first pass with planned-share dataset weights;
acceptances per pass and the three-pass patterns of R: with X; within-request agreement of
the repeated cells and the fixtures (verdicts, probability vectors, later-minus-first score
changes); the paired score shift of R: over R with X (its weighted mean with a pointwise
interval, median, signs, those of the above-floor controls, the gap change).
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from readout_audit.judge.analysis._contrasts import (
    ContrastTest,
    StudyGate,
    StudyPanel,
    qualify_slots,
    run_family,
    study_frame,
    study_gate,
)
from readout_audit.judge.analysis._scores import positive_score
from readout_audit.judge.analysis._settings import JudgeAnalysisSettings
from readout_audit.judge.protocol import (
    GATED_CONTROLS,
    PREFIXES,
    REPEAT_BRIDGES,
    REPEAT_PASSES,
    REPEAT_PRIMARY,
    REPEAT_SECONDARY,
    Contrast,
    JudgeRecord,
    cell,
    fixture_cell,
)
from readout_audit.stats import stratified_bootstrap


class _Row(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PassCounts(_Row):
    """One cue cell's acceptances and responses in each pass."""

    configuration: str
    cell: str
    accepted: list[int]
    observed: list[int]
    planned: int


class Agreement(_Row):
    """Within-request agreement of one repeated cell (or fixture) over its complete groups."""

    configuration: str
    cell: str
    groups: int
    """Sources (fixtures: controls) with a verdict in every call."""
    same_verdict: int
    same_probs: int
    """Groups whose displayed probability vectors are identical in every call."""
    mean_change: float | None
    """Mean later-minus-first change of the displayed positive probability."""
    mean_abs_change: float | None
    increases: int
    ties: int
    decreases: int


class ScoreShift(_Row):
    """First-pass δ^p = s(R:) − s(R) with X over complete pairs (Table 11)."""

    configuration: str
    pairs: int
    mean: float | None
    """Planned-share weighted mean (Eq. 8)."""
    low: float | None
    high: float | None
    """Pointwise 95% stratified bootstrap interval (secondary, unadjusted)."""
    pooled: float | None
    median: float | None
    rises: int
    ties: int
    falls: int
    rejected_both: int
    rises_rejected_both: int
    control_at_zero: int
    rises_above_floor: int | None = None
    """Pairs whose control displays above zero and whose cue score rises (None: a summary
    written before it was counted); the paper's "43 of the 46 above-floor controls rise"."""
    ties_above_floor: int | None = None
    falls_above_floor: int | None = None
    mean_gap_change: float | None
    """Mean change of g = p_c − max(p_i, p_n): acceptance against its strongest competitor."""


class RepeatAnalysis(_Row):
    """Gates, both families, per-pass counts, patterns, agreement and the score shift."""

    study: Literal["repeat"] = "repeat"
    """The study it analyses: what a summary's ``study_result`` is told apart by."""

    gates: list[StudyGate]
    primary: list[ContrastTest]
    secondary: list[ContrastTest]
    passes: list[PassCounts]
    patterns: dict[str, dict[str, int]]
    """Per configuration, R: with X over the passes: ``TTF`` (T a returned correct verdict,
    ``?`` none returned) → sources."""
    agreement: list[Agreement]
    fixtures: list[Agreement]
    shift: list[ScoreShift]


def _records(panel: StudyPanel, configuration: str, name: str) -> list[JudgeRecord | None]:
    return [panel.get(configuration, s, name) for s, _ in panel.sources(configuration)]


def _passes(panel: StudyPanel, configuration: str, base: str) -> list[list[JudgeRecord | None]]:
    """Per source, the records of a cue cell's passes (in pass order)."""
    prefix, bridge = base.split(".")
    return [
        [panel.get(configuration, s, cell(prefix, bridge, k)) for k in range(1, REPEAT_PASSES + 1)]
        for s, _ in panel.sources(configuration)
    ]


def agreement(
    configuration: str, name: str, groups: Sequence[Sequence[JudgeRecord | None]]
) -> Agreement:
    """Agreement over groups of identical calls; a group with an unanswered call is left out."""
    complete: list[list[JudgeRecord]] = []
    for group in groups:
        answered = [r for r in group if r is not None and r.verdict is not None]
        if group and len(answered) == len(group):
            complete.append(answered)
    changes = [
        later - first
        for group in complete
        if (first := positive_score(group[0])) is not None
        for record in group[1:]
        if (later := positive_score(record)) is not None
    ]
    return Agreement(
        configuration=configuration,
        cell=name,
        groups=len(complete),
        same_verdict=sum(len({r.verdict for r in g}) == 1 for g in complete),
        same_probs=sum(all(r.label_probs == g[0].label_probs for r in g) for g in complete),
        mean_change=statistics.fmean(changes) if changes else None,
        mean_abs_change=statistics.fmean(abs(c) for c in changes) if changes else None,
        increases=sum(c > 0 for c in changes),
        ties=sum(c == 0 for c in changes),
        decreases=sum(c < 0 for c in changes),
    )


def _gap(record: JudgeRecord) -> float | None:
    """G = p_c − max(p_i, p_n), None unless all three are shown."""
    probs = record.label_probs or {}
    p_c, p_i, p_n = (probs.get(label) for label in ("correct", "incorrect", "no_answer"))
    if p_c is None or p_i is None or p_n is None:
        return None
    return p_c - max(p_i, p_n)


def score_shift(
    panel: StudyPanel,
    configuration: str,
    weights: Mapping[str, float],
    *,
    n_boot: int,
    seed: int,
) -> ScoreShift:
    """δ^p of R: over R with X on the first pass, over sources where both show a score."""
    rows = []
    for source, dataset in panel.sources(configuration):
        cue, control = (
            panel.get(configuration, source, f"x.{b}") for b in ("random_colon", "random")
        )
        if cue is None or control is None:
            continue
        s1, s0 = positive_score(cue), positive_score(control)
        if s1 is None or s0 is None:
            continue
        g1, g0 = _gap(cue), _gap(control)
        gap = None if g1 is None or g0 is None else g1 - g0
        rows.append((dataset, s1 - s0, s0, cue.accepted, control.accepted, gap))
    deltas = [r[1] for r in rows]
    present = {d: w for d, w in weights.items() if any(r[0] == d for r in rows)}
    interval = (
        stratified_bootstrap(deltas, [r[0] for r in rows], present, n_boot=n_boot, seed=seed)
        if rows and len(present) == len([w for w in weights.values() if w > 0])
        else None
    )
    rejected = [r for r in rows if r[3] is False and r[4] is False]
    above = [r[1] for r in rows if r[2] > 0]
    gaps = [r[5] for r in rows if r[5] is not None]
    return ScoreShift(
        configuration=configuration,
        pairs=len(rows),
        mean=None if interval is None else interval.estimate,
        low=None if interval is None else interval.low,
        high=None if interval is None else interval.high,
        pooled=statistics.fmean(deltas) if deltas else None,
        median=statistics.median(deltas) if deltas else None,
        rises=sum(d > 0 for d in deltas),
        ties=sum(d == 0 for d in deltas),
        falls=sum(d < 0 for d in deltas),
        rejected_both=len(rejected),
        rises_rejected_both=sum(r[1] > 0 for r in rejected),
        control_at_zero=sum(r[2] == 0 for r in rows),
        rises_above_floor=sum(d > 0 for d in above),
        ties_above_floor=sum(d == 0 for d in above),
        falls_above_floor=sum(d < 0 for d in above),
        mean_gap_change=statistics.fmean(gaps) if gaps else None,
    )


def _pass_counts(
    configuration: str, base: str, groups: Sequence[Sequence[JudgeRecord | None]]
) -> PassCounts:
    def count(k: int, answered: bool) -> int:
        found = [g[k] for g in groups]
        return sum(
            r is not None and (r.verdict is not None if answered else bool(r.accepted))
            for r in found
        )

    return PassCounts(
        configuration=configuration,
        cell=base,
        accepted=[count(k, False) for k in range(REPEAT_PASSES)],
        observed=[count(k, True) for k in range(REPEAT_PASSES)],
        planned=len(groups),
    )


def _pattern(group: Sequence[JudgeRecord | None]) -> str:
    return "".join(
        "?" if r is None or r.accepted is None else "T" if r.accepted else "F" for r in group
    )


def _slots(
    names: Sequence[str], contrasts: Sequence[Contrast]
) -> list[tuple[str, dict[str, str], Contrast]]:
    return [(f"{n} {c.name}", {"FINAL3": n}, c) for n in names for c in contrasts]


def analyse_repeat(
    records: Sequence[JudgeRecord], settings: JudgeAnalysisSettings, family: Sequence[str]
) -> RepeatAnalysis:
    """The repeat panel's analysis from its records (one per planned request)."""
    panel, weights, first = study_frame(records, settings, family)
    run = [c for c in family if c in panel.configurations]
    gates = [
        study_gate(c, control, _records(panel, c, control), control)
        for c in run
        for control in GATED_CONTROLS
    ]
    primary = run_family(panel, _slots(family, REPEAT_PRIMARY), settings, weights, first)
    secondary = run_family(
        panel, _slots(family, REPEAT_SECONDARY), settings, weights, first + len(primary)
    )
    bases = [f"{p}.{b}" for b in REPEAT_BRIDGES for p in PREFIXES]
    design = settings.study_design or {}
    fixture_source = (design.get("fixtures") or {}).get("source")
    passes, agreements, fixtures, patterns = [], [], [], {}
    for c in run:
        for base in bases:
            groups = _passes(panel, c, base)
            passes.append(_pass_counts(c, base, groups))
            agreements.append(agreement(c, base, groups))
        cue = _passes(panel, c, "x.random_colon")
        patterns[c] = dict(sorted(Counter(_pattern(g) for g in cue).items()))
        if fixture_source is not None:
            fixtures += [
                agreement(c, control, [[panel.get(c, fixture_source, name) for name in pair]])
                for control in GATED_CONTROLS
                for pair in [[fixture_cell(m, control) for m in ("open", "close")]]
            ]
    return RepeatAnalysis(
        gates=gates,
        primary=qualify_slots(primary, [c for c in family for _ in REPEAT_PRIMARY], gates),
        secondary=qualify_slots(secondary, [c for c in family for _ in REPEAT_SECONDARY], gates),
        passes=passes,
        patterns=patterns,
        agreement=agreements,
        fixtures=fixtures,
        shift=[
            score_shift(panel, c, weights, n_boot=settings.n_boot, seed=first + k)
            for k, c in enumerate(family)
            if c in run
        ],
    )
