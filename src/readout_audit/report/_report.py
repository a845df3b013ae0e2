"""A run's report, whatever kind wrote it: its summary, its sections, and the terminal output."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from readout_audit.kind import get_kind
from readout_audit.log import Run, Summary
from readout_audit.report._blocks import Section
from readout_audit.report._common import checks_section, manifest_section, served_section
from readout_audit.report._terminal import (
    plain_tables,
    print_sections,
    report_console,
    text,
    wide_console,
)

STATES = {
    "finished": "finished",
    "running": "in progress (process {writer} is writing it now; summary recomputed from the "
    "records written so far)",
    "incomplete": "unfinished ({n} of {planned} planned records; rerun the same command to score "
    "the rest; summary recomputed from the records on disk)",
    "unfinished": "unfinished (interrupted; summary recomputed from the records on disk)",
    "cut": "unfinished (interrupted mid-record: the last line is cut off and will be re-scored "
    "on resume; summary recomputed from the complete records)",
}


def state_text(run: Run[Any]) -> str:
    """The run's state in words, naming the writing process or the records short of the plan."""
    return STATES[run.state].format(writer=run.writer, n=len(run.records), planned=run.planned)


def run_summary(run: Run[Any]) -> Summary:
    """The summary on disk, or (for an interrupted run) the one its kind computes from its files."""
    if run.summary is not None and run.state == "finished":
        return run.summary
    summary: Summary = get_kind(run.manifest.kind).summary(run)
    return summary


def report_sections(
    run: Run[Any], manifest: bool = True, checks_last: bool = False
) -> list[Section]:
    """The decision first (checks, then the kind's sections), then the manifest to redo it.

    ``manifest`` False leaves the manifest out (the terminal's short report) but for a served
    model's server and conformance verdicts. ``checks_last`` puts the checks after the kind's
    sections (the terminal, where the last lines printed are the ones on screen).
    """
    kind = get_kind(run.manifest.kind)
    summary = run_summary(run)
    checks = checks_section(summary)
    found = [checks] if checks is not None else []
    served = served_section(run)
    last = [manifest_section(run.manifest)] if manifest else [served] if served is not None else []
    kind_sections = kind.sections(run, summary)
    if checks_last:
        return [*kind_sections, *found, *last]
    return [*found, *kind_sections, *last]


def headline(run: Run[Any], verbose: bool = True) -> list[str]:
    """What the run is: kind, state, model, the last invocation's speed; files and commands too.

    ``verbose`` False leaves out the model files' hashes and the commands (in the manifest).
    """
    m = run.manifest
    lines = [
        f"{get_kind(m.kind).title} ({m.kind}) {run.directory}: {len(run.records)} records, "
        f"{state_text(run)}",
        f"model {m.model.get('spec')} ({m.model.get('dtype')})",
    ]
    if run.summary_problem is not None:
        lines.append(f"summary: {run.summary_problem}")
    if verbose:
        lines += [f"  {f['path']} sha256 {f['sha256']}" for f in m.model.get("files", [])]
        lines += [f"command: {' '.join(i.command)}" for i in m.invocations]
    timing = run.summary.this_invocation if run.summary is not None else None
    if timing is not None and timing.items_per_s:
        lines.append(
            f"last invocation: {timing.n_new_records} new records in {timing.seconds:.1f} s "
            f"({timing.items_per_s:.2f} items/s, {timing.tokens_per_s or 0:.0f} tokens/s)"
        )
    return lines


def one_line(run: Run[Any]) -> str:
    """The run in one line: what it is, its records and state, its checks by verdict."""
    verdicts = [c.verdict for c in run_summary(run).checks]
    tally = ", ".join(f"{verdicts.count(v)} {v}" for v in ("fail", "warn", "pass") if v in verdicts)
    return headline(run, verbose=False)[0] + (f"; checks: {tally}" if tally else "")


def print_report(
    run: Run[Any], console: Console | None = None, *, plain: bool = False, verbose: bool = False
) -> None:
    """Print the headline, the kind's sections, then the checks.

    By default about one screen: each section's first table, the failing and warning checks in
    full and the passing ones by name. ``verbose`` prints every table and check and the manifest
    (model files, commands, configuration, versions); the HTML report always has them all.
    ``plain`` gives ASCII borders and no colour, for logs and pipes; verdicts are words either
    way.
    """
    console = wide_console(console) if console is not None else report_console(plain)
    with plain_tables(plain):
        for line in headline(run, verbose):
            console.print(text(line))
        sections = report_sections(run, manifest=verbose, checks_last=True)
        hidden = print_sections(sections, console, short=not verbose)
        if not verbose:
            more = f"{len(hidden)} more tables, " if hidden else ""
            where = f"readout report {run.directory} --verbose (or --html FILE)"
            console.print(text(f"{more}every check and the manifest: {where}"))
