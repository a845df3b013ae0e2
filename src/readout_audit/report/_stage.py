"""The report of a stage that is not a run of records: its state, its files and its manifest."""

from __future__ import annotations

from rich.console import Console

from readout_audit._util import terminal_safe
from readout_audit.log import StageView
from readout_audit.report._blocks import Section, TableBlock, TextBlock
from readout_audit.report._common import manifest_section
from readout_audit.report._terminal import plain_tables, print_sections, report_console, text


def stage_state(view: StageView) -> str:
    """The stage's state in words, naming the process writing it now."""
    if view.writer is not None:
        return f"in progress (process {view.writer} is writing it now)"
    if view.finished:
        return "finished"
    return "unfinished (interrupted; rerun the same command to resume)"


def stage_sections(view: StageView, manifest: bool = True) -> list[Section]:
    """The stage's files (JSON Lines counted in complete lines), then its manifest."""
    rows = [[f.name, f"{f.size:,}", "–" if f.lines is None else f"{f.lines:,}"] for f in view.files]
    files = Section(
        "Files",
        [
            TextBlock(terminal_safe(f"{view.manifest.kind} at {view.path}: {stage_state(view)}")),
            TableBlock("Files", ["file", "bytes", "complete lines"], rows),
        ],
    )
    return [files, manifest_section(view.manifest)] if manifest else [files]


def print_stage_report(
    view: StageView, console: Console | None = None, *, plain: bool = False, verbose: bool = False
) -> None:
    """Print a stage's state and files; ``verbose`` adds its manifest."""
    console = console or report_console(plain)
    with plain_tables(plain):
        print_sections(stage_sections(view, manifest=verbose), console)
        if not verbose:
            console.print(text(f"the manifest: readout report {view.path} --verbose"))
