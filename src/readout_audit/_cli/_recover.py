"""``readout audit recover``: collapsed sequence scores and their label-free recovery (seed 003)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from readout_audit._cli._audit_group import audit_group
from readout_audit._cli._common import greedy_tokens, model_options, user_errors
from readout_audit._cli._fields import settings_from, settings_options
from readout_audit._cli._registry import register_commands
from readout_audit._cli._score import run_command
from readout_audit._cli._types import GivenPath, Listed
from readout_audit.recover import RecoverRun


@click.command("recover")
@settings_options(
    RecoverRun,
    types_={
        "items": GivenPath(exists=True, dir_okay=False, path_type=Path),
        "configurations": Listed(),
        "grid": Listed(float, "LOW,HIGH,STEP"),
    },
)
@click.option("--out", required=True, type=GivenPath(file_okay=False, path_type=Path))
@model_options
@user_errors
def recover_command(out: Path, **options: Any) -> None:
    """Collapsed sequence scores: probes, label logits, string scores, label-free offsets."""
    run = settings_from(
        RecoverRun,
        options,
        allow_download=options["allow_download"],
        greedy_tokens=greedy_tokens(options, 0),
    )
    run_command(run, out, options)


@register_commands
def recover_commands(cli: click.Group) -> None:
    """``readout audit recover``."""
    audit_group.add_command(recover_command)
