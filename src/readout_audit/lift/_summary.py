"""The typed summary of a lift run (seed 001): every table, from the run's files alone.

Per forecast setting: its lift over the same-budget recent-context control (Table 5), its
paired advantages over every control and the oracle's over it (Table 9), the lift under
every scoring rule (Tables 3-4), by scored target window (Table 10) and the share of cuts
near the clipped maximum (section 6); across settings, adjacent contrasts (Table 6); across
conditions, the control ladder against the empty scaffold (Table 8), with the context-only
SFT rung on the held-out papers' cuts where the run has one.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from pydantic import Field

from readout_audit.lift._conditions import CONTEXT, EMPTY, FORECAST, ORACLE, SFT
from readout_audit.lift._distributions import (
    Distribution,
    HardestSlice,
    distribution,
    hardest_slice,
    per_cut_lift,
)
from readout_audit.lift._effort import EffortRow, TokenCounts, effort_row
from readout_audit.lift._lift_stats import (
    Contrast,
    FrozenRow,
    LadderRow,
    NearMaximum,
    RuleRow,
    WindowRow,
    condition_ladder,
    near_maximum,
    paired_scores,
    rule_scores,
    rule_table,
    window_curve,
)
from readout_audit.lift._record import LiftRecord
from readout_audit.lift._rules import HEADLINE
from readout_audit.lift._toy import ToyRow
from readout_audit.log import Run, Summary

EXAMPLES = 5
"""Cuts shown side by side in the report (a seeded sample, not chosen by score)."""


class NamedContrast(FrozenRow):
    """a − b under the headline rule, paired by cut."""

    a: str
    b: str
    contrast: Contrast


class SettingTables(FrozenRow):
    """Every table of one forecast setting."""

    setting: str
    lift: Contrast
    """forecast − same-budget recent context (Table 5), clipLL_2."""
    advantages: list[NamedContrast]
    """forecast − each control, oracle − forecast (Table 9)."""
    rules: list[RuleRow]
    windows: list[WindowRow]
    near_maximum: NearMaximum
    distribution: Distribution | None = None
    """The per-cut lift over the same-budget recent context (Figure 2)."""
    effort: EffortRow | None = None
    """Its predictor's token use beside its lift (Table 7)."""


class ExampleCut(FrozenRow):
    """One cut with the true target and each forecast, aligned at the cut."""

    cut_id: str
    paper: str
    visible_tail: str
    """The last characters the predictor saw before the cut."""
    target: str
    forecasts: dict[str, str]
    lifts: dict[str, float]
    """Per setting, forecast − same-budget context (clipLL_2) on this cut."""
    scores: dict[str, float] = Field(default_factory=dict)
    """Every condition's clipLL_2 on this cut (appendix C's score table)."""


class LiftSummary(Summary):
    """Every table of a lift run."""

    rule: str = HEADLINE
    cut_kind: str | None = None
    n_papers: int = 0
    control: str = CONTEXT
    conditions: list[str] = Field(default_factory=list)
    ladder: list[LadderRow] = Field(default_factory=list)
    """Each condition against the empty scaffold (Table 8)."""
    settings: list[SettingTables] = Field(default_factory=list)
    over_controls: list[NamedContrast] = Field(default_factory=list)
    """Every other condition minus every control before it (empty, recent context, SFT)."""
    adjacent: list[NamedContrast] = Field(default_factory=list)
    """Each forecast setting minus the next one, in the order they were given (Table 6)."""
    oracle_near_maximum: NearMaximum | None = None
    incomplete: dict[str, int] = Field(default_factory=dict)
    """Per condition, cuts of the run it was not scored on (an interrupted run); the SFT rung
    is planned on the cuts of held-out papers only, less those dropped for overlap."""
    sft_dropped: int = 0
    """Held-out cuts the SFT rung does not read: a training example holds their target."""
    empty_forecasts: dict[str, int] = Field(default_factory=dict)
    """Per forecast setting, cuts whose forecast was empty (a reasoning model that spent its
    token limit before answering, say): scored as the bare scaffold."""
    toy: list[ToyRow] = Field(default_factory=list)
    examples: list[ExampleCut] = Field(default_factory=list)
    distributions: list[Distribution] = Field(default_factory=list)
    """Each condition's per-cut scores (Figure 2's medians and spread, per condition)."""
    hardest: HardestSlice | None = None
    """Section 9's heuristic: the setting contrasts on the cuts where the selecting setting
    (``hardest_by``, default the last setting given) lifts least."""


def empty_forecasts(records: Sequence[LiftRecord]) -> dict[str, int]:
    """Per forecast setting, how many of its records scored an empty forecast."""
    found = Counter(
        r.variant.removeprefix(FORECAST)
        for r in records
        if r.variant.startswith(FORECAST) and r.forecast_chars == 0
    )
    return dict(sorted(found.items()))


def condition_rank(name: str) -> tuple[int, str]:
    """The ladder's order (Table 8): empty, recent-context controls, SFT, forecasts, oracle."""
    if name == EMPTY:
        return (0, name)
    if name.startswith(CONTEXT):
        return (1, f"{len(name):03d}{name}")
    if name == SFT:
        return (2, name)
    if name == ORACLE:
        return (4, name)
    return (3, name)


def versus(scores: dict[str, float], name: str, reference: str) -> float | None:
    """``name``'s score minus ``reference``'s (Appendix C's columns); None for itself or absent."""
    if reference not in scores or name == reference:
        return None
    return scores[name] - scores[reference]


def is_control(name: str) -> bool:
    """The conditions a forecast must beat: empty scaffold, recent context, the SFT rung."""
    return name in (EMPTY, SFT) or name.startswith(CONTEXT)


def token_records(records: Sequence[LiftRecord]) -> dict[str, dict[str, np.ndarray]]:
    """Condition → cut id → the target's per-token log-probabilities."""
    found: dict[str, dict[str, np.ndarray]] = {}
    for r in records:
        found.setdefault(r.variant, {})[r.item_id] = np.asarray(r.target_logprobs, np.float64)
    return found


def _contrast(
    scores: Mapping[str, Mapping[str, float]], papers: Mapping[str, str], a: str, b: str
) -> NamedContrast:
    """A − b on the cuts both conditions have."""
    paired = paired_scores(scores, papers, (a, b), allow_missing=True)
    return NamedContrast(a=a, b=b, contrast=paired.contrast(a, b))


def _setting(
    setting: str,
    tokens: Mapping[str, Mapping[str, np.ndarray]],
    scores: Mapping[str, Mapping[str, float]],
    papers: Mapping[str, str],
    counts: TokenCounts,
) -> SettingTables:
    name = f"{FORECAST}{setting}"
    controls = sorted((c for c in tokens if is_control(c)), key=condition_rank)
    pairs = [(name, c) for c in controls] + ([(ORACLE, name)] if ORACLE in tokens else [])
    advantages = [_contrast(scores, papers, a, b) for a, b in pairs]
    mine = paired_scores(scores, papers, (name,), allow_missing=True)
    lift = next(x.contrast for x in advantages if x.b == CONTEXT)
    per_cut = per_cut_lift(scores, name, CONTEXT)
    return SettingTables(
        setting=setting,
        lift=lift,
        distribution=distribution(setting, list(per_cut.values())),
        effort=effort_row(setting, lift, list(per_cut), counts),
        advantages=advantages,
        rules=rule_table(tokens, papers, name, CONTEXT, allow_missing=True),
        windows=window_curve(tokens[name], tokens[CONTEXT], papers, allow_missing=True),
        near_maximum=near_maximum(mine.scores[name]),
    )


def _examples(
    run: Run[LiftRecord],
    scores: Mapping[str, Mapping[str, float]],
    settings: Sequence[str],
    seed: int,
) -> list[ExampleCut]:
    cuts = {c["id"]: c for c in run.artifacts.get("cuts", [])}
    forecasts: Mapping[str, Mapping[str, str]] = run.artifacts.get("forecasts", {})
    complete = sorted(
        cut for cut in cuts if all(cut in by_cut for c, by_cut in scores.items() if c != SFT)
    )
    chosen = sorted(random.Random(seed).sample(complete, min(EXAMPLES, len(complete))))
    found = []
    for cut_id in chosen:
        cut = cuts[cut_id]
        visible = cut["prefix"] if cut["kind"] == "equation" else cut["context"]
        found.append(
            ExampleCut(
                cut_id=cut_id,
                paper=cut["paper"],
                visible_tail=visible[-160:],
                target=cut["target"],
                forecasts={s: forecasts.get(cut_id, {}).get(s, "") for s in settings},
                lifts={
                    s: scores[f"{FORECAST}{s}"][cut_id] - scores[CONTEXT][cut_id] for s in settings
                },
                scores={c: by_cut[cut_id] for c, by_cut in scores.items() if cut_id in by_cut},
            )
        )
    return found


def summarise_lift_run(run: Run[LiftRecord]) -> LiftSummary:
    """The lift summary from the run's records, cuts, forecasts and toy check."""
    records = run.records
    config: dict[str, Any] = run.manifest.config
    toy = [ToyRow.model_validate(row) for row in run.artifacts.get("toy", [])]
    base = LiftSummary(
        kind=run.manifest.kind,
        n_records=len(records),
        n_items=len({r.item_id for r in records}),
        cut_kind=(config.get("cut_kinds") or [None])[0],
        toy=toy,
    )
    if not records:
        return base
    papers = {r.item_id: r.cluster for r in records}
    tokens = token_records(records)
    scores = rule_scores(tokens, rule=HEADLINE)
    names = sorted(tokens, key=condition_rank)
    settings = [s for s in config.get("forecast_settings", []) if f"{FORECAST}{s}" in tokens]
    ladder = condition_ladder(scores, papers, EMPTY, names) if EMPTY in tokens else []
    counts: TokenCounts = run.artifacts.get("forecast_tokens", {})
    tables = (
        [_setting(s, tokens, scores, papers, counts) for s in settings] if CONTEXT in tokens else []
    )
    pairs = config.get("contrasts", list(itertools.pairwise(settings)))  # older runs: none
    adjacent = [
        _contrast(scores, papers, f"{FORECAST}{a}", f"{FORECAST}{b}")
        for a, b in pairs
        if a in settings and b in settings
    ]
    controls = [c for c in names if is_control(c)]
    over_controls = [  # each condition over each control before it in the ladder
        _contrast(scores, papers, a, b)
        for i, a in enumerate(names)
        for b in controls
        if names.index(b) < i
    ]
    oracle = None
    if ORACLE in scores:
        oracle = near_maximum(list(scores[ORACLE].values()))
    every = set(papers)
    held_out = set(config.get("sft", {}).get("held_out", []))
    dropped = set(config.get("sft", {}).get("dropped", []))
    rung = {i for i in every if papers[i] in held_out} - dropped
    planned = {c: every for c in names} | {SFT: rung}
    return base.model_copy(
        update={
            "n_papers": len(set(papers.values())),
            "conditions": names,
            "ladder": ladder,
            "settings": tables,
            "over_controls": over_controls,
            "adjacent": adjacent,
            "oracle_near_maximum": oracle,
            "incomplete": {
                c: len(planned[c] - tokens[c].keys())
                for c in names
                if planned[c] - tokens[c].keys()
            },
            "sft_dropped": len(dropped & every),
            "empty_forecasts": empty_forecasts(records),
            "examples": _examples(run, scores, settings, int(config.get("seed", 0))),
            "distributions": [distribution(c, list(scores[c].values())) for c in names],
            "hardest": _hardest(scores, papers, settings, pairs, config.get("hardest_by")),
        }
    )


def _hardest(
    scores: Mapping[str, Mapping[str, float]],
    papers: Mapping[str, str],
    settings: Sequence[str],
    pairs: Sequence[Sequence[str]],
    selector: str | None,
) -> HardestSlice | None:
    """Section 9's slice by ``selector`` (default the last setting), when there are contrasts."""
    kept = [(f"{FORECAST}{a}", f"{FORECAST}{b}") for a, b in pairs if {a, b} <= set(settings)]
    chosen = selector or (settings[-1] if settings else None)
    if not kept or chosen not in settings or CONTEXT not in scores:
        return None
    return hardest_slice(scores, papers, f"{FORECAST}{chosen}", kept, CONTEXT)
