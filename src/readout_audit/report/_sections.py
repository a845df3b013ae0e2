"""Report sections for each audit kind, built from a run directory alone (no model).

``SECTIONS`` maps a run's kind to the function that builds its sections; a new audit kind adds
one entry here and nothing else changes.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from readout_audit.audit._summary import MASS_FLOOR
from readout_audit.log._record import PTrueRecord, ScoreRecord, YesNoRecord
from readout_audit.log._run import Run
from readout_audit.report import _plots
from readout_audit.report._blocks import (
    Block,
    ChecksBlock,
    FigureBlock,
    ItemsBlock,
    Section,
    TableBlock,
    TextBlock,
    fmt,
    interval,
    worst_items,
)


def manifest_section(run: Run) -> Section:
    """Model, file hashes, versions, seeds and the commands that wrote the run."""
    m = run.manifest
    model_rows = [
        ["spec", str(m.model.get("spec"))],
        ["name", str(m.model.get("name"))],
        ["dtype", str(m.model.get("dtype"))],
        ["context window", str(m.model.get("context_window"))],
        ["tokenizer", str(m.model.get("tokenizer"))],
        ["chat template sha256", str(m.model.get("chat_template_sha256"))],
    ]
    files = [[f["path"], f["sha256"], str(f["size"])] for f in m.model.get("files", [])]
    commands = [[" ".join(i.command), i.started, i.finished or "unfinished"] for i in m.invocations]
    config = [[k, str(v)] for k, v in sorted(m.config.items())]
    versions = [[k, v] for k, v in sorted(m.versions.items())] + [["platform", m.platform]]
    return Section(
        "Manifest",
        [
            TableBlock("Model", ["field", "value"], model_rows),
            TableBlock("Model files", ["file", "sha256", "bytes"], files),
            TableBlock("Commands", ["command", "started", "finished"], commands),
            TableBlock("Configuration", ["key", "value"], config),
            TableBlock("Versions", ["package", "version"], versions),
        ],
    )


def _group_masses(
    records: Sequence[ScoreRecord], key: Callable[[Any], str]
) -> dict[str, list[float]]:
    groups: dict[str, list[float]] = {}
    for r in records:
        groups.setdefault(key(r), [])
        if r.option_mass is not None:
            groups[key(r)].append(r.option_mass)
    return groups


def _mass_figure(records: Sequence[ScoreRecord], key: Callable[[Any], str], what: str) -> Block:
    groups = _group_masses(records, key)
    if not any(groups.values()):
        return TextBlock(f"No option mass was measurable for any {what}.")
    return FigureBlock(
        f"Option mass by {what}",
        _plots.mass_distribution(groups, f"Option mass per {what}"),
        f"Each point is one item; the dashed line is the {MASS_FLOOR} floor below which the "
        "declared options do not hold the scored position.",
    )


def _argmax_classes(
    records: Sequence[ScoreRecord], key: Callable[[Any], str]
) -> dict[str, Counter[str]]:
    from readout_audit.readout._classes import token_class

    counts: dict[str, Counter[str]] = {}
    for r in records:
        cls = getattr(r, "argmax_class", None) or token_class(
            r.argmax_id, r.argmax_token, r.option_first_ids
        )
        counts.setdefault(key(r), Counter())[cls] += 1
    return counts


def _class_figure(records: Sequence[ScoreRecord], key: Callable[[Any], str], what: str) -> Block:
    return FigureBlock(
        "Unrestricted argmax classes",
        _plots.class_bars(_argmax_classes(records, key), f"Argmax token class per {what}"),
        "What the most probable next token is: a declared option's first token, an answer "
        "letter of a quoted item, whitespace, a digit, prose or other.",
    )


def _browser(records: Sequence[ScoreRecord]) -> Block:
    return ItemsBlock("Items with the least option mass", worst_items(list(records)))


def score_sections(run: Run, summary: dict[str, Any]) -> list[Section]:
    """Generic scoring: per-variant mass, boundary, argmax and accuracy."""
    rows = []
    for name, v in summary.get("variants", {}).items():
        mass = v["option_mass"]
        rows.append(
            [
                name,
                str(v["n"]),
                fmt(mass.get("median")),
                fmt(mass.get("min")),
                f"{mass.get('n_below_floor', 0)}/{mass['n_measured']}",
                fmt(v["argmax_is_option_rate"], 2),
                str(v["n_boundary_not_preserved"]),
                str(v["n_shared_first_tokens"]),
                fmt(v["accuracy"], 3),
            ]
        )
    columns = ["variant", "n", "median mass", "min mass", "<0.5", "argmax is option"]
    columns += ["boundary broken", "shared first tokens", "accuracy"]
    return [
        Section(
            "Scored positions",
            [
                TableBlock("Per variant", columns, rows),
                _mass_figure(run.records, lambda r: r.variant, "variant"),
                _class_figure(run.records, lambda r: r.variant, "variant"),
            ],
        ),
        Section("Item browser", [_browser(run.records)]),
    ]


def _forest(differences: dict[str, Any], title: str) -> Block:
    rows = {k: (v["estimate"], v["low"], v["high"]) for k, v in differences.items()}
    return FigureBlock(
        title, _plots.intervals(rows, title, zero=True), "95% paired bootstrap intervals."
    )


def options_sections(run: Run, summary: dict[str, Any]) -> list[Section]:
    """The constrained-option audit: the ladder, checks, downstream forecast and items."""
    rows = []
    for name, v in summary.get("variants", {}).items():
        rows.append(
            [
                name,
                str(v["n"]),
                fmt(v["median_mass"]),
                fmt(v["min_mass"]),
                f"{v['below_floor']}/{v['n_mass_measured']}",
                fmt(v["letter_rate"], 2),
                fmt(v["option_argmax_rate"], 2),
                ", ".join(f"{k} {n}" for k, n in sorted(v["continuation_classes"].items())),
            ]
        )
    columns = ["variant", "n", "median mass", "min mass", "<0.5", "letter rate"]
    columns += ["option argmax", "continuation opens with"]
    ladder = Section(
        "Prompt ladder",
        [
            TableBlock("Per variant", columns, rows),
            _mass_figure(run.records, lambda r: r.variant, "variant"),
            _class_figure(run.records, lambda r: r.variant, "variant"),
        ],
    )
    sections = [ladder]
    down = summary.get("downstream")
    if down:
        sections.append(_downstream_section(run, down))
    production = [r for r in run.records if r.variant == "production"] or run.records
    sections.append(Section("Item browser", [_browser(production)]))
    return sections


def _downstream_section(run: Run, down: dict[str, Any]) -> Section:
    by = {(r.item_id, r.variant): r for r in run.records}
    ids = sorted(
        {
            i
            for (i, v), r in by.items()
            if v == "production"
            and (i, "stem") in by
            and isinstance(r.target, bool)
            and r.expected_value is not None
            and by[(i, "stem")].expected_value is not None
        }
    )
    y = [bool(by[(i, "production")].target) for i in ids]
    probs = {
        v: [float(by[(i, v)].expected_value or 0) / 100 for i in ids]
        for v in ("production", "stem")
    }
    rows = []
    for metric in ("auc", "brier"):
        for name, v in (down.get(metric) or {}).items():
            rows.append([metric.upper(), name, fmt(v["estimate"]), interval([v["low"], v["high"]])])
    blocks: list[Block] = [
        TableBlock(
            f"Forecast against the note-only reader ({down['n']} items)",
            ["metric", "position", "estimate", "95% interval"],
            rows,
            "Brier of a constant 0.5 forecast: 0.25.",
        )
    ]
    if 0 < sum(y) < len(y):
        blocks.append(FigureBlock("ROC", _plots.roc_curves(probs, y, "Forecast ROC")))
    blocks.append(FigureBlock("Reliability", _plots.reliability(probs, y, "Forecast reliability")))
    differences = {
        f"{m.upper()} {k}": v
        for m in ("auc", "brier")
        for k, v in (down.get(m) or {}).items()
        if " - " in k
    }
    if differences:
        blocks.append(_forest(differences, "Paired differences"))
    return Section("Downstream", blocks)


def _ptrue_probability(record: PTrueRecord) -> float | None:
    if record.confidence is None:
        return None
    if record.readout in ("library", "deleted"):
        return math.exp(record.confidence)
    return record.confidence


def ptrue_sections(run: Run, summary: dict[str, Any]) -> list[Section]:
    """The P(True) family: AUROC, PRR, mass, ROC curves, reliability, paired differences."""
    typed = [r for r in run.records if isinstance(r, PTrueRecord)]
    rows = [
        [
            name,
            fmt(r["auroc"], 3),
            interval(r["auroc_ci"], 3),
            fmt(r["prr"], 3),
            fmt(r["median_mass"]),
            ", ".join(f"{k} {n}" for k, n in sorted(r["argmax_classes"].items())),
        ]
        for name, r in summary.get("readouts", {}).items()
    ]
    accuracy = fmt(summary.get("accuracy"), 3)
    blocks: list[Block] = [
        TableBlock(
            f"Readouts ({summary.get('n_items', 0)} items, accuracy {accuracy})",
            ["readout", "AUROC", "95% interval", "PRR", "median mass", "argmax classes"],
            rows,
        ),
        _mass_figure(typed, lambda r: r.readout, "readout"),
        _class_figure(typed, lambda r: r.readout, "readout"),
    ]
    names = list(summary.get("readouts", {}))
    by = {n: {r.item_id: r for r in typed if r.readout == n} for n in names}
    shared = (
        [
            i
            for i in by.get(names[0], {})
            if all(i in by[n] and by[n][i].confidence is not None for n in names)
        ]
        if names
        else []
    )
    y = [by[names[0]][i].correct for i in shared] if shared else []
    if shared and 0 < sum(y) < len(y):
        scores = {n: [float(by[n][i].confidence or 0) for i in shared] for n in names}
        probs = {n: [_ptrue_probability(by[n][i]) or 0.0 for i in shared] for n in names}
        blocks.append(FigureBlock("ROC", _plots.roc_curves(scores, y, "P(True) ROC")))
        blocks.append(
            FigureBlock(
                "Reliability",
                _plots.reliability(probs, y, "P(True) reliability"),
                "Library and Deleted read log P(True); it is shown here as a probability.",
            )
        )
    if summary.get("differences"):
        blocks.append(_forest(summary["differences"], "AUROC differences against Library"))
    return [Section("P(True) readouts", blocks), Section("Item browser", [_browser(typed)])]


def yesno_sections(run: Run, summary: dict[str, Any]) -> list[Section]:
    """The yes/no audit: sets, first tokens, metrics, confusions, transitions, closed form."""
    typed = [r for r in run.records if isinstance(r, YesNoRecord)]
    sets = [
        [
            ", ".join(f"{e['id']} {e['form']!r}" for e in s["yes"]),
            ", ".join(f"{e['id']} {e['form']!r}" for e in s["no"]),
            ", ".join(repr(f) for f in s["multi_token_forms"]) or "none",
            str(s["n_items"]),
        ]
        for s in summary.get("token_sets", [])
    ]
    in_sets = {e["id"] for s in summary.get("token_sets", []) for e in (*s["yes"], *s["no"])}
    strings = summary.get("first_token_strings", {})
    first = [
        [t, repr(strings.get(t, "")), str(c), "yes" if int(t) in in_sets else "NO"]
        for t, c in summary.get("emitted_first_tokens", {}).items()
    ]
    tokens = Section(
        "Token sets and first generated tokens",
        [
            TableBlock(
                "Tokenizer-derived sets", ["yes ids", "no ids", "multi-token forms", "items"], sets
            ),
            TableBlock(
                "First generated tokens", ["token id", "token", "count", "in the sets"], first
            ),
        ],
    )
    splits = summary.get("splits", {})
    groups = {"all": summary, **splits} if len(splits) > 1 else splits
    metric_rows = []
    forest: dict[str, tuple[float, float, float]] = {}
    for split, group in groups.items():
        for name, r in group["readouts"].items():
            if "f1" not in r:
                continue
            metric_rows.append(
                [
                    split,
                    name,
                    str(r["n"]),
                    fmt(r["f1"]),
                    interval(r["f1_ci"]),
                    fmt(r["precision"]),
                    fmt(r["recall"]),
                    fmt(r["yes_rate"], 3),
                    fmt(r["accuracy"], 3),
                ]
            )
            forest[f"{split} · {name}"] = (r["f1"], *r["f1_ci"])
    metrics: list[Block] = [
        TableBlock(
            "Readouts (95% cluster-bootstrap intervals)",
            [
                "split",
                "readout",
                "n",
                "F1",
                "95% interval",
                "precision",
                "recall",
                "yes-rate",
                "accuracy",
            ],
            metric_rows,
        )
    ]
    if forest:
        metrics.append(
            FigureBlock(
                "F1 by readout", _plots.intervals(forest, "F1 with 95% intervals", zero=False)
            )
        )
    margins = _yesno_margins(typed)
    labels = [r.label == "yes" for r in typed]
    if margins and 0 < sum(labels) < len(labels):
        metrics.append(
            FigureBlock(
                "ROC of the logit margins",
                _plots.roc_curves(margins, labels, "max ℓ over yes − max ℓ over no"),
                "Each logit readout's margin as a score against the label; the decision is "
                "its sign.",
            )
        )
    for name, r in summary.get("readouts", {}).items():
        if "tp" in r:
            metrics.append(
                TableBlock(
                    f"Confusion matrix: {name}",
                    ["", "label yes", "label no"],
                    [
                        ["read yes", str(r["tp"]), str(r["fp"])],
                        ["read no", str(r["fn"]), str(r["tn"])],
                    ],
                )
            )
    transitions = [
        [pair, label, *(str(cells[k]) for k in ("yy", "yn", "ny", "nn"))]
        for pair, table in summary.get("transitions", {}).items()
        for label, cells in table.items()
    ]
    closed = [
        [
            split,
            name,
            str(c["T"]),
            str(c["G"]),
            fmt(c["rho_n"], 3),
            fmt(c["phi"], 3),
            fmt(c["kappa_p"], 3),
            fmt(c["kappa_n"], 3),
            fmt(c["f1_closed_form"]),
            fmt(c["f1_observed"]),
        ]
        for split, group in splits.items()
        for name, c in group.get("closed_form", {}).items()
        if c.get("n")
    ]
    paired = Section(
        "Transitions and the closed form",
        [
            TableBlock(
                "Paired transitions (first readout's answer, then the second's)",
                ["readouts", "label", "yy", "yn", "ny", "nn"],
                transitions,
            ),
            TableBlock(
                "Closed-form F1 from the transitions off the dynamic readout",
                [
                    "split",
                    "readout",
                    "T",
                    "G",
                    "ρ_N",
                    "φ",
                    "κ_P",
                    "κ_N",
                    "F1 closed form",
                    "F1 observed",
                ],
                closed,
            ),
        ],
    )
    return [
        tokens,
        Section("Metrics", metrics),
        paired,
        Section("Forms' mass", [_mass_figure(typed, lambda r: r.split, "split")]),
        Section("Item browser", [_browser(typed)]),
    ]


def _yesno_margins(records: Sequence[YesNoRecord]) -> dict[str, list[float]]:
    """Each logit readout's margin max ℓ(Y) − max ℓ(N) per record, where every record has one."""
    sets: dict[str, Callable[[YesNoRecord], tuple[Sequence[int], Sequence[int]]]] = {
        "legacy_pair": lambda r: (
            ([r.legacy_pair[0]], [r.legacy_pair[1]]) if r.legacy_pair else ([], [])
        ),
        "legacy_set": lambda r: (r.legacy_set[0], r.legacy_set[1]) if r.legacy_set else ([], []),
        "dynamic": lambda r: (r.yes_ids, r.no_ids),
    }
    margins: dict[str, list[float]] = {}
    for name, ids in sets.items():
        values = []
        for r in records:
            yes, no = ids(r)
            best_yes = [v for i in yes if (v := r.set_logprobs.get(i)) is not None]
            best_no = [v for i in no if (v := r.set_logprobs.get(i)) is not None]
            if not best_yes or not best_no:
                break
            values.append(max(best_yes) - max(best_no))
        else:
            if records:
                margins[name] = values
    return margins


SectionBuilder = Callable[[Run, dict[str, Any]], list[Section]]
SECTIONS: dict[str, SectionBuilder] = {
    "score": score_sections,
    "options": options_sections,
    "ptrue": ptrue_sections,
    "yesno": yesno_sections,
}
"""The report sections of each run kind (the manifest's ``kind``)."""


def checks_section(summary: dict[str, Any]) -> Section | None:
    """The run's checks, if its kind has any."""
    checks = summary.get("checks")
    return Section("Checks", [ChecksBlock(checks)]) if checks else None
