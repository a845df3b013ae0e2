"""``readout lift predict``: sample a forecast of every cut's hidden target, resumably."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from readout_audit._cli._common import model_options, refuse_unused, run_options, user_errors
from readout_audit._cli._fields import settings_from, settings_options
from readout_audit._cli._model import ModelChoice
from readout_audit._cli._types import GivenPath
from readout_audit._cli._warn import warn
from readout_audit.lift import PredictRun, predict_cut_file, predict_summary

EXISTING = GivenPath(exists=True, dir_okay=False, path_type=Path)
"""The cut file is read first: one that is not there is a usage error."""


@click.command("predict")
@settings_options(PredictRun, types_={"cuts": EXISTING})
@model_options
@user_errors
def predict_command(**given: Any) -> None:
    """Sample a forecast Z of every cut's hidden target at temperature 1."""
    # an existing forecast file is resumed (its manifest checked first), never truncated
    refuse_unused(("overwrite",), "by lift predict, which resumes its forecast file")
    shared = run_options(given)
    run = settings_from(
        PredictRun, given, template_kwargs=shared.template_kwargs, progress=shared.progress
    )
    warning, where = predict_summary(
        predict_cut_file(run, ModelChoice.from_options(given)), run.out
    )
    if warning is not None:
        warn(warning)
    click.echo(where)
