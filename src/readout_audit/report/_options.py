"""Report sections of the constrained-option audit: the ladder, the downstream forecast, items."""

from __future__ import annotations

from typing import TYPE_CHECKING

from readout_audit.log._run import Run
from readout_audit.report import _blocks as cell
from readout_audit.report._blocks import Block, FigureBlock, Section, TableBlock, plot
from readout_audit.report._common import browser, class_figure, forest, mass_figure

if TYPE_CHECKING:
    from readout_audit.audit._accuracy import RungAccuracy
    from readout_audit.audit._forecast import Downstream
    from readout_audit.audit._options import OptionsSummary


def options_sections(run: Run, summary: OptionsSummary) -> list[Section]:
    """The ladder per rung, the forecast against the reader, and the item browser."""
    rows = [
        [
            name,
            str(v.n),
            cell.fmt(v.median_mass),
            cell.fmt(v.min_mass),
            f"{v.below_floor}/{v.n_mass_measured}",
            cell.fmt(v.letter_rate, 2),
            cell.fmt(v.option_argmax_rate, 2),
            cell.counts(v.continuation_classes),
        ]
        for name, v in summary.variants.items()
    ]
    columns = ["variant", "n", "median mass", "min mass", "<0.5", "letter rate"]
    columns += ["option argmax", "continuation opens with"]
    ladder = Section(
        "Prompt ladder",
        [
            TableBlock(
                f"Per variant ({summary.n_items} items)",
                columns,
                rows,
                "letter rate: share of items whose argmax is an answer letter of the quoted item; "
                "option argmax: share whose argmax is a declared option's first token.",
            ),
            mass_figure(run.records, lambda r: r.variant, "variant"),
            class_figure({k: v.argmax_classes for k, v in summary.variants.items()}, "variant"),
        ],
    )
    accuracy = [
        _accuracy_row(name, v.accuracy)
        for name, v in summary.variants.items()
        if v.accuracy is not None
    ]
    if accuracy:
        ladder.blocks.insert(
            1,
            TableBlock(
                "Accuracy against the gold answers (95% cluster-bootstrap intervals)",
                ACCURACY_COLUMNS,
                accuracy,
                "by log-likelihood: the option with the highest full-option log-likelihood (as "
                "lm-evaluation-harness's acc); by option mass: the option whose first token is "
                "most probable; unscored: items whose options merge with the context.",
            ),
        )
    sections = [ladder]
    if summary.downstream is not None:
        sections.append(downstream_section(summary.downstream))
    production = [r for r in run.records if r.variant == "production"] or run.records
    sections.append(browser(production))
    return sections


ACCURACY_COLUMNS = ["variant", "n", "by log-likelihood", "95% interval", "by option mass"]
ACCURACY_COLUMNS += ["95% interval", "unscored"]


def _accuracy_row(name: str, accuracy: RungAccuracy) -> list[str]:
    by_loglik, by_mass = accuracy.loglik, accuracy.option_mass
    return [
        name,
        str(by_loglik.n),
        cell.estimate(by_loglik, 3),
        cell.interval(by_loglik, 3),
        cell.estimate(by_mass, 3),
        cell.interval(by_mass, 3),
        str(accuracy.n_unscored),
    ]


def downstream_section(down: Downstream) -> Section:
    """Forecast AUC and Brier at both positions with intervals, ROC, reliability, differences."""
    rows = [
        [metric.upper(), name, cell.estimate(v), cell.interval(v)]
        for metric, values in (("auc", down.auc), ("brier", down.brier))
        for name, v in (values or {}).items()
    ]
    if down.auc is None:
        rows.insert(0, ["AUC", "–", "undefined (one class)", "–"])
    blocks: list[Block] = [
        TableBlock(
            f"Forecast against the note-only reader ({down.n} items, {down.n_reader_correct} "
            "read correctly)",
            ["metric", "position", "estimate", "95% interval"],
            rows,
            "Brier of a constant 0.5 forecast: 0.25.",
        )
    ]
    forecasts = down.forecasts
    if 0 < sum(forecasts.labels) < len(forecasts.labels):
        blocks.append(
            FigureBlock(
                "ROC", plot("roc_curves", forecasts.scores, forecasts.labels, "Forecast ROC")
            )
        )
    blocks.append(
        FigureBlock(
            "Reliability",
            plot("reliability", forecasts.scores, forecasts.labels, "Forecast reliability"),
        )
    )
    differences = {
        f"{metric.upper()} {k}": v
        for metric, values in (("auc", down.auc), ("brier", down.brier))
        for k, v in (values or {}).items()
        if " - " in k
    }
    if differences:
        blocks.append(forest(differences, "Paired differences"))
    return Section("Downstream", blocks)
