"""``readout audit lm-eval``: lm-evaluation-harness tasks, or a logged lm-eval run, audited."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from readout_audit._cli._audit_group import audit_group
from readout_audit._cli._common import (
    force_option,
    greedy_tokens,
    model_options,
    refuse_unused,
    user_errors,
)
from readout_audit._cli._fields import settings_from, settings_options
from readout_audit._cli._registry import register_commands
from readout_audit._cli._score import run_command
from readout_audit._cli._types import GivenPath
from readout_audit._exceptions import InputError
from readout_audit.lmeval import LMEvalRun, write_results_view
from readout_audit.log import check_output_path

LM_EVAL_SPELLINGS = {
    name: "--" + name
    for name in (
        "include_path",
        "num_fewshot",
        "apply_chat_template",
        "fewshot_as_multiturn",
        "system_instruction",
        "fewshot_seed",
    )
}
"""lm-eval's own spelling of its prompt options, taken beside ours (``--num_fewshot``)."""
PROMPT_OPTIONS = (*LM_EVAL_SPELLINGS, "template_kwargs")
"""lm-eval's prompt options: a logged run's prompts are already built."""


def _check_view(path: Path, out: Path, inputs: list[Path], force: bool) -> None:
    """Refuse ``--json`` inside ``--out``, over an input, or over a file without ``--force``."""
    real, run = Path(os.path.realpath(path)), Path(os.path.realpath(out))
    if real == run or run in real.parents:
        raise InputError(
            "is inside --out, whose files only the run writes; choose a path outside it",
            source=str(path),
            field="json",
        )
    check_output_path(path, option="json", inputs=inputs, force=force)


@click.command("lm-eval")
@settings_options(LMEvalRun, aliases=LM_EVAL_SPELLINGS)
@click.option(
    "--json",
    "json_out",
    type=GivenPath(dir_okay=False, path_type=Path),
    help="Also write a compact JSON of lm-eval's metrics and the audit's per task and group, "
    "to keep beside lm-eval's results file.",
)
@click.option("--out", required=True, type=GivenPath(file_okay=False, path_type=Path))
@force_option
@model_options
@user_errors
def lm_eval_command(json_out: Path | None, out: Path, force: bool, **options: Any) -> None:
    """Audit lm-evaluation-harness tasks as lm-eval builds them, or a logged lm-eval run.

    lm-eval's own task code builds every context and continuation; each document is read at
    the position lm-eval scores, with lm-eval's acc and acc_norm beside the options audit's
    option mass, argmax, continuation, first tokens and ending, per task and group.
    """
    run = settings_from(
        LMEvalRun,
        options,
        allow_download=options["allow_download"],
        greedy_tokens=greedy_tokens(options),
    )
    if run.samples is not None:
        refuse_unused(PROMPT_OPTIONS, "--samples reads the prompts as the logged run built them")
    inputs = run.inputs()
    if json_out is not None:
        _check_view(json_out, out, inputs, force)
    run_command(run, out, options)
    if json_out is not None:
        write_results_view(out, json_out)


@register_commands
def lm_eval_commands(cli: click.Group) -> None:
    """``readout audit lm-eval``."""
    audit_group.add_command(lm_eval_command)
