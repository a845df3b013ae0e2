"""Report sections of the constrained-option audit: the ladder, the downstream forecast, items."""

from __future__ import annotations

from typing import TYPE_CHECKING

from readout_audit import report as cell
from readout_audit.log import Interval, Run
from readout_audit.options._downstream import READOUTS, Downstream
from readout_audit.options._record import OptionsRecord
from readout_audit.report import (
    Block,
    FigureBlock,
    Section,
    TableBlock,
    browser,
    class_figure,
    forest,
    mass_figure,
    plot,
)

if TYPE_CHECKING:
    from readout_audit.options._accuracy import RungAccuracy
    from readout_audit.options._audit import OptionsSummary


CONTINUATION_COLUMNS = {
    "answers_item": "answers the item",
    "gives_option": "gives an option",
    "recites_options": "recites the options",
    "recites_prompt": "recites question or instruction",
    "prose": "prose",
    "other": "other",
}
"""The continuation classes in the paper's order (Table 16), with their column names."""


def continuation_table(summary: OptionsSummary) -> TableBlock:
    """Table 16 per rung: what the greedy continuation does first, and the three flags."""
    rows = [
        [
            name,
            str(v.n),
            *(str(v.continuation_classes.get(c, 0)) for c in CONTINUATION_COLUMNS),
            str(v.n_answer_then_option),
            str(v.n_option_anywhere),
            str(v.n_letter_anywhere),
        ]
        for name, v in summary.variants.items()
    ]
    columns = ["variant", "n", *CONTINUATION_COLUMNS.values()]
    columns += ["answer, then option", "option anywhere", "letter anywhere"]
    return TableBlock(
        "What the greedy continuation writes first",
        columns,
        rows,
        "The class columns partition the items by the opening (first matching rule); the last "
        "three are flags that overlap them: the opening answers the item and a declared option "
        "follows; a declared option anywhere outside a recited option list; an item letter used "
        "as an answer anywhere.",
        wrap=tuple(columns[2:]),
    )


def options_sections(run: Run[OptionsRecord], summary: OptionsSummary) -> list[Section]:
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
            f"{v.n_argmax_off_options}/{v.n - v.n_boundary_not_preserved}",
        ]
        for name, v in summary.variants.items()
    ]
    columns = ["variant", "n", "median mass", "min mass", "<0.5", "letter pull"]
    columns += ["option argmax", "argmax off the options"]
    ladder = Section(
        "Prompt ladder",
        [
            TableBlock(
                f"Per variant ({summary.n_items} items)",
                columns,
                rows,
                "letter pull: share of items whose argmax is an answer letter of the quoted item "
                "that the continuation uses as one (the article of 'A clever question!' is "
                "prose); option argmax: share whose argmax is a declared option's first token; "
                "argmax off the options: items where it is not, of those whose options keep "
                "their boundary.",
            ),
            continuation_table(summary),
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
    sections.append(browser(run.records))
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


def _metric_cells(auc: Interval | None, brier: Interval | None, signed: bool) -> list[str]:
    """AUC and Brier cells: estimate and interval of each, signed for differences."""

    def shown(v: Interval | None) -> str:
        return f"{v.estimate:+.4f}" if signed and v is not None else cell.estimate(v)

    return [
        shown(auc),
        cell.interval(auc, signed=signed),
        shown(brier),
        cell.interval(brier, signed=signed),
    ]


def downstream_section(down: Downstream) -> Section:
    """Seed 000's forecast readouts (a)–(f): AUC and Brier, constant baselines, differences."""
    auc = down.auc or {}
    rows = [
        [READOUTS[name], *_metric_cells(auc.get(name), down.brier[name], False)]
        for name in down.readouts
    ]
    fitted = f"fitted constant {cell.fmt(down.base_rate, 4)}"
    for label, brier in (
        ("constant 0.5", down.brier_constant_half),
        (fitted, down.brier_fitted_constant),
    ):
        rows.append([label, cell.MISSING, "", cell.fmt(brier), ""])
    note = "AUC undefined: the reader is right on every row or on none. " if not auc else ""
    note += "The fitted constant is the reader's accuracy on these rows (a descriptive baseline)."
    if down.unscored:
        note += f" Rungs without a forecast on some rows, left out: {cell.counts(down.unscored)}."
    differences = [
        [
            READOUTS[r],
            READOUTS[x],
            *_metric_cells(auc.get(f"{x} - {r}"), down.brier[f"{r} - {x}"], True),
        ]
        for r, x in down.comparisons
    ]
    columns = ["reference r", "readout x", "AUC(x) − AUC(r)", "95% interval"]
    blocks: list[Block] = [
        TableBlock(
            f"Forecast against the note-only reader ({down.n} items, {down.n_reader_correct} "
            "read correctly; 95% paired cluster-bootstrap intervals)",
            ["readout", "AUC", "95% interval", "Brier", "95% interval"],
            rows,
            note,
        ),
        TableBlock(
            "Paired differences (positive favours the readout)",
            [*columns, "Brier(r) − Brier(x)", "95% interval"],
            differences,
        ),
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
    shown = {f"AUC {k}": v for k, v in auc.items() if " - " in k}
    shown |= {f"Brier {k}": v for k, v in down.brier.items() if " - " in k}
    if shown:
        blocks.append(forest(shown, "Paired differences"))
    return Section("Downstream", blocks)
