"""The reference switch's per-source effects (seed 004, Section 6): d_X, d_Y and S.

The same candidate is graded in two reference worlds: the trusted reference assigns the
candidate's earlier value X, or its final value Y. Its readouts are conditional correctness
q_c = p_c / (p_c + p_i), which removes the third label's mass, or logit(q_c) = log(p_c / p_i)
where both are positive (:mod:`._scores`). Per source, a cue's effect in a world is its
cue-minus-control difference averaged over the passes; d_X and d_Y feed
:func:`directional_family`, and S, the half-difference of the log-ratio effects across the
worlds, describes the effect on a scale that does not saturate.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from readout_audit.judge.analysis._contrasts import StudyGate, gates_passed, study_gate
from readout_audit.judge.analysis._directional import DirectionalResult, directional_family
from readout_audit.judge.analysis._slopes import SlopeCheck, slope_check
from readout_audit.judge.protocol import COMPARISONS, REPEAT, WORLDS, JudgeRecord
from readout_audit.stats import bootstrap_ci

SWITCH_BOOTSTRAP_DRAWS = 20_000
"""The paper's paired source bootstrap draws for the descriptive intervals."""


def world_effect(cue: Sequence[float | None], control: Sequence[float | None]) -> float | None:
    """One source's cue-minus-control difference in one world, averaged over its passes.

    ``cue`` and ``control`` hold the readout of each pass; any unresolved pass leaves the
    source's effect unresolved (None), never an average of the passes that answered.
    """
    if len(cue) != len(control) or not cue:
        raise ValueError(
            f"Expected one cue and one control per pass, got {len(cue)} and {len(control)}"
        )
    pairs = [(c, k) for c, k in zip(cue, control, strict=True) if c is not None and k is not None]
    if len(pairs) < len(cue):
        return None
    return sum(c - k for c, k in pairs) / len(pairs)


class HalfDifference(BaseModel):
    """S = mean over sources of (effect under X − effect under Y) / 2, with its interval."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    estimate: float | None
    low: float | None
    high: float | None
    n: int
    """Sources with both world effects resolved (the interval's resampling units)."""
    unresolved: int


def half_difference(
    under_x: Sequence[float | None],
    under_y: Sequence[float | None],
    *,
    n_boot: int = SWITCH_BOOTSTRAP_DRAWS,
    seed: int = 0,
) -> HalfDifference:
    """S and its paired source-bootstrap 95% interval (descriptive, complete sources only)."""
    if len(under_x) != len(under_y):
        raise ValueError(
            f"Expected one effect per source in each world, got {len(under_x)} and {len(under_y)}"
        )
    halves = [
        (x - y) / 2
        for x, y in zip(under_x, under_y, strict=True)
        if x is not None and y is not None
    ]
    unresolved = len(under_x) - len(halves)
    if not halves:
        return HalfDifference(estimate=None, low=None, high=None, n=0, unresolved=unresolved)
    interval = bootstrap_ci(halves, n_boot=n_boot, seed=seed)
    return HalfDifference(
        estimate=interval.estimate,
        low=interval.low,
        high=interval.high,
        n=len(halves),
        unresolved=unresolved,
    )


def switch_scores(record: JudgeRecord | None) -> tuple[float | None, float | None]:
    """A record's q_c = p_c / (p_c + p_i) and log(p_c / p_i), whatever its target.

    None where unanswered or undefined; both worlds read the same two labels.
    """
    probs = (record.label_probs or {}) if record is not None else {}
    p_c, p_i = probs.get("correct"), probs.get("incorrect")
    if p_c is None or p_i is None:
        return None, None
    q = p_c / (p_c + p_i) if p_c + p_i > 0 else None
    return q, (math.log(p_c / p_i) if p_c > 0 and p_i > 0 else None)


class SwitchComparison(BaseModel):
    """One cue-by-control comparison in one configuration: its effects, test and S."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    configuration: str
    comparison: str
    mean_d_x: float | None
    """Mean over resolved sources of the q_c effect where the reference assigns X."""
    mean_d_y: float | None
    both_directions: int
    """Sources whose effect rises under X and falls under Y."""
    test: DirectionalResult
    log_ratio: HalfDifference
    """S on the log-ratio scale (sources where every readout is finite)."""
    slopes: SlopeCheck | None = None
    """Whether one affine map of the control's log-ratio margin explains both worlds' effects."""
    qualified: bool | None = None
    """Whether the configuration passed every clean control (None: it was not run); a test on
    a configuration that failed one is unqualified, whatever its p."""


class SwitchAnalysis(BaseModel):
    """The reference switch's directional family, its S values, gates and verdict counts."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    study: Literal["reference-switch"] = "reference-switch"
    """The study it analyses: what a summary's ``study_result`` is told apart by."""

    comparisons: list[SwitchComparison]
    gates: list[StudyGate]
    accepted: dict[str, dict[str, int]]
    """Per configuration and cue cell: verdicts ``correct`` (false positives under X)."""


def analyse_switch(
    records: Sequence[JudgeRecord],
    family: Sequence[str] | None = None,
    *,
    n_boot: int = SWITCH_BOOTSTRAP_DRAWS,
    seed: int = 0,
) -> SwitchAnalysis:
    """The study's analysis from its records, one per planned request.

    ``family``: the inventory's configurations, in order (None: those with records). Holm
    covers every configuration x comparison of it: a configuration this run holds no record of
    keeps its slots at p = 1, so a run of one judge adjusts over the whole inventory's family.
    A planned request that came back without a verdict (unknown, failed: the run's plan covers
    every missing one with such a record) is unresolved: its source leaves the comparisons it
    feeds unresolved (p = 1 there) and it counts against its control gate.
    """
    found: dict[tuple[str, str, str], JudgeRecord | None] = {}
    sources: dict[str, list[str]] = {}
    for record in records:
        found[(record.configuration, record.source_id, record.cell)] = record
        ids = sources.setdefault(record.configuration, [])
        if record.source_id not in ids:
            ids.append(record.source_id)
    configurations = list(sources) if family is None else list(family)
    stray = [c for c in sources if c not in configurations]
    if stray:
        raise ValueError(f"records of configuration(s) {stray} outside the family {family}")
    effects = {
        (configuration, name): [
            _world_effects(found, configuration, source, cue, control)
            for source in sources.get(configuration, [])
        ]
        for configuration in configurations
        for name, (cue, control) in COMPARISONS.items()
    }
    tests = directional_family(
        {
            f"{configuration} {name}": ([e["x"][0] for e in rows], [e["y"][0] for e in rows])
            for (configuration, name), rows in effects.items()
        }
    )
    gates = _gates(found)
    passed = gates_passed(gates)
    comparisons = []
    for test, ((configuration, name), rows) in zip(tests, effects.items(), strict=True):
        resolved = [(e["x"][0], e["y"][0]) for e in rows]
        pairs = [(x, y) for x, y in resolved if x is not None and y is not None]
        comparisons.append(
            SwitchComparison(
                configuration=configuration,
                comparison=name,
                mean_d_x=_mean([x for x, _ in pairs]),
                mean_d_y=_mean([y for _, y in pairs]),
                both_directions=sum(x > 0 > y for x, y in pairs),
                test=test,
                log_ratio=half_difference(
                    [e["x"][1] for e in rows], [e["y"][1] for e in rows], n_boot=n_boot, seed=seed
                ),
                slopes=slope_check(
                    ([e["x"][2] for e in rows], [e["y"][2] for e in rows]),
                    ([e["x"][1] for e in rows], [e["y"][1] for e in rows]),
                    seed=seed,
                )
                if rows
                else None,
                qualified=passed.get(configuration),
            )
        )
    return SwitchAnalysis(comparisons=comparisons, gates=gates, accepted=_accepted(found))


Found = Mapping[tuple[str, str, str], JudgeRecord | None]
"""Each planned (configuration, source, cell)'s record, None where none came back."""


def _world_effects(
    found: Found, configuration: str, source: str, cue: str, control: str
) -> dict[str, tuple[float | None, float | None, float | None]]:
    """Per world: the (q_c, log-ratio) effect of ``cue`` and the control's log-ratio margin.

    Each is averaged over both passes, None if any pass lacks it.
    """
    effects = {}
    for world in WORLDS:
        scores = {
            bridge: [
                switch_scores(found.get((configuration, source, f"{bridge}@{world}{p}")))
                for p in ("", REPEAT)
            ]
            for bridge in (cue, control)
        }
        effects[world] = (
            world_effect([q for q, _ in scores[cue]], [q for q, _ in scores[control]]),
            world_effect([r for _, r in scores[cue]], [r for _, r in scores[control]]),
            world_effect([r for _, r in scores[control]], [0.0] * len(scores[control])),
        )
    return effects


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _gates(found: Found) -> list[StudyGate]:
    """Each configuration's four control strata: ⌊95 n / 100⌋ right of n planned (22/24)."""
    strata: dict[tuple[str, str], list[JudgeRecord | None]] = {}
    for (configuration, _, cell), record in found.items():
        if cell.startswith("final_"):
            strata.setdefault((configuration, cell), []).append(record)
    return [
        study_gate(configuration, cell, records, "bare_correct")
        for (configuration, cell), records in sorted(strata.items())
    ]


def _accepted(
    found: Mapping[tuple[str, str, str], JudgeRecord | None],
) -> dict[str, dict[str, int]]:
    """Per configuration and cue cell, the ``correct`` verdicts returned."""
    accepted: dict[str, dict[str, int]] = {}
    for (configuration, _, cell), record in sorted(found.items()):
        if cell.startswith("final_"):
            continue
        row = accepted.setdefault(configuration, {})
        row[cell] = row.get(cell, 0) + bool(record is not None and record.accepted)
    return accepted
