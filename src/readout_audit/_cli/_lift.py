"""``readout lift``: cut TeX papers, write forecasts, score them and report the lift."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from readout_audit._cli._common import user_errors
from readout_audit._cli._fields import settings_from, settings_options
from readout_audit._cli._lift_example import example_command
from readout_audit._cli._lift_predict import predict_command
from readout_audit._cli._lift_score import lift_score_command, lift_toy_command
from readout_audit._cli._lift_sft import sft_command
from readout_audit._cli._registry import register_commands
from readout_audit._cli._report import report_command
from readout_audit._cli._types import GivenPath
from readout_audit.lift import CutRun, cut_sources


@click.group("lift")
def lift_group() -> None:
    """Likelihood lift of forecasts of hidden TeX continuations (cut, predict, score, report)."""


@lift_group.command("cut")
@click.argument("sources", nargs=-1, required=True, type=GivenPath(path_type=Path))
@settings_options(CutRun, skip=("sources",))
@user_errors
def cut_command(**given: Any) -> None:
    """Cut .tex files, folders of them or arXiv tarballs (SOURCES) into prediction tasks."""
    run = settings_from(CutRun, given, sources=given["sources"])  # the argument, not an option
    click.echo(cut_sources(run).summary())


lift_group.add_command(predict_command)
lift_group.add_command(lift_score_command)
lift_group.add_command(lift_toy_command)
lift_group.add_command(sft_command)
lift_group.add_command(report_command)
lift_group.add_command(example_command)


@register_commands
def lift_commands(cli: click.Group) -> None:
    """``readout lift``."""
    cli.add_command(lift_group)
