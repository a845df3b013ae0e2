"""``readout lift score|toy``: score forecasts against their controls; the scorer's toy check."""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path
from typing import Any

import click

from readout_audit._cli._common import model_options, refuse_unused, user_errors
from readout_audit._cli._fields import settings_from, settings_options
from readout_audit._cli._model import ModelChoice
from readout_audit._cli._score import finish
from readout_audit._cli._types import GivenPath
from readout_audit._exceptions import InputError
from readout_audit.lift import LiftScoreRun, score_cut_file, toy_rows, toy_table
from readout_audit.model import is_served
from readout_audit.progress import progress_mode

SHARED = ("batch_size", "progress", "overwrite")
"""Fields set by the shared model options, not by options of their own."""


@click.command("score")
@settings_options(LiftScoreRun, skip=SHARED)
@model_options
@user_errors
def lift_score_command(**given: Any) -> None:
    """Score each cut's true target under every condition, then report the lift.

    The conditions: the empty scaffold, recent context (B and 3B characters), the SFT rung
    (with --sft), each forecast and the oracle (the true suffix in the scaffold).
    """
    run = settings_from(LiftScoreRun, given, progress=progress_mode(given["progress"]))
    score_cut_file(run, ModelChoice.from_options(given))
    finish(run.out, given["plain"], given["verbose"])


@click.command("toy")
@click.option(
    "--ledger",
    type=GivenPath(dir_okay=False, path_type=Path),
    help="Where a served scorer's requests are kept (required for one; SQLite, resumable).",
)
@model_options
@user_errors
def lift_toy_command(ledger: Path | None, **options: Any) -> None:
    """Appendix A's toy cases on a scorer: does the scaffold make it copy the first equation?"""
    refuse_unused(("overwrite",), "by lift toy, which writes no run")
    if not is_served(options["model_spec"]):
        refuse_unused(("ledger",), "by a local scorer, which sends no requests")
    elif ledger is None:
        raise InputError(
            "a served scorer's requests are kept in a ledger: give --ledger FILE", field="ledger"
        )
    model = ModelChoice.from_options(options).open()
    with model.bound_to(ledger) if ledger else nullcontext():
        click.echo(toy_table(toy_rows(model)))
