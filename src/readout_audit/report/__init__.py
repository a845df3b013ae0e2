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
from readout_audit.report._yesno import print_yesno_audit

__all__ = [
    "checks_table",
    "downstream_table",
    "print_options_audit",
    "print_ptrue_audit",
    "print_run",
    "print_yesno_audit",
    "records_table",
    "summary_table",
    "variants_table",
]
