"""The typed summary of a lift run (seed 001): every table, from the run's files alone.

Per forecast setting: its lift over the same-budget recent-context control (Table 5), its
paired advantages over every control and the oracle's over it (Table 9), the lift under
every scoring rule (Tables 3-4), by scored target window (Table 10) and the share of cuts
near the clipped maximum (section 6); across settings, adjacent contrasts (Table 6); across
conditions, the control ladder against the empty scaffold (Table 8).
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from readout_audit.lift._conditions import CONTEXT, EMPTY, FORECAST, ORACLE
from readout_audit.lift._lift_stats import (
    Contrast,
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
from readout_audit.log._run import Run
from readout_audit.log._summary import Summary

EXAMPLES = 5
"""Cuts shown side by side in the report (a seeded sample, not chosen by score)."""


class _Row(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class NamedContrast(_Row):
    """a − b under the headline rule, paired by cut."""

    a: str
    b: str
    contrast: Contrast


class SettingTables(_Row):
    """Every table of one forecast setting."""

    setting: str
    lift: Contrast
    """forecast − same-budget recent context (Table 5), clipLL_2."""
    advantages: list[NamedContrast]
    """forecast − each control, oracle − forecast (Table 9)."""
    rules: list[RuleRow]
    windows: list[WindowRow]
    near_maximum: NearMaximum


class ExampleCut(_Row):
    """One cut with the true target and each forecast, aligned at the cut."""

    cut_id: str
    paper: str
    visible_tail: str
    """The last characters the predictor saw before the cut."""
    target: str
    forecasts: dict[str, str]
    lifts: dict[str, float]
    """Per setting, forecast − same-budget context (clipLL_2) on this cut."""


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
    """Every other condition minus every control (empty scaffold, recent context)."""
    adjacent: list[NamedContrast] = Field(default_factory=list)
    """Each forecast setting minus the next one, in the order they were given (Table 6)."""
    oracle_near_maximum: NearMaximum | None = None
    incomplete: dict[str, int] = Field(default_factory=dict)
    """Per condition, cuts of the run it was not scored on (an interrupted run)."""
    empty_forecasts: dict[str, int] = Field(default_factory=dict)
    """Per forecast setting, cuts whose forecast was empty (a reasoning model that spent its
    token limit before answering, say): scored as the bare scaffold."""
    toy: list[ToyRow] = Field(default_factory=list)
    examples: list[ExampleCut] = Field(default_factory=list)


def empty_forecasts(records: Sequence[LiftRecord]) -> dict[str, int]:
    """Per forecast setting, how many of its records scored an empty forecast."""
    found = Counter(
        r.variant.removeprefix(FORECAST)
        for r in records
        if r.variant.startswith(FORECAST) and r.forecast_chars == 0
    )
    return dict(sorted(found.items()))


def condition_rank(name: str) -> tuple[int, str]:
    """The ladder's order: empty, recent-context controls, forecasts, oracle."""
    if name == EMPTY:
        return (0, name)
    if name.startswith(CONTEXT):
        return (1, f"{len(name):03d}{name}")
    if name == ORACLE:
        return (3, name)
    return (2, name)


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
) -> SettingTables:
    name = f"{FORECAST}{setting}"
    controls = sorted(
        (c for c in tokens if c == EMPTY or c.startswith(CONTEXT)), key=condition_rank
    )
    pairs = [(name, c) for c in controls] + ([(ORACLE, name)] if ORACLE in tokens else [])
    advantages = [_contrast(scores, papers, a, b) for a, b in pairs]
    mine = paired_scores(scores, papers, (name,), allow_missing=True)
    return SettingTables(
        setting=setting,
        lift=next(x.contrast for x in advantages if x.b == CONTEXT),
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
    complete = sorted(cut for cut in cuts if all(cut in by_cut for by_cut in scores.values()))
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
    tables = [_setting(s, tokens, scores, papers) for s in settings] if CONTEXT in tokens else []
    pairs = config.get("contrasts", list(itertools.pairwise(settings)))  # older runs: none
    adjacent = [
        _contrast(scores, papers, f"{FORECAST}{a}", f"{FORECAST}{b}")
        for a, b in pairs
        if a in settings and b in settings
    ]
    controls = [c for c in names if c == EMPTY or c.startswith(CONTEXT)]
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
                c: len(every - tokens[c].keys()) for c in names if every - tokens[c].keys()
            },
            "empty_forecasts": empty_forecasts(records),
            "examples": _examples(run, scores, settings, int(config.get("seed", 0))),
        }
    )
