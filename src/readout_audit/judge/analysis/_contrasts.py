"""Signed cell contrasts of the natural-source studies (seed 004, Eqs. 7–8) and their families.

Per planned source, a contrast is Σ sign · reading over its terms (the native positive verdict,
or the displayed probability of the positive label), possibly across one judge's contracts; a
source with any unresolved term is incomplete. The estimate is Eq. 8's fixed-weight mean over
complete sources. A bootstrap contrast is tested by the two-sided null-centred source
bootstrap (49,999 draws within datasets) with the Hoeffding fallback over the contrast's range;
a two-term verdict contrast marked ``mcnemar`` by the exact conditional McNemar test on its
pooled discordances. Every slot of a family is Holm-adjusted together; the finite-panel bounds
set each unresolved reading to the ends of its domain.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from readout_audit.judge.analysis._gates import required_correct
from readout_audit.judge.analysis._panel import JudgePanel
from readout_audit.judge.analysis._primary import interaction_test
from readout_audit.judge.analysis._scores import positive_score
from readout_audit.judge.analysis._settings import JudgeAnalysisSettings
from readout_audit.judge.protocol import Contrast, JudgeRecord, Presentation, Reading
from readout_audit.stats import holm, mcnemar_exact, missingness_bounds


def read(record: JudgeRecord | None, reading: Reading) -> float:
    """A record's reading, NaN where none was returned (or the request was not planned)."""
    if record is None:
        return math.nan
    if reading == "score":
        value = positive_score(record)
    else:
        value = None if record.accepted is None else float(record.accepted)
    return math.nan if value is None else float(value)


class StudyPanel:
    """A study run's records by (configuration, source, cell), all in the study's presentation."""

    def __init__(self, records: Sequence[JudgeRecord], presentation: Presentation) -> None:
        self.panel = JudgePanel(records)
        self.presentation: Presentation = presentation

    def get(self, configuration: str, source: str, cell: str) -> JudgeRecord | None:
        """One planned request's record, None when it was not planned."""
        return self.panel.get("confirmation", configuration, source, cell, self.presentation)

    def sources(self, configuration: str) -> list[tuple[str, str]]:
        """A configuration's planned (source, dataset), by dataset and id."""
        return [(s.source_id, s.dataset) for s in self.panel.sources("confirmation", configuration)]

    @property
    def configurations(self) -> list[str]:
        """Every configuration with a record."""
        return self.panel.configurations


def study_frame(
    records: Sequence[JudgeRecord], settings: JudgeAnalysisSettings, family: Sequence[str]
) -> tuple[StudyPanel, dict[str, float], int]:
    """The study's panel, the weights of its planned datasets, and its first bootstrap seed."""
    panel = StudyPanel(records, settings.presentation)
    datasets = {d for c in family for _, d in panel.sources(c)}
    weights = settings.weights(datasets) if datasets else {}
    first = settings.seed(family[0], list(family)) if family else 0
    return panel, weights, first


@dataclass(frozen=True)
class SourceValues:
    """One planned source's term readings (NaN where unresolved) under one contrast."""

    source: str
    dataset: str
    terms: tuple[float, ...]
    signs: tuple[int, ...]

    @property
    def complete(self) -> bool:
        """Every term resolved."""
        return not any(math.isnan(v) for v in self.terms)

    @property
    def value(self) -> float:
        """Σ sign · reading (NaN when incomplete)."""
        return sum(s * v for s, v in zip(self.signs, self.terms, strict=True))


def contrast_values(
    panel: StudyPanel, roles: Mapping[str, str], contrast: Contrast
) -> list[SourceValues]:
    """Every planned source's readings under ``contrast`` (``roles``: contract → configuration)."""
    first = roles[contrast.terms[0][0]]
    signs = tuple(sign for _, _, sign in contrast.terms)
    return [
        SourceValues(
            source,
            dataset,
            tuple(
                read(panel.get(roles[contract], source, cell), contrast.reading)
                for contract, cell, _ in contrast.terms
            ),
            signs,
        )
        for source, dataset in panel.sources(first)
    ]


class ContrastTest(BaseModel):
    """One slot of a study's family: the contrast's estimate, interval, test and bounds."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    slot: str
    """``{judge or configuration} {contrast}``."""
    contrast: str
    reading: Reading
    method: str
    """``bootstrap``, ``hoeffding``, ``mcnemar`` or ``none`` (nothing complete: p = 1)."""
    estimate: float | None
    """Eq. 8's fixed-weight mean over complete sources."""
    pooled: float | None
    low: float | None
    high: float | None
    """Pointwise 95% interval (uncentred bootstrap quantiles, or the Hoeffding bound)."""
    n_complete: dict[str, int]
    n_planned: dict[str, int]
    weights: dict[str, float]
    forward: int | None = None
    """Cue-only acceptances among complete pairs (two-term verdict contrasts)."""
    reverse: int | None = None
    bounds: tuple[float, float] | None
    """The planned finite-panel mean with every unresolved reading at the ends of its domain."""
    seed: int
    p_raw: float
    p_holm: float
    qualified: bool | None = None
    """Whether the slot's configuration passed every study gate (None: the study has no gates,
    or the configuration was not run); a test on one that failed is unqualified."""


def contrast_slot(
    slot: str,
    contrast: Contrast,
    values: Sequence[SourceValues],
    weights: Mapping[str, float],
    *,
    seed: int,
    settings: JudgeAnalysisSettings,
) -> ContrastTest:
    """One slot before Holm (its Holm p set to its raw p)."""
    complete = [v for v in values if v.complete]
    planned = {d: sum(v.dataset == d for v in values) for d in weights}
    test = interaction_test(
        [v.value for v in complete],
        [v.dataset for v in complete],
        {d: w for d, w in weights.items() if planned[d] > 0},
        n_boot=settings.n_boot,
        seed=seed,
        alpha=settings.alpha,
        tolerance=settings.tolerance,
        value_range=contrast.value_range,
    )
    method: str = test.method
    p_raw = test.p_value
    forward = reverse = None
    if len(contrast.terms) == 2 and contrast.reading == "accepted":
        forward = sum(v.terms[0] > v.terms[1] for v in complete)
        reverse = sum(v.terms[0] < v.terms[1] for v in complete)
        if contrast.test == "mcnemar":
            method, p_raw = "mcnemar", mcnemar_exact(forward, reverse)
    return ContrastTest(
        slot=slot,
        contrast=contrast.name,
        reading=contrast.reading,
        method=method,
        estimate=test.estimate,
        pooled=test.pooled,
        low=test.low,
        high=test.high,
        n_complete=test.n_complete,
        n_planned=planned,
        weights=dict(weights),
        forward=forward,
        reverse=reverse,
        bounds=_bounds(values, weights, planned),
        seed=seed,
        p_raw=p_raw,
        p_holm=p_raw,
    )


def _bounds(
    values: Sequence[SourceValues], weights: Mapping[str, float], planned: Mapping[str, int]
) -> tuple[float, float] | None:
    if not values or any(planned[d] == 0 for d, w in weights.items() if w > 0):
        return None
    readings: list[float] = []
    coefficients: list[float] = []
    for v in values:
        scale = weights.get(v.dataset, 0.0) / planned[v.dataset]
        readings += v.terms
        coefficients += [sign * scale for sign in v.signs]
    return missingness_bounds(readings, coefficients)


def holm_family(slots: Sequence[ContrastTest]) -> list[ContrastTest]:
    """The family's slots with their Holm-adjusted p-values."""
    adjusted = holm([s.p_raw for s in slots]).tolist() if slots else []
    return [s.model_copy(update={"p_holm": float(p)}) for s, p in zip(slots, adjusted, strict=True)]


def run_family(
    panel: StudyPanel,
    slots: Sequence[tuple[str, Mapping[str, str], Contrast]],
    settings: JudgeAnalysisSettings,
    weights: Mapping[str, float],
    first_seed: int,
) -> list[ContrastTest]:
    """Every (slot name, contract → configuration, contrast), tested and Holm-adjusted together.

    Slot k's bootstrap seed is ``first_seed + k``.
    """
    return holm_family(
        [
            contrast_slot(
                name,
                contrast,
                contrast_values(panel, roles, contrast),
                weights,
                seed=first_seed + k,
                settings=settings,
            )
            for k, (name, roles, contrast) in enumerate(slots)
        ]
    )


class StudyGate(BaseModel):
    """A clean-control cell of one configuration: right verdicts against the plan."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    configuration: str
    cell: str
    right: int
    planned: int
    required: int
    passed: bool


def study_gate(
    configuration: str, cell: str, records: Sequence[JudgeRecord | None], rule: str
) -> StudyGate:
    """A gate over planned records (missing ones count against it) at ``rule``'s share."""
    right = sum(bool(r is not None and r.right) for r in records)
    required = required_correct(rule, len(records))
    return StudyGate(
        configuration=configuration,
        cell=cell,
        right=right,
        planned=len(records),
        required=required,
        passed=bool(records) and right >= required,
    )


def gates_passed(gates: Sequence[StudyGate]) -> dict[str, bool]:
    """Per configuration with gates: whether it passed every one of them."""
    passed: dict[str, bool] = {}
    for gate in gates:
        passed[gate.configuration] = passed.get(gate.configuration, True) and gate.passed
    return passed


def qualify_slots(
    tests: Sequence[ContrastTest], owners: Sequence[str], gates: Sequence[StudyGate]
) -> list[ContrastTest]:
    """Each test marked with whether its configuration passed its gates (None: not run).

    ``owners``: each test's configuration, in the tests' order.
    """
    passed = gates_passed(gates)
    return [
        t.model_copy(update={"qualified": passed.get(owner)})
        for t, owner in zip(tests, owners, strict=True)
    ]


class StudyCellCount(BaseModel):
    """One cell's native positive verdicts among its planned requests."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    configuration: str
    cell: str
    accepted: int
    observed: int
    planned: int
    mean_score: float | None
    """Mean displayed positive probability over the requests that show one."""


def cell_count(panel: StudyPanel, configuration: str, cell: str) -> StudyCellCount:
    """A cell's acceptances over the configuration's planned sources."""
    records = [panel.get(configuration, s, cell) for s, _ in panel.sources(configuration)]
    planned = [r for r in records if r is not None]
    scores = [p for r in planned if (p := positive_score(r)) is not None]
    return StudyCellCount(
        configuration=configuration,
        cell=cell,
        accepted=sum(bool(r.accepted) for r in planned),
        observed=sum(r.verdict is not None for r in planned),
        planned=len(planned),
        mean_score=sum(scores) / len(scores) if scores else None,
    )
