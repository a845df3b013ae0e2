"""Report sections of a recovery run's audits: per-depth strata and the multi-seed splits."""

from __future__ import annotations

from readout_audit.recover._summary import (
    ConfigurationResult,
    LeakageResult,
    ProbeSizeRow,
    SeedAggregate,
    SplitResult,
)
from readout_audit.report import MISSING, Block, Section, TableBlock


def _mean_sd(pair: tuple[float, float] | None) -> str:
    return MISSING if pair is None else f"{pair[0]:.3f} ± {pair[1]:.3f}"


def _value(value: float | None, sign: str = "") -> str:
    return MISSING if value is None else f"{value:{sign}.3f}"


def depth_section(config: ConfigurationResult) -> Section | None:
    """Every readout's held-out accuracy per reasoning depth, one table per split."""
    blocks: list[Block] = []
    for split in config.splits:
        if not split.depths:
            continue
        readouts = list(dict.fromkeys(r for d in split.depths for r in d.accuracies))
        blocks.append(
            TableBlock(
                f"{split.split}: accuracy by depth",
                ["readout", *(f"depth {d.depth} (n={d.n})" for d in split.depths)],
                [
                    [name, *(_value(d.accuracies.get(name)) for d in split.depths)]
                    for name in readouts
                ],
            )
        )
    if not blocks:
        return None
    return Section(f"Per-depth strata · {config.configuration}", blocks)


def _seed_row(a: SeedAggregate) -> list[str]:
    return [
        a.split,
        ", ".join(map(str, a.seeds)),
        _mean_sd(a.raw),
        _mean_sd(a.corrected),
        f"{a.min_gain:+.3f}",
        f"{a.null_gap:+.3f}",
        f"{a.macro_f1:.3f}",
    ]


def _slice_row(a: SeedAggregate) -> list[str]:
    return [
        a.split,
        _mean_sd(a.tfidf_n),
        _value(a.tfidf_raw),
        _mean_sd(a.tfidf_corrected),
        _value(a.tfidf_min_gain, "+"),
        f"{_value(a.tfidf_null_accuracy)} / {_value(a.tfidf_null_gap, '+')}",
        _value(a.tfidf_macro_f1),
        _value(a.tfidf_p_max),
        f"{_value(a.tfidf_worst_prior)} / {_value(a.tfidf_median_prior)}",
        _value(a.tfidf_worst_prior_gain, "+"),
    ]


def seed_section(config: ConfigurationResult) -> Section | None:
    """Held-out splits regenerated at other generator seeds, aggregated by name."""
    if not config.seed_aggregates:
        return None
    blocks: list[Block] = [
        TableBlock(
            "Splits regenerated at other generator seeds (mean ± sd over the seeds)",
            ["split", "seeds", "raw", "corrected", "min Δ", "observed − null", "macro-F1"],
            [_seed_row(a) for a in config.seed_aggregates],
            note="The fit and training splits are the run's own; min Δ is the worst seed's "
            "corrected − raw accuracy; the null gap and macro-F1 are means over the seeds.",
        )
    ]
    sliced = [a for a in config.seed_aggregates if a.tfidf_n is not None]
    if sliced:
        blocks.append(
            TableBlock(
                "The same on each seed's TF-IDF-missed slice",
                [
                    "split",
                    "n",
                    "raw",
                    "corrected",
                    "min Δ",
                    "null / observed − null",
                    "macro-F1",
                    "largest p",
                    "worst / median over priors",
                    "worst prior Δ",
                ],
                [_slice_row(a) for a in sliced],
                note="Priors: the 61 within 0.10 of uniform; worst over the seeds, median "
                "averaged over them.",
            )
        )
    return Section(f"Generator seeds · {config.configuration}", blocks)


def leakage_section(rows: list[LeakageResult]) -> Section | None:
    """What shallow features tell of the labels: one classifier per feature group and split."""
    if not rows:
        return None
    splits = list(rows[0].n)
    return Section(
        "Surface leakage",
        [
            TableBlock(
                "Held-out accuracy of classifiers that read only surface features",
                ["features", *(f"{name} (n={rows[0].n[name]})" for name in splits)],
                [[r.group, *(_value(r.accuracies.get(name)) for name in splits)] for r in rows],
                note="Trained on the labelled probe-training split. Text groups: TF-IDF of word "
                "uni- and bigrams with logistic regression (query only: the statement; facts "
                "only: the context; prop-redacted: the queried property blanked; template only: "
                "every generated name, category and property blanked). Metadata groups: the "
                "generator's fields one-hot; 'all' adds the polarity that decides the label. "
                "Where these are high, only the TF-IDF-missed slice and the permutation null "
                "tell recovery from shortcuts.",
            )
        ],
    )


def _synthesis(split: SplitResult) -> list[str]:
    """Table 12's row: best answer-slot probe, the selected native readout, the string score."""
    found = {r.readout: r.accuracy for r in split.readouts}
    probes = [
        a for name, a in found.items() if name.startswith("answer-slot probe") and "," not in name
    ]
    selected = next(r for r in split.native if r.selected)
    peak = max(probes) if probes else None
    final = found.get("answer-slot probe")
    logits = found.get("label logits")
    return [
        split.split,
        _value(peak),
        f"{selected.accuracy:.3f} ({selected.position}, layer {selected.layer})",
        _value(found.get("full string")),
        _value(None if peak is None else peak - selected.accuracy, "+"),
        _value(None if final is None or logits is None else final - logits, "+"),
    ]


def native_section(config: ConfigurationResult) -> Section | None:
    """The output layer read at every stored position and layer, beside the probes."""
    splits = [s for s in config.splits if s.native]
    if not splits:
        return None
    cells = [(r.position, r.layer) for r in splits[0].native]
    blocks: list[Block] = [
        TableBlock(
            "Output layer at every stored position and layer (held-out accuracy)",
            ["position, layer", *(s.split for s in splits)],
            [
                [
                    f"{position}, layer {layer}",
                    *(
                        _value(r.accuracy) + (" *" if r.selected else "")
                        for s in splits
                        for r in s.native
                        if (r.position, r.layer) == (position, layer)
                    ),
                ]
                for position, layer in cells
            ],
            note="Earlier layers go through the model's final norm before the output layer "
            "(a logit lens); * marks the position and layer that read best on the labelled "
            "training split.",
        )
    ]
    if any(r.selected for r in splits[0].native):
        blocks.append(
            TableBlock(
                "Best native readout against the probes",
                [
                    "split",
                    "best answer-slot probe",
                    "best native",
                    "full string",
                    "Δ peak",
                    "Δ final",
                ],
                [_synthesis(s) for s in splits],
                note="Δ peak: the best answer-slot probe over the stored layers minus the "
                "selected native readout; Δ final: the last layer's answer-slot probe minus "
                "the label logits at the same state.",
            )
        )
    return Section(f"Native readouts · {config.configuration}", blocks)


def _over(accuracy: float | None, baseline: float) -> str:
    return MISSING if accuracy is None else f"{accuracy:.3f} ({accuracy - baseline:+.3f})"


def _target_rows(config: ConfigurationResult) -> list[list[str]]:
    """Table 14: the answer, the shuffled control and every auxiliary target, per split."""
    majority = {s.split: max(s.gold_histogram) / s.n for s in config.splits}
    found = {s.split: {r.readout: r.accuracy for r in s.readouts} for s in config.splits}
    rows = [
        [
            target,
            str(len(config.candidates)),
            *(_over(found[s.split].get(readout), majority[s.split]) for s in config.splits),
        ]
        for target, readout in (
            ("answer", "answer-slot probe"),
            ("answer, shuffled labels", "answer-slot probe, shuffled labels"),
        )
    ]
    rows += [
        [
            a.target,
            str(a.classes),
            *(_over(a.accuracy.get(s.split), a.baseline.get(s.split, 0.0)) for s in config.splits),
        ]
        for a in config.auxiliary
    ]
    return rows


def _size_row(row: ProbeSizeRow, names: list[str]) -> list[str]:
    """Table 17's row: the probe on every training row named as such, not as a size."""
    if row.sd is None:
        cells = [f"{row.accuracy[n]:.3f} ({row.shuffled[n]:.3f})" for n in names]
        return [f"all {row.size} rows (one fit)", *cells]
    cells = [f"{row.accuracy[n]:.3f} ± {row.sd[n]:.3f} ({row.shuffled[n]:.3f})" for n in names]
    return [str(row.size), *cells]


def probe_section(config: ConfigurationResult) -> Section | None:
    """The answer-slot probe's audits: training size, other targets, direction stability."""
    if not config.probe_sizes:
        return None
    names = [s.split for s in config.splits]
    blocks: list[Block] = [
        TableBlock(
            "Answer-slot probe (last layer) by training rows: mean ± sd over seeds (shuffled)",
            ["training rows", *names],
            [_size_row(row, names) for row in config.probe_sizes],
            note="Each size below the training split's is a seeded subsample of its rows; "
            '"all N rows" is the one probe on every training row, fitted once (nothing in it '
            "is seeded), so it has no sd. In parentheses the shuffled-label control fitted on "
            "as many rows (on every row: its labels permuted once per seed).",
        ),
        TableBlock(
            "Probe targets (last-layer answer-slot state): accuracy (over the majority rate)",
            ["target", "classes", *names],
            _target_rows(config),
            note="depth: the item's reasoning depth; query: the queried property; "
            "TF-IDF-easy: whether the bag-of-words classifier gets the item right (out of "
            "fold on the training split). A value the training split never holds counts as "
            "wrong.",
        ),
    ]
    if config.directions:
        others = list(dict.fromkeys(n for d in config.directions for n in d.transfer))
        blocks.append(
            TableBlock(
                "Probe direction stability: a probe trained on a held-out split",
                [
                    "layer",
                    "trained on",
                    "cosine with the training probe",
                    *(f"accuracy on {n}" for n in others),
                    *(f"agreement on {n}" for n in others),
                ],
                [
                    [
                        str(d.layer),
                        d.source,
                        f"{d.cosine:+.3f}",
                        *(_value(d.transfer.get(n)) for n in others),
                        *(_value(d.agreement.get(n)) for n in others),
                    ]
                    for d in config.directions
                ],
                note="Cosine between the two probes' weights on the raw features (classes "
                "flattened); agreement: how often the two predict the same label.",
            )
        )
    return Section(f"Probe audits · {config.configuration}", blocks)
