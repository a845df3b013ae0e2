"""Reports of run directories: terminal tables, the HTML report, run comparison."""

from readout_audit.report._compare import compare_runs, print_comparison
from readout_audit.report._html import render_html, report_sections, write_html
from readout_audit.report._report import print_report
from readout_audit.report._screenshot import screenshot
from readout_audit.report._terminal import (
    checks_table,
    downstream_table,
    print_options_audit,
    print_ptrue_audit,
    print_run,
    records_table,
    summary_table,
    variants_table,
)
from readout_audit.report._yesno import print_yesno_audit

__all__ = [
    "checks_table",
    "compare_runs",
    "downstream_table",
    "print_comparison",
    "print_options_audit",
    "print_ptrue_audit",
    "print_report",
    "print_run",
    "print_yesno_audit",
    "records_table",
    "render_html",
    "report_sections",
    "screenshot",
    "summary_table",
    "variants_table",
    "write_html",
]
