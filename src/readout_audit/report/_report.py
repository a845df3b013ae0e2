"""``readout report``: a run directory's terminal report, whatever audit wrote it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.console import Console

from readout_audit._exceptions import RunDirectoryError
from readout_audit.log._run import Run
from readout_audit.report._summary import run_summary
from readout_audit.report._terminal import (
    plain_tables,
    print_options_audit,
    print_ptrue_audit,
    print_run,
    wide_console,
)
from readout_audit.report._yesno import print_yesno_audit

Printer = Callable[[Run, dict[str, Any], Console], None]
TERMINAL: dict[str, Printer] = {
    "score": lambda run, summary, console: print_run(run.records, summary, console),
    "options": lambda run, summary, console: print_options_audit(summary, console),
    "ptrue": lambda run, summary, console: print_ptrue_audit(summary, console),
    "yesno": lambda run, summary, console: print_yesno_audit(summary, console),
}
"""The terminal report of each run kind (the manifest's ``kind``)."""


def print_report(run: Run, console: Console | None = None, *, plain: bool = False) -> None:
    """Print what the run is (model, files, commands) and its kind's tables.

    ``plain`` gives ASCII borders and no colour, for logs and pipes; verdicts are words either
    way.
    """
    kind = run.manifest.kind
    if kind not in TERMINAL:
        raise RunDirectoryError(f"no report for runs of kind {kind!r}")
    if console is None:
        console = Console(no_color=plain, highlight=not plain, emoji=not plain)
    console = wide_console(console)
    with plain_tables(plain):
        m = run.manifest
        state = "finished" if run.summary is not None else "unfinished (summary from records)"
        console.print(f"{kind} run {run.directory}: {len(run.records)} records, {state}")
        console.print(f"model {m.model.get('spec')} ({m.model.get('dtype')})")
        for f in m.model.get("files", []):
            console.print(f"  {f['path']} sha256 {f['sha256']}")
        for invocation in m.invocations:
            console.print(f"command: {' '.join(invocation.command)}")
        TERMINAL[kind](run, run_summary(run), console)
