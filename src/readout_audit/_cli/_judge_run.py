"""``readout judge run|analyze``: one phase of an inventory on its judge, and the joint analysis."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from readout_audit._cli._common import user_errors
from readout_audit._cli._fields import settings_from, settings_options
from readout_audit._cli._judge_options import (
    JUDGE_SKIPS,
    progress_option,
    refuse_unused_execution,
)
from readout_audit._cli._limit_plain import plain_option
from readout_audit._cli._score import finish
from readout_audit._cli._types import GivenPath
from readout_audit.judge import JudgeRun, combine_runs, run_judge
from readout_audit.judge.run import inventory_judge
from readout_audit.progress import progress_mode


@click.command("run")
@click.argument("inventory", type=GivenPath(path_type=Path, file_okay=False, exists=True))
@settings_options(
    JudgeRun,
    skip=JUDGE_SKIPS,
    types_={"phase": click.Choice(["preflight", "confirmation"])},
)
@plain_option
@progress_option
@user_errors
def judge_run_command(inventory: Path, plain: bool, progress: bool | None, **given: Any) -> None:
    """Run one phase of a frozen inventory on its judge; a rerun resumes where it stopped."""
    run = settings_from(JudgeRun, given, progress=progress_mode(progress))
    refuse_unused_execution(inventory_judge(inventory, run.configurations))
    _, plan = run_judge(inventory, run)
    for name in plan.skipped:
        click.echo(f"{name}: preflight gates failed, not confirmed (p = 1 in the family)")
    finish(run.out, plain)


@click.command("analyze")
@click.argument("runs", nargs=-1, required=True, type=GivenPath(path_type=Path, exists=True))
@click.option(
    "--out", required=True, type=GivenPath(path_type=Path), help="The joint run directory."
)
@plain_option
@user_errors
def judge_analyze_command(runs: tuple[Path, ...], out: Path, plain: bool) -> None:
    """Analyse several judges' runs of one inventory as one family, from their files alone."""
    combine_runs(runs, out)
    finish(out, plain)
