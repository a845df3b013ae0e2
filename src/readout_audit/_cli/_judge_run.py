"""``readout judge run|analyze``: one phase of an inventory on its judge, and the joint analysis."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from readout_audit._cli._common import check_out, user_errors
from readout_audit._cli._judge_options import (
    execution_options,
    execution_settings,
    local_opener,
    refuse_unused_execution,
)
from readout_audit._cli._limit_plain import plain_option
from readout_audit._cli._score import finish
from readout_audit.judge import combine_runs, run_judge
from readout_audit.judge.protocol import Phase
from readout_audit.judge.run import inventory_judge
from readout_audit.progress import progress_mode


@click.command("run")
@click.argument("inventory", type=click.Path(path_type=Path, file_okay=False, exists=True))
@click.option("--out", required=True, type=click.Path(path_type=Path), help="Run directory.")
@click.option(
    "--phase",
    type=click.Choice(["preflight", "confirmation"]),
    required=True,
    help="Preflight first; confirmation runs the configurations whose preflight gates passed.",
)
@click.option(
    "--configuration",
    "configurations",
    multiple=True,
    metavar="NAME",
    help="Configurations to run (repeatable; default all). One run drives one judge.",
)
@click.option(
    "--unqualified",
    is_flag=True,
    help="Confirm without (or despite) preflight: recorded, and the analysis still gates.",
)
@execution_options
@click.option("--allow-download", is_flag=True, help="Let hf: judges download from the Hub.")
@plain_option
@click.option("--progress/--no-progress", default=None, help="Progress on stderr.")
@user_errors
def judge_run_command(
    inventory: Path,
    out: Path,
    phase: Phase,
    configurations: tuple[str, ...],
    unqualified: bool,
    plain: bool,
    progress: bool | None,
    **options: Any,
) -> None:
    """Run one phase of a frozen inventory on its judge; a rerun resumes where it stopped."""
    refuse_unused_execution(inventory_judge(inventory, configurations))
    check_out(out, "judge")
    _, plan = run_judge(
        inventory,
        out,
        execution_settings(options),
        local_opener(options),
        phase=phase,
        configurations=configurations,
        unqualified=unqualified,
        progress=progress_mode(progress),
    )
    for name in plan.skipped:
        click.echo(f"{name}: preflight gates failed, not confirmed (p = 1 in the family)")
    finish(out, plain)


@click.command("analyze")
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path, exists=True))
@click.option(
    "--out", required=True, type=click.Path(path_type=Path), help="The joint run directory."
)
@plain_option
@user_errors
def judge_analyze_command(runs: tuple[Path, ...], out: Path, plain: bool) -> None:
    """Analyse several judges' runs of one inventory as one family, from their files alone."""
    combine_runs(runs, out)
    finish(out, plain)
