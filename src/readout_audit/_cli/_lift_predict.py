"""``readout lift predict``: sample a forecast of every cut's hidden target, resumably."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from readout_audit._cli._common import model_options, refuse_unused, run_options, user_errors
from readout_audit._cli._limit_plain import limit_option
from readout_audit._cli._model import ModelChoice
from readout_audit._cli._types import SEED
from readout_audit._cli._warn import warn
from readout_audit.lift import PredictRun, predict_cut_file, predict_summary


@click.command("predict")
@click.option(
    "--cuts",
    "cuts_path",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Cut file (JSON lines) written by `readout lift cut`.",
)
@click.option(
    "--out",
    required=True,
    type=click.Path(path_type=Path),
    help="Forecast file (JSON lines), resumed if it exists with the same settings; its "
    "manifest is written beside it as <out>.manifest.json.",
)
@click.option(
    "--setting",
    default=None,
    help="Name of this predictor setting in the records (default: the model's name + -t1).",
)
@click.option(
    "--seed",
    default=0,
    show_default=True,
    type=SEED,
    help="Run seed; each cut's sampling seed is derived from it and the cut id by SHA-256.",
)
@click.option(
    "--max-new-tokens",
    default=None,
    type=click.IntRange(1),
    help="Generation bound per cut (default: half the asked characters plus 16).",
)
@click.option(
    "--plain-prompt",
    is_flag=True,
    help="Send the prompt as plain text even when the model has a chat template.",
)
@limit_option("cuts of the cut file")
@model_options
@user_errors
def predict_command(
    cuts_path: Path,
    out: Path,
    setting: str | None,
    seed: int,
    max_new_tokens: int | None,
    plain_prompt: bool,
    limit: int | None,
    **options: Any,
) -> None:
    """Sample a forecast Z of every cut's hidden target at temperature 1."""
    # an existing forecast file is resumed (its manifest checked first), never truncated
    refuse_unused(("overwrite",), "by lift predict, which resumes its forecast file")
    settings = run_options(options)
    run = PredictRun(
        cuts=cuts_path, out=out, limit=limit, setting=setting, seed=seed,
        max_new_tokens=max_new_tokens, plain_prompt=plain_prompt,
        template_kwargs=settings.template_kwargs, progress=settings.progress,
    )  # fmt: skip
    warning, where = predict_summary(predict_cut_file(run, ModelChoice.from_options(options)), out)
    if warning is not None:
        warn(warning)
    click.echo(where)
