"""Reports of run directories: sections as data, drawn in the terminal and as HTML; comparison."""

from readout_audit.report._blocks import (
    MISSING,
    Block,
    ChecksBlock,
    FigureBlock,
    ItemsBlock,
    ItemView,
    Section,
    TableBlock,
    TextBlock,
    clip,
    counts,
    estimate,
    fmt,
    interval,
    plot,
)
from readout_audit.report._common import browser, class_figure, forest, mass_figure
from readout_audit.report._compare import (
    CheckChange,
    Comparison,
    PairedDifference,
    Pairs,
    compare_runs,
    comparison_sections,
    mean_difference,
    paired_difference,
)
from readout_audit.report._conformance import conformance_section, print_conformance
from readout_audit.report._html import render_html, write_html
from readout_audit.report._index import index_report_paths, render_index, write_index
from readout_audit.report._report import one_line, print_report, report_sections, run_summary
from readout_audit.report._runs import RunRow, run_row, runs_block, runs_csv
from readout_audit.report._screenshot import screenshot
from readout_audit.report._stage import print_stage_report, stage_sections
from readout_audit.report._terminal import plain_tables, print_sections, report_console

__all__ = [
    "Block",
    "CheckChange",
    "ChecksBlock",
    "Comparison",
    "FigureBlock",
    "ItemView",
    "ItemsBlock",
    "MISSING",
    "PairedDifference",
    "Pairs",
    "RunRow",
    "Section",
    "TableBlock",
    "TextBlock",
    "browser",
    "class_figure",
    "clip",
    "compare_runs",
    "comparison_sections",
    "conformance_section",
    "counts",
    "estimate",
    "fmt",
    "forest",
    "index_report_paths",
    "interval",
    "mass_figure",
    "mean_difference",
    "one_line",
    "paired_difference",
    "plain_tables",
    "plot",
    "print_conformance",
    "print_report",
    "print_sections",
    "print_stage_report",
    "render_html",
    "render_index",
    "report_console",
    "report_sections",
    "run_row",
    "run_summary",
    "runs_block",
    "runs_csv",
    "screenshot",
    "stage_sections",
    "write_html",
    "write_index",
]
