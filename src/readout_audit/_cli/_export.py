"""``readout export`` and ``readout table``: take runs' records and numbers elsewhere."""

from __future__ import annotations

import os
from pathlib import Path

import click

from readout_audit._cli._common import force_option, user_errors
from readout_audit._cli._limit_plain import plain_option
from readout_audit._cli._report import RUN_DIR
from readout_audit._cli._types import GivenPath
from readout_audit._util import terminal_safe, write_text_atomic
from readout_audit.log import (
    FORMATS,
    TableFormat,
    check_output_path,
    export_path,
    read_run,
    write_frame,
)
from readout_audit.report import (
    Section,
    index_report_paths,
    plain_tables,
    print_sections,
    report_console,
    run_row,
    runs_block,
    runs_csv,
    write_index,
)

FILE = GivenPath(dir_okay=False, path_type=Path)


@click.command("export")
@click.argument("run_dir", type=RUN_DIR)
@click.option(
    "--format",
    "table_format",
    type=click.Choice(FORMATS),
    default="csv",
    show_default=True,
    help="CSV (UTF-8, CRLF line ends, a header row) or parquet.",
)
@click.option(
    "--out",
    type=FILE,
    help="The file to write (default: RUN.csv or RUN.parquet beside the run directory).",
)
@force_option
@user_errors
def export_command(run_dir: Path, table_format: TableFormat, out: Path | None, force: bool) -> None:
    """Write a run's records as one table: a row per record, a column per field.

    Nested fields get dotted names (greedy.text); lists and objects (options, top, metadata)
    are their JSON text. The columns are in docs/records.md. In CSV, a text cell opening with
    =, +, -, @, a tab or a carriage return gets a leading ' so that a spreadsheet shows it
    rather than running it as a formula (numbers are left as they are).
    """
    out = out if out is not None else export_path(run_dir, table_format)
    check_output_path(out, option="out", force=force)
    run = read_run(run_dir)
    written = write_frame(run.to_pandas(), out, table_format)
    click.echo(terminal_safe(f"{len(run.records)} records written to {written}"))


def named_once(run_dirs: tuple[Path, ...]) -> None:
    """Refuse a run named twice, under any spelling: a table of runs has one row per run.

    A repeat is a slip in the list (a glob and a name, ``runs/b1`` and ``./runs/b1/``): listed
    twice it reads as two runs that agree, and dropped in silence the table would hide that
    the list was not the one meant. So it is refused, naming both spellings.
    """
    seen: dict[str, Path] = {}
    for run_dir in run_dirs:
        real = os.path.realpath(run_dir)
        if real in seen:
            raise click.BadParameter(
                f"the run {seen[real]} is named twice ({seen[real]}, {run_dir}): name each run "
                "once",
                param_hint="RUN_DIRS",
            )
        seen[real] = run_dir


@click.command("table")
@click.argument("run_dirs", nargs=-1, required=True, type=RUN_DIR)
@click.option("--csv", "csv_out", type=FILE, help="Also write the table as CSV.")
@click.option(
    "--html",
    "html_out",
    type=FILE,
    help="Also write an index page whose rows link to each run's full report (written "
    "beside it, in NAME_reports/).",
)
@force_option
@plain_option
@user_errors
def table_command(
    run_dirs: tuple[Path, ...],
    csv_out: Path | None,
    html_out: Path | None,
    force: bool,
    plain: bool,
) -> None:
    """One row per run: kind, model, items, records, state, verdicts and headline numbers."""
    named_once(run_dirs)
    if csv_out is not None:
        check_output_path(csv_out, option="csv", force=force)
    if html_out is not None:
        taken = [csv_out] if csv_out is not None else []
        check_output_path(html_out, option="html", inputs=taken, force=force)
        for report in index_report_paths(html_out, run_dirs):
            check_output_path(report, option="html", inputs=taken, force=force)
    rows = [run_row(read_run(run_dir)) for run_dir in run_dirs]
    with plain_tables(plain):
        print_sections([Section("Runs", [runs_block(rows)])], report_console(plain))
    if csv_out is not None:
        csv_out.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(csv_out, runs_csv(rows))
        click.echo(terminal_safe(f"table written to {csv_out}"))
    if html_out is not None:
        written = write_index(rows, html_out)
        click.echo(
            terminal_safe(f"index written to {html_out}, with {len(written) - 1} reports beside it")
        )
