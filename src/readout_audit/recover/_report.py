"""Report sections of a recovery run: readout gap, recovery, controls, budgets, configurations."""

from __future__ import annotations

from readout_audit.data import LABELS
from readout_audit.log import Run
from readout_audit.recover._held_out import WHOLE_PROBE
from readout_audit.recover._record import RecoverRecord
from readout_audit.recover._report_audits import (
    depth_section,
    leakage_section,
    native_section,
    probe_section,
    seed_section,
)
from readout_audit.recover._summary import (
    BudgetResult,
    ConfigurationResult,
    NullResult,
    RecoverSummary,
    RecoveryResult,
)
from readout_audit.report import (
    MISSING,
    Block,
    FigureBlock,
    Section,
    TableBlock,
    TextBlock,
    fmt,
    plot,
)


def _acc(value: float, sd: float | None = None) -> str:
    return f"{value:.3f}" if sd is None else f"{value:.3f} ± {sd:.3f}"


def _p(value: float) -> str:
    return "<0.001" if value < 1e-3 else f"{value:.3f}"


def _histogram(counts: list[int]) -> str:
    return " / ".join(str(c) for c in counts)


_REPLICATES = (
    " The training split holds no more rows than a probe takes, so each seed fits a bootstrap "
    "replicate of them (about 63% distinct rows), which can read lower than the one fit on "
    "every row shown beside them."
)


def _gap_section(config: ConfigurationResult) -> Section:
    names = list(dict.fromkeys(r.readout for s in config.splits for r in s.readouts))
    found = {
        (s.split, r.readout): _acc(r.accuracy, r.sd) for s in config.splits for r in s.readouts
    }
    rows = [[name, *(found.get((s.split, name), MISSING) for s in config.splits)] for name in names]
    gaps = [
        [
            split.split,
            f"{g.a} − {g.b}",
            f"{g.difference:+.3f}",
            f"[{g.low:+.3f}, {g.high:+.3f}]",
            _p(g.p_value),
        ]
        for split in config.splits
        for g in split.gaps
    ]
    blocks: list[Block] = [
        TableBlock(
            "Held-out accuracy by readout (probes: mean ± sd over seeds)",
            ["readout", *(f"{s.split} (n={s.n})" for s in config.splits)],
            rows,
            note="Probes read the final hidden state (the one the output layer reads) unless a "
            "layer is named; label logits apply the output layer at the answer slot; the full "
            "string sums the candidate's teacher-forced log-probabilities."
            + (_REPLICATES if WHOLE_PROBE in names else ""),
        )
    ]
    if gaps:
        blocks.append(
            TableBlock(
                "Readout gaps (paired bootstrap, 95% interval, two-sided p)",
                ["split", "gap", "difference", "95% interval", "p"],
                gaps,
            )
        )
    else:
        blocks.append(
            TextBlock(
                "No probes: the backend exposes no hidden states, or no "
                "labelled training split was given."
            )
        )
    return Section(f"Where the answer is lost · {config.configuration}", blocks)


def _interval(pair: tuple[float, float] | None, sign: str = "") -> str:
    return MISSING if pair is None else f"[{pair[0]:{sign}.3f}, {pair[1]:{sign}.3f}]"


def _recovery_row(name: str, r: RecoveryResult) -> list[str]:
    return [
        name,
        str(r.n),
        _acc(r.raw_accuracy),
        f"{_acc(r.corrected_accuracy)} {_interval(r.corrected_interval)}",
        f"{r.corrected_accuracy - r.raw_accuracy:+.3f} {_interval(r.gain_interval, '+')}",
        f"{r.gained}−{r.lost}={r.gained - r.lost:+d}",
        f"{r.raw_macro_f1:.3f} → {r.corrected_macro_f1:.3f}",
        fmt(r.corrected_collapse, 3),
        _p(r.p_value),
    ]


def _offsets_text(config: ConfigurationResult) -> str:
    offsets = ", ".join(
        f"{label} {value:+.2f}" for label, value in zip(LABELS, config.offsets, strict=True)
    )
    return (
        f"Offsets fitted on {config.n_fit} unlabelled fit rows and frozen: {offsets} (the "
        f"reference stays 0). Raw fit predictions {_histogram(config.raw_fit_histogram)} "
        f"({' / '.join(LABELS)}), largest share {config.raw_collapse:.3f}; after the offsets "
        f"{config.fit_collapse:.3f}."
    )


def _recovery_section(config: ConfigurationResult) -> Section:
    columns = [
        "split",
        "n",
        "raw",
        "corrected [95%]",
        "Δ [95%]",
        "gain",
        "macro-F1",
        "corrected collapse",
        "p (McNemar)",
    ]
    histograms = {}
    for split in config.splits:
        for stage, counts in (
            ("raw", split.recovery.raw_histogram),
            ("corrected", split.recovery.corrected_histogram),
        ):
            histograms[f"{split.split} {stage}"] = dict(zip(LABELS, counts, strict=True))
    blocks: list[Block] = [
        TextBlock(_offsets_text(config)),
        TableBlock(
            "Held-out recovery (full string scores)",
            columns,
            [_recovery_row(s.split, s.recovery) for s in config.splits],
            note="Intervals: paired bootstrap over examples (whole clusters where items share "
            "one); gain: corrected-only right minus raw-only right; corrected collapse: the "
            "largest share of one label among the corrected predictions.",
        ),
        TableBlock(
            "Held-out recovery (mean-normalised string scores, their own offsets)",
            columns,
            [_recovery_row(s.split, s.recovery_mean) for s in config.splits],
        ),
        TableBlock(
            f"Prediction histograms ({' / '.join(LABELS)})",
            ["split", "gold", "raw", "corrected"],
            [
                [
                    s.split,
                    _histogram(s.gold_histogram),
                    _histogram(s.recovery.raw_histogram),
                    _histogram(s.recovery.corrected_histogram),
                ]
                for s in config.splits
            ],
        ),
        FigureBlock(
            "Predictions before and after the offsets",
            plot("class_bars", histograms, "Predicted labels per held-out split"),
        ),
    ]
    return Section(f"Label-free recovery · {config.configuration}", blocks)


def _null_row(name: str, null: NullResult | None) -> list[str]:
    if null is None:
        return [name, MISSING, MISSING, MISSING, MISSING]
    return [
        name,
        _acc(null.observed),
        f"{null.null_mean:.3f} [{null.null_low:.3f}, {null.null_high:.3f}]",
        f"{null.gap:+.3f}",
        _p(null.p_value),
    ]


def _controls_section(config: ConfigurationResult) -> Section:
    blocks: list[Block] = [
        TableBlock(
            f"Count-preserving permutation null ({config.splits[0].null.n_perm} permutations)",
            ["split", "corrected", "null mean [95%]", "observed − null", "p"],
            [_null_row(s.split, s.null) for s in config.splits],
        )
    ]
    sliced = [s for s in config.splits if s.tfidf is not None]
    if sliced:
        rows = []
        for s in sliced:
            t = s.tfidf
            assert t is not None
            r = t.recovery
            rows.append(
                [
                    s.split,
                    _acc(t.tfidf_accuracy),
                    str(t.n_missed),
                    _acc(r.raw_accuracy) if r else MISSING,
                    _acc(r.corrected_accuracy) if r else MISSING,
                    *(_null_row("", t.null)[3:]),
                ]
            )
        blocks.append(
            TableBlock(
                "TF-IDF-missed slice (held-out examples a bag-of-words classifier gets wrong)",
                [
                    "split",
                    "TF-IDF accuracy",
                    "n missed",
                    "raw",
                    "corrected",
                    "observed − null",
                    "p",
                ],
                rows,
            )
        )
    priors = _prior_rows(config)
    if priors:
        blocks.append(
            TableBlock(
                f"Prior perturbation (lattice step {config.splits[0].priors[0].step} around "
                "uniform; each prior's offsets fitted on the fit split)",
                [
                    "split",
                    "rows",
                    "n",
                    "radius",
                    "priors",
                    "raw",
                    "worst corrected",
                    "median",
                    "worst Δ",
                    "worst macro-F1",
                ],
                priors,
            )
        )
    for s in config.splits:
        blocks.append(
            FigureBlock(
                f"Permutation null · {s.split}",
                plot(
                    "null_histogram",
                    s.null.counts,
                    s.null.edges,
                    s.null.observed,
                    f"{s.split}: corrected accuracy against its null",
                ),
            )
        )
    return Section(f"Controls · {config.configuration}", blocks)


def _prior_rows(config: ConfigurationResult) -> list[list[str]]:
    rows = []
    for split in config.splits:
        sliced = split.tfidf.priors if split.tfidf is not None else []
        for where, priors in (("all", split.priors), ("TF-IDF-missed", sliced)):
            rows += [
                [
                    split.split,
                    where,
                    MISSING if p.n is None else str(p.n),
                    f"{p.radius:g}",
                    str(p.n_priors),
                    fmt(p.raw_accuracy, 3),
                    _acc(p.worst_accuracy),
                    _acc(p.median_accuracy),
                    f"{p.worst_gain:+.3f}",
                    _acc(p.worst_macro_f1),
                ]
                for p in priors
            ]
    return rows


def _signed(value: float | None) -> str:
    return MISSING if value is None else f"{value:+.3f}"


def _budget_rows(name: str, rows: list[BudgetResult], n_fit: int) -> list[list[str]]:
    return [
        [
            name,
            "all" if b.budget >= n_fit else str(b.budget),
            str(b.draws),
            _acc(b.raw_accuracy),
            _acc(b.mean, b.sd if b.draws > 1 else None),
            _acc(b.minimum),
            f"{b.n_positive}/{b.draws}",
            fmt(b.macro_f1, 3),
            f"{_signed(b.null_gap)} ({_signed(b.null_gap_min)})",
        ]
        for b in rows
    ]


def _budget_section(config: ConfigurationResult) -> Section | None:
    splits = [s for s in config.splits if s.budgets]
    if not splits:
        return None
    columns = [
        "split",
        "fit rows",
        "fits",
        "raw",
        "corrected mean ± sd",
        "worst",
        "beat raw",
        "macro-F1",
        "null gap (worst)",
    ]
    blocks: list[Block] = [
        TableBlock(
            "Corrected held-out accuracy by unlabelled fit budget",
            columns,
            [row for s in splits for row in _budget_rows(s.split, s.budgets, config.n_fit)],
            note=f"Each budget below the fit split's {config.n_fit} rows is fitted on "
            "deterministic subsamples; 'all' is one fit on the whole split. Macro-F1 and the "
            "null gap (accuracy − the count-preserving permutation null's mean) are means over "
            "the subsamples, the worst subsample's gap in parentheses.",
        )
    ]
    missed = [
        row
        for s in splits
        if s.tfidf is not None
        for row in _budget_rows(s.split, s.tfidf.budgets, config.n_fit)
    ]
    if missed:
        blocks.append(TableBlock("The same on the TF-IDF-missed slices", columns, missed))
    curves = {s.split: [(b.budget, b.mean, b.sd) for b in s.budgets] for s in splits}
    raw = {s.split: s.budgets[0].raw_accuracy for s in splits}
    blocks.append(
        FigureBlock(
            "Fit-budget curve",
            plot("budget_curves", curves, raw, "Held-out accuracy against the fit budget"),
        )
    )
    return Section(f"Fit budgets · {config.configuration}", blocks)


def _configurations_section(summary: RecoverSummary) -> Section:
    rows = []
    for c in summary.configurations:
        slot = [
            r.accuracy for s in c.splits for r in s.readouts if r.readout == "answer-slot probe"
        ]
        raw = [s.recovery.raw_accuracy for s in c.splits]
        corrected = [s.recovery.corrected_accuracy for s in c.splits]
        rows.append(
            [
                c.configuration,
                " / ".join(map(str, c.candidate_tokens)),
                f"{c.raw_collapse:.3f}",
                "yes" if c.collapsed else "no",
                fmt(sum(slot) / len(slot), 3) if slot else MISSING,
                _acc(sum(raw) / len(raw)),
                _acc(sum(corrected) / len(corrected)),
            ]
        )
    n = len(summary.configurations)
    return Section(
        "Prompt and verbalizer configurations",
        [
            TextBlock(
                f"{summary.n_collapsed} of {n} configuration(s) collapse: one label takes at "
                f"least {summary.collapse_threshold:.0%} of the raw string-score predictions on "
                "the unlabelled fit split."
            ),
            TableBlock(
                "Per configuration (accuracies: mean over held-out splits)",
                [
                    "configuration",
                    "candidate tokens",
                    "raw collapse",
                    "collapsed",
                    "answer-slot probe",
                    "raw",
                    "corrected",
                ],
                rows,
            ),
        ],
    )


def recover_sections(run: Run[RecoverRecord], summary: RecoverSummary) -> list[Section]:
    """The main configuration's tables in full, then every configuration side by side."""
    sections: list[Section] = []
    for config in summary.configurations:
        if not config.full:
            continue
        sections += [_gap_section(config), _recovery_section(config), _controls_section(config)]
        extras = (
            native_section(config),
            probe_section(config),
            _budget_section(config),
            depth_section(config),
            seed_section(config),
        )
        for extra in extras:
            if extra is not None:
                sections.append(extra)
    if summary.configurations:
        sections.append(_configurations_section(summary))
    leakage = leakage_section(summary.leakage)
    if leakage is not None:
        sections.append(leakage)
    return sections
