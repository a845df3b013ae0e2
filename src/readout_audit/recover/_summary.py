"""The typed summary of a recovery run: per configuration, per held-out split, every table."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from readout_audit.log._summary import Summary


class _Row(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ReadoutAccuracy(_Row):
    """One readout's accuracy on a held-out split (a probe's: mean and sd over its seeds)."""

    readout: str
    accuracy: float
    sd: float | None = None
    n: int
    seeds_agree: bool | None = None
    """Every seed's probe got the same examples right: its spread says nothing about seeds."""


class ReadoutGap(_Row):
    """accuracy(a) − accuracy(b) on the same examples, paired bootstrap interval and p."""

    a: str
    b: str
    difference: float
    low: float
    high: float
    p_value: float


class RecoveryResult(_Row):
    """Raw against offset-corrected predictions on held-out examples."""

    n: int
    raw_accuracy: float
    corrected_accuracy: float
    raw_macro_f1: float
    corrected_macro_f1: float
    gained: int
    lost: int
    p_value: float
    """Exact McNemar test on (gained, lost)."""
    raw_histogram: list[int]
    corrected_histogram: list[int]


class NullResult(_Row):
    """The corrected accuracy against its count-preserving permutation null."""

    observed: float
    null_mean: float
    null_low: float
    null_high: float
    gap: float
    p_value: float
    n_perm: int
    counts: list[int]
    """Histogram of the null accuracies over ``edges``, for the report's figure."""
    edges: list[float]


class BudgetResult(_Row):
    """Held-out accuracy of offsets fitted on subsamples of one size."""

    budget: int
    draws: int
    mean: float
    sd: float
    minimum: float
    n_positive: int
    """Subsamples whose corrected accuracy beats the raw accuracy."""
    raw_accuracy: float


class PriorResult(_Row):
    """The worst case over target priors perturbed around uniform."""

    n_priors: int
    radius: float
    step: float
    worst_accuracy: float
    median_accuracy: float
    worst_gain: float
    worst_macro_f1: float


class SliceResult(_Row):
    """The held-out examples a bag-of-words classifier gets wrong, and recovery on them."""

    tfidf_accuracy: float
    n_missed: int
    recovery: RecoveryResult | None
    null: NullResult | None
    budgets: list[BudgetResult]


class SplitResult(_Row):
    """Everything measured on one held-out split under one configuration."""

    split: str
    n: int
    gold_histogram: list[int]
    readouts: list[ReadoutAccuracy]
    gaps: list[ReadoutGap]
    recovery: RecoveryResult
    recovery_mean: RecoveryResult
    """The same with mean-normalised string scores (offsets fitted on those)."""
    null: NullResult
    budgets: list[BudgetResult]
    priors: PriorResult | None
    tfidf: SliceResult | None


class ConfigurationResult(_Row):
    """One prompt wording × verbalizer: its label-free fit and its held-out splits."""

    configuration: str
    full: bool
    """Whether the fit-budget, prior and TF-IDF controls ran (the main configuration)."""
    candidates: list[str]
    candidate_tokens: list[int]
    """Tokens of each candidate continuation (their median over the records)."""
    n_fit: int
    offsets: list[float]
    offsets_mean: list[float]
    fit_loss: float
    fit_collapse: float
    """Largest prediction fraction left on the fit split by the offsets."""
    offset_grid: tuple[float, float] = (-10.0, 10.0)
    """The grid the string-score offsets were searched on (wider than asked when widened)."""
    offsets_pinned: bool = False
    """The grid may still bind the fit (an offset on its edge, or a label never predicted);
    no wider grid fitted better."""
    raw_collapse: float
    """Largest raw prediction fraction of the string scores on the (unlabelled) fit split."""
    raw_fit_histogram: list[int]
    collapsed: bool
    n_unscored: int
    """Records left out because a candidate's boundary is not preserved (no string score)."""
    splits: list[SplitResult]


class RecoverSummary(Summary):
    """Where a forced-choice answer is lost, and whether a label-free offset recovers it."""

    labels: list[str]
    layers: list[int]
    """Hidden-state layers probed (empty when the backend exposes none)."""
    collapse_threshold: float
    n_collapsed: int
    """Configurations whose raw string scores are collapsed."""
    configurations: list[ConfigurationResult]
