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
)
from readout_audit.report._compare import (
    CheckChange,
    Comparison,
    PairedDifference,
    compare_runs,
    comparison_sections,
)
from readout_audit.report._html import render_html, write_html
from readout_audit.report._index import index_report_paths, render_index, write_index
from readout_audit.report._report import print_report, report_sections, run_summary
from readout_audit.report._runs import RunRow, run_row, runs_block, runs_csv
from readout_audit.report._screenshot import screenshot
from readout_audit.report._terminal import plain_tables, print_sections, report_console

__all__ = [
    "MISSING",
    "Block",
    "CheckChange",
    "ChecksBlock",
    "Comparison",
    "FigureBlock",
    "ItemView",
    "ItemsBlock",
    "PairedDifference",
    "RunRow",
    "Section",
    "TableBlock",
    "TextBlock",
    "compare_runs",
    "comparison_sections",
    "index_report_paths",
    "plain_tables",
    "print_report",
    "print_sections",
    "render_html",
    "render_index",
    "report_console",
    "report_sections",
    "run_row",
    "run_summary",
    "runs_block",
    "runs_csv",
    "screenshot",
    "write_html",
    "write_index",
]
