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
from readout_audit.report._report import print_report, report_sections, run_summary
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
    "Section",
    "TableBlock",
    "TextBlock",
    "compare_runs",
    "comparison_sections",
    "plain_tables",
    "print_report",
    "print_sections",
    "render_html",
    "report_console",
    "report_sections",
    "run_summary",
    "screenshot",
    "write_html",
]
