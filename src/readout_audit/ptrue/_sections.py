"""Report sections of the P(True) audit: AUROC, PRR, mass, ROC, reliability, differences."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from readout_audit.log import Run
from readout_audit.ptrue._record import PTrueRecord
from readout_audit.report import (
    Block,
    FigureBlock,
    Section,
    TableBlock,
    browser,
    class_figure,
    counts,
    estimate,
    fmt,
    forest,
    interval,
    mass_figure,
    plot,
)

if TYPE_CHECKING:
    from readout_audit.ptrue._audit import PTrueSummary

READOUT_COLUMNS = ["readout", "AUROC", "95% interval", "PRR", "95% interval", "median mass"]
READOUT_COLUMNS.append("argmax classes")
LOG_SCORED = ("library", "plain", "deleted")
"""Readouts whose confidence is log P(True) rather than a probability."""


def ptrue_sections(run: Run[PTrueRecord], summary: PTrueSummary) -> list[Section]:
    """Each readout's AUROC, PRR, declared-set mass and argmax classes, with curves."""
    typed = run.records
    rows = [
        [
            name,
            estimate(r.auroc, 3),
            interval(r.auroc, 3),
            estimate(r.prr, 3),
            interval(r.prr, 3),
            fmt(r.median_mass),
            counts(r.argmax_classes),
        ]
        for name, r in summary.readouts.items()
    ]
    blocks: list[Block] = [
        TableBlock(
            f"Readouts ({summary.n_items} items, accuracy {fmt(summary.accuracy, 3)})",
            READOUT_COLUMNS,
            rows,
            "AUROC: how well the confidence ranks correct answers above wrong ones (0.5 is "
            "chance); PRR: prediction-rejection ratio at maximum rejection 0.5 (0 is random "
            "rejection, 1 the oracle); median mass: share of the next-token probability the "
            "readout's two labels hold.",
        ),
        mass_figure(typed, lambda r: r.readout, "readout"),
        class_figure({k: v.argmax_classes for k, v in summary.readouts.items()}, "readout"),
    ]
    joined = summary.confidences
    if joined is not None and 0 < sum(joined.labels) < len(joined.labels):
        probabilities = {
            name: [math.exp(v) if name in LOG_SCORED else v for v in values]
            for name, values in joined.scores.items()
        }
        blocks.append(
            FigureBlock("ROC", plot("roc_curves", joined.scores, joined.labels, "P(True) ROC"))
        )
        blocks.append(
            FigureBlock(
                "Reliability",
                plot("reliability", probabilities, joined.labels, "P(True) reliability"),
                "Library and Deleted read log P(True); it is shown here as a probability.",
            )
        )
    for name, found in (("AUROC", summary.differences), ("PRR", summary.prr_differences)):
        if found:
            blocks.append(
                TableBlock(
                    f"{name} differences between readouts (paired bootstrap)",
                    ["difference", "estimate", "95% interval"],
                    [[k, fmt(v.estimate, 3), interval(v, 3)] for k, v in found.items()],
                )
            )
            blocks.append(forest(found, f"{name} differences between readouts"))
    return [Section("P(True) readouts", blocks), browser(typed)]
