"""``readout lift sft``: fine-tune the scorer on training papers' context-only cuts (LoRA)."""

from __future__ import annotations

from typing import Any

import click

from readout_audit._cli._common import local_model_options, user_errors
from readout_audit._cli._fields import settings_from, settings_options
from readout_audit._cli._model import ModelChoice
from readout_audit.lift.sft import SftRun, fine_tune
from readout_audit.progress import progress_mode


@click.command("sft")
@settings_options(SftRun)
@local_model_options("The scorer to fine-tune (local weights).")
@click.option(
    "--allow-download", is_flag=True, help="Let hf: specs download from the Hugging Face Hub."
)
@click.option(
    "--progress/--no-progress",
    default=True,
    help="The plan and a line per step on stderr (--no-progress: nothing).",
)
@user_errors
def sft_command(
    model_spec: str, device: str, allow_download: bool, progress: bool, **given: Any
) -> None:
    """Train the context-only SFT control: LoRA on the training papers' cuts (seed 001)."""
    run = settings_from(SftRun, given, progress=progress_mode(progress))
    chosen = {"model_spec": model_spec, "device": device, "allow_download": allow_download}
    scorer = settings_from(ModelChoice, chosen, dtype=run.training.dtype)
    click.echo(fine_tune(run, scorer).summary())
