"""``readout lift predict``: sample a forecast of every cut's hidden target, resumably."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from readout_audit._cli._common import model_options, refuse_unused, run_options, user_errors
from readout_audit._cli._limit_plain import limit_option
from readout_audit._cli._model import ModelChoice
from readout_audit._cli._types import SEED
from readout_audit._cli._warn import warn
from readout_audit._util._text import terminal_safe
from readout_audit.lift._cut import Cut
from readout_audit.lift._cutfile import read_cuts
from readout_audit.lift._predict import write_forecasts
from readout_audit.log import check_output_path, check_unlocked, stage_manifest_path


def run_predict(
    cuts: Sequence[Cut],
    out: Path,
    options: dict[str, Any],
    *,
    setting: str | None,
    seed: int,
    max_new_tokens: int | None,
    plain_prompt: bool,
) -> None:
    """Load the model, write a forecast of every cut to ``out`` (resuming it), say where."""
    check_unlocked(out)  # a second writer stops here, before the model loads
    settings = run_options(options)
    model = ModelChoice.from_options(options).open()
    forecasts = write_forecasts(
        model,
        cuts,
        out,
        setting=setting,
        seed=seed,
        chat=False if plain_prompt else None,
        template_kwargs=settings.template_kwargs,
        max_new_tokens=max_new_tokens,
        progress=settings.progress,
    )
    empty = sum(not f.z for f in forecasts)
    if empty:
        warn(
            f"{empty} of {len(forecasts)} forecasts are empty (a reasoning model may spend "
            "--max-new-tokens before it answers); they score as the bare scaffold"
        )
    click.echo(
        terminal_safe(
            f"{len(forecasts)} forecasts ({forecasts[0].setting if forecasts else 'none'}) in "
            f"{out}; manifest {stage_manifest_path(out)}"
        )
    )


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
    check_output_path(out, option="out", inputs=[cuts_path], force=True)
    run_predict(
        read_cuts(cuts_path)[:limit],
        out,
        options,
        setting=setting,
        seed=seed,
        max_new_tokens=max_new_tokens,
        plain_prompt=plain_prompt,
    )
