"""Reports: terminal summaries of run directories."""

from readout_audit.report._terminal import print_run, records_table, summary_table

__all__ = [
    "print_run",
    "records_table",
    "summary_table",
]
