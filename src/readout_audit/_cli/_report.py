"""``readout report`` and ``readout compare``: read run directories, no model needed."""

from __future__ import annotations

from pathlib import Path

import click

from readout_audit._cli._common import force_option, user_errors
from readout_audit._cli._limit_plain import plain_option
from readout_audit._cli._types import SEED, GivenPath, replicates_option
from readout_audit._util import terminal_safe, write_text_atomic
from readout_audit.log import check_output_path, holds_run, read_run, read_stage
from readout_audit.report import (
    compare_runs,
    comparison_sections,
    one_line,
    plain_tables,
    print_report,
    print_sections,
    print_stage_report,
    report_console,
    write_html,
)
from readout_audit.report import screenshot as take_screenshot

RUN_DIR = GivenPath(exists=True, file_okay=False, path_type=Path)


@click.command("report")
@click.argument("run_dir", type=GivenPath(exists=True, path_type=Path))
@click.option(
    "--html",
    "html_out",
    type=GivenPath(dir_okay=False, path_type=Path),
    help="Write a self-contained HTML report (inline plots, no network) to this file instead "
    "of printing the report; a one-line summary is printed.",
)
@click.option(
    "--screenshot",
    type=GivenPath(dir_okay=False, path_type=Path),
    help="With --html: also save the page's top as PNG (needs Chromium).",
)
@force_option
@plain_option
@click.option(
    "--verbose",
    "--manifest",
    "verbose",
    is_flag=True,
    help="Print every table and check, and the manifest: model files, commands, configuration, "
    "versions.",
)
@user_errors
def report_command(
    run_dir: Path,
    html_out: Path | None,
    screenshot: Path | None,
    force: bool,
    plain: bool,
    verbose: bool,
) -> None:
    """Report a run directory (any audit kind) or any other stage from its files alone."""
    if not holds_run(run_dir):
        if html_out is not None:
            raise click.UsageError("--html reports a run of records; this is another stage")
        print_stage_report(read_stage(run_dir), plain=plain, verbose=verbose)
        return
    if screenshot is not None and html_out is None:
        raise click.UsageError("--screenshot needs --html")
    if html_out is not None:
        check_output_path(html_out, option="html", force=force)
        if screenshot is not None:
            check_output_path(screenshot, option="screenshot", inputs=[html_out], force=force)
    run = read_run(run_dir)
    if html_out is None:
        print_report(run, plain=plain, verbose=verbose)
    else:
        click.echo(terminal_safe(one_line(run)))
        click.echo(terminal_safe(f"HTML report written to {write_html(run_dir, html_out)}"))
    if screenshot is not None and html_out is not None:
        shot = take_screenshot(html_out, screenshot)
        click.echo(terminal_safe(f"screenshot written to {shot}"))


@click.command("compare")
@click.argument("run_a", type=RUN_DIR)
@click.argument("run_b", type=RUN_DIR)
@replicates_option("--n-boot", 20_000, "Bootstrap replicates")
@click.option("--seed", default=0, show_default=True, type=SEED)
@click.option(
    "--json",
    "json_out",
    type=GivenPath(dir_okay=False, path_type=Path),
    help="Also write the comparison as JSON.",
)
@force_option
@plain_option
@user_errors
def compare_command(
    run_a: Path,
    run_b: Path,
    n_boot: int,
    seed: int,
    json_out: Path | None,
    force: bool,
    plain: bool,
) -> None:
    """Compare two runs of one kind over the same items: check changes, paired differences."""
    if json_out is not None:
        check_output_path(json_out, option="json", force=force)
    result = compare_runs(read_run(run_a), read_run(run_b), n_boot=n_boot, seed=seed)
    with plain_tables(plain):
        print_sections(comparison_sections(result), report_console(plain))
    if json_out is not None:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(json_out, result.model_dump_json(indent=2) + "\n")
        click.echo(terminal_safe(f"comparison written to {json_out}"))
