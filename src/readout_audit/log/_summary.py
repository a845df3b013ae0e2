"""Typed run summaries: the base every audit kind extends, one interval type, checks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from readout_audit.stats import Interval as BootstrapInterval
from readout_audit.stats import resampling_clusters

SUMMARY_SCHEMA_VERSION = 3
"""Version of ``summary.json``; 1 was the untyped summary of readout-audit 0.1, 2 the summary
before the yes/no token-set comparison and the options continuation classes and flags."""

Verdict = Literal["pass", "warn", "fail"]
SMALL_SAMPLE = 30
"""Intervals from fewer items than this are flagged: percentile bootstraps under-cover there."""


class Interval(BaseModel):
    """An estimate with its confidence interval, the one shape every summary and report uses."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    estimate: float
    low: float
    high: float
    level: float = 0.95
    method: str
    """How the interval was made, e.g. ``cluster bootstrap percentile (20000 replicates)``."""
    n: int
    """Items behind the estimate."""
    n_clusters: int
    """Distinct clusters among them (with fewer than 2, the bootstrap resampled items)."""

    @property
    def caution(self) -> str | None:
        """Why the interval deserves caution: fewer than 30 items, or fewer than 2 clusters."""
        if self.n < SMALL_SAMPLE:
            return f"n={self.n}<{SMALL_SAMPLE}"
        if self.n_clusters < 2:
            return "1 cluster"
        return None

    @classmethod
    def from_bootstrap(
        cls,
        interval: BootstrapInterval,
        clusters: Sequence[Any],
        *,
        n_boot: int,
        paired: bool = False,
        estimate: float | None = None,
    ) -> Interval:
        """A percentile bootstrap interval, saying whether clusters or items were resampled."""
        resampled = resampling_clusters(clusters)
        unit = "cluster" if resampled is not None else "item"
        method = f"{'paired ' if paired else ''}{unit} bootstrap percentile ({n_boot} replicates)"
        return cls(
            estimate=interval.estimate if estimate is None else estimate,
            low=interval.low,
            high=interval.high,
            level=1 - interval.alpha,
            method=method,
            n=len(clusters),
            n_clusters=len(set(clusters)),
        )

    @classmethod
    def from_replicates(
        cls, estimate: float, replicates: np.ndarray, *, method: str, n: int, n_clusters: int
    ) -> Interval:
        """The 95% percentile interval of bootstrap replicates of a derived statistic."""
        low, high = np.quantile(replicates[np.isfinite(replicates)], [0.025, 0.975])
        return cls(
            estimate=estimate,
            low=float(low),
            high=float(high),
            method=method,
            n=n,
            n_clusters=n_clusters,
        )


class Check(BaseModel):
    """One check: its verdict, a plain-language finding, the numbers behind it, a repair."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    verdict: Verdict
    finding: str
    evidence: dict[str, Any] = Field(default_factory=dict)
    repair: str | None = None

    def __init__(
        self,
        name: str,
        verdict: Verdict,
        finding: str,
        evidence: dict[str, Any] | None = None,
        repair: str | None = None,
    ) -> None:
        super().__init__(
            name=name, verdict=verdict, finding=finding, evidence=evidence or {}, repair=repair
        )

    def as_dict(self) -> dict[str, Any]:
        """The check as JSON-ready data."""
        return self.model_dump(mode="json")


class Timing(BaseModel):
    """What the invocation that wrote the summary did, and how fast."""

    model_config = ConfigDict(extra="forbid")

    n_new_records: int
    seconds: float
    items_per_s: float | None
    tokens_per_s: float | None


class PairedScores(BaseModel):
    """Scores of several readouts on the same items, joined once by the audit.

    The report draws ROC and reliability curves from it, and a later analysis can reuse it,
    without joining records again.
    """

    model_config = ConfigDict(extra="forbid")

    ids: list[str]
    labels: list[bool]
    scores: dict[str, list[float]]


class Summary(BaseModel):
    """``summary.json``: what every audit kind's summary holds; kinds add their own fields."""

    model_config = ConfigDict(extra="forbid")

    schema_version: int = SUMMARY_SCHEMA_VERSION
    kind: str
    n_records: int
    n_items: int
    checks: list[Check] = Field(default_factory=list)
    this_invocation: Timing | None = None
