"""The typed summary of a recovery run: per configuration, per held-out split, every table."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from readout_audit.log import Summary


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
    corrected_collapse: float | None = None
    """The largest corrected prediction share on these rows (Table 18's "Cal. Collapse")."""
    corrected_interval: tuple[float, float] | None = None
    """95% paired bootstrap interval of the corrected accuracy (clusters resampled whole)."""
    gain_interval: tuple[float, float] | None = None
    """The same resamples' interval of corrected − raw accuracy."""


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
    macro_f1: float | None = None
    """Mean held-out macro-F1 over the subsamples."""
    null_gap: float | None = None
    """Mean over the subsamples of accuracy − the count-preserving null's mean accuracy."""
    null_gap_min: float | None = None


class PriorResult(_Row):
    """The worst case over target priors perturbed around uniform, on ``n`` held-out rows."""

    n: int | None = None
    raw_accuracy: float | None = None
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
    priors: list[PriorResult] = []
    """Prior sensitivity on the slice, one row per radius (the fits of the whole split's)."""


class DepthStratum(_Row):
    """Every readout's accuracy on the held-out examples of one reasoning depth."""

    depth: int
    n: int
    accuracies: dict[str, float]
    """By readout (probes: correctness averaged over their seeds), the corrected one included."""


class SeedAggregate(_Row):
    """One held-out split regenerated at several generator seeds (``NAME@SEED``): Tables 23-27.

    Means (and sample sd) over the seeds' splits; minima are the worst seed's.
    """

    split: str
    seeds: list[int]
    n: list[int]
    raw: tuple[float, float]
    """(mean, sd) of raw accuracy."""
    corrected: tuple[float, float]
    min_gain: float
    """The smallest corrected − raw accuracy over the seeds."""
    null_gap: float
    macro_f1: float
    tfidf_n: tuple[float, float] | None = None
    """(mean, sd) of the TF-IDF-missed slice's size, and the same statistics on the slices."""
    tfidf_raw: float | None = None
    tfidf_corrected: tuple[float, float] | None = None
    tfidf_min_gain: float | None = None
    tfidf_null_gap: float | None = None
    tfidf_null_accuracy: float | None = None
    tfidf_macro_f1: float | None = None
    tfidf_p_max: float | None = None
    """The largest permutation p over the seeds' slices."""
    tfidf_worst_prior: float | None = None
    """The lowest corrected accuracy over the seeds' slices and the widest radius's priors."""
    tfidf_median_prior: float | None = None
    tfidf_worst_prior_gain: float | None = None


class NativeReadout(_Row):
    """Held-out accuracy of the output layer read at one stored position and layer (Table 12)."""

    position: str
    """``prompt end`` or ``answer slot``."""
    layer: int
    accuracy: float
    selected: bool
    """The position and layer that read best on the labelled training split."""


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
    priors: list[PriorResult] = []
    """Prior sensitivity, one row per radius (0.025, 0.05, 0.10)."""
    tfidf: SliceResult | None
    depths: list[DepthStratum] = []
    """Per reasoning depth, where the items give one."""
    native: list[NativeReadout] = []
    """The output layer at every stored position and layer (when the records hold them)."""


class ProbeSizeRow(_Row):
    """Probes fitted on ``size`` training rows: mean accuracy (and sd) over seeds per split."""

    size: int
    accuracy: dict[str, float]
    sd: dict[str, float] | None
    """None for the one probe on all ``size`` training rows (no subsample, no bootstrap
    replicate): fitted once, it has no spread over seeds."""
    shuffled: dict[str, float]
    """The shuffled-label control fitted on as many rows, mean over the seeds."""


class AuxiliaryProbe(_Row):
    """A probe trained on another target: accuracy and the majority-class rate per split."""

    target: str
    classes: int
    accuracy: dict[str, float]
    baseline: dict[str, float]
    """The share of the split's most common target value (what a constant guess reaches; values
    training never saw count as one more value)."""


class DirectionRow(_Row):
    """A probe trained on held-out split ``source`` against the training split's probe."""

    source: str
    layer: int
    cosine: float
    """Between the two probes' raw-feature weights (classes flattened)."""
    transfer: dict[str, float]
    """The source probe's accuracy on each other held-out split."""
    agreement: dict[str, float]
    """How often the two probes predict the same label there."""


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
    """The grid still binds the fit (an offset on its edge, or a label no offset on it lets
    win a row) at the widest grid the search allows."""
    raw_collapse: float
    """Largest raw prediction fraction of the string scores on the (unlabelled) fit split."""
    raw_fit_histogram: list[int]
    collapsed: bool
    n_unscored: int
    """Records left out because a candidate's boundary is not preserved (no string score)."""
    splits: list[SplitResult]
    seed_aggregates: list[SeedAggregate] = []
    """Splits regenerated at other generator seeds, aggregated by name."""
    probe_sizes: list[ProbeSizeRow] = []
    """The answer-slot probe (last layer) by training rows (Table 17)."""
    auxiliary: list[AuxiliaryProbe] = []
    """The same probe trained on other targets (Table 14)."""
    directions: list[DirectionRow] = []
    """Probes trained on held-out splits against the training probe, per layer (Table 15)."""


class LeakageResult(_Row):
    """One surface feature group's held-out accuracy per split (Appendix C, Table 8)."""

    group: str
    accuracies: dict[str, float]
    n: dict[str, int]


class RecoverSummary(Summary):
    """Where a forced-choice answer is lost, and whether a label-free offset recovers it."""

    labels: list[str]
    layers: list[int]
    """Hidden-state layers probed (empty when the backend exposes none)."""
    collapse_threshold: float
    n_collapsed: int
    """Configurations whose raw string scores are collapsed."""
    configurations: list[ConfigurationResult]
    leakage: list[LeakageResult] = Field(default_factory=list)
    """What shallow features of the main configuration's items tell of their labels."""
