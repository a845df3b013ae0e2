"""Reports: terminal summaries of run directories."""

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

__all__ = [
    "checks_table",
    "downstream_table",
    "print_options_audit",
    "print_ptrue_audit",
    "print_run",
    "records_table",
    "summary_table",
    "variants_table",
]
