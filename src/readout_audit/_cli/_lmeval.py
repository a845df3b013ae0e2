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
from readout_audit._cli._limit_plain import limit_option
from readout_audit._cli._registry import register_commands
from readout_audit._cli._score import run_command
from readout_audit._cli._types import SEED, Listed
from readout_audit._exceptions import InputError
from readout_audit.lmeval import (
    DEFAULT_FEWSHOT_SEED,
    DocReading,
    TaskSettings,
    lm_eval_stage,
    samples_files,
    write_results_view,
)
from readout_audit.log import check_output_path

PROMPT_OPTIONS = (
    "include_path",
    "num_fewshot",
    "apply_chat_template",
    "fewshot_as_multiturn",
    "system_instruction",
    "fewshot_seed",
    "template_kwarg",
)
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


def _note(line: str) -> None:
    """A line of the stage's on stderr, where the progress goes."""
    click.echo(line, err=True)


@click.command("lm-eval")
@click.option("--tasks", type=Listed(), help="lm-eval task, group or tag names, comma-separated.")
@click.option(
    "--include-path",
    "--include_path",
    type=click.Path(path_type=Path),
    help="A folder of task YAML files (lm-eval's --include_path).",
)
@click.option(
    "--samples",
    "samples_source",
    type=click.Path(path_type=Path),
    help="A finished run's --log_samples output: a samples_<task>_<date>.jsonl file or a "
    "folder of them. Every logged request is re-scored and compared before the audit.",
)
@click.option(
    "--num-fewshot", "--num_fewshot", type=click.IntRange(0), help="lm-eval's --num_fewshot."
)
@click.option(
    "--apply-chat-template",
    "--apply_chat_template",
    is_flag=True,
    help="lm-eval's --apply_chat_template.",
)
@click.option(
    "--fewshot-as-multiturn",
    "--fewshot_as_multiturn",
    is_flag=True,
    help="lm-eval's --fewshot_as_multiturn.",
)
@click.option(
    "--system-instruction", "--system_instruction", help="lm-eval's --system_instruction."
)
@limit_option("documents of each task (lm-eval's --limit)")
@click.option(
    "--fewshot-seed",
    "--fewshot_seed",
    type=SEED,
    default=DEFAULT_FEWSHOT_SEED,
    show_default=True,
    help="Seed of the few-shot sampler (lm-eval's --fewshot_seed).",
)
@click.option(
    "--stem",
    help="Also read every document with this answer stem after lm-eval's context (e.g. "
    "'Answer:'), to measure what ending doc_to_text with it changes; a context that already "
    "ends in it is not read twice.",
)
@click.option(
    "--keep-whitespace",
    is_flag=True,
    help="Also read every document whose context ends in whitespace after it (lm-eval reads "
    "before it and scores the whitespace as part of each continuation).",
)
@click.option(
    "--json",
    "json_out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write a compact JSON of lm-eval's metrics and the audit's per task and group, "
    "to keep beside lm-eval's results file.",
)
@click.option(
    "--tolerance",
    type=click.FloatRange(0, min_open=True),
    help="Largest |re-scored − logged| log-likelihood that reproduces a logged run [float32 "
    "budget; 0.05 for a half-precision model; a served model's weights-type tolerance].",
)
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path))
@force_option
@model_options
@user_errors
def lm_eval_command(
    tasks: tuple[str, ...] | None,
    include_path: Path | None,
    samples_source: Path | None,
    num_fewshot: int | None,
    apply_chat_template: bool,
    fewshot_as_multiturn: bool,
    system_instruction: str | None,
    limit: int | None,
    fewshot_seed: int,
    stem: str | None,
    keep_whitespace: bool,
    json_out: Path | None,
    tolerance: float | None,
    out: Path,
    force: bool,
    **options: Any,
) -> None:
    """Audit lm-evaluation-harness tasks as lm-eval builds them, or a logged lm-eval run.

    lm-eval's own task code builds every context and continuation; each document is read at
    the position lm-eval scores, with lm-eval's acc and acc_norm beside the options audit's
    option mass, argmax, continuation, first tokens and ending, per task and group.
    """
    if samples_source is None and not tasks:
        raise InputError("give --tasks, or --samples with a logged run", field="tasks")
    settings = TaskSettings(
        tasks=tasks or (),
        include_path=None if include_path is None else str(include_path),
        num_fewshot=num_fewshot,
        apply_chat_template=apply_chat_template,
        fewshot_as_multiturn=fewshot_as_multiturn,
        system_instruction=system_instruction,
        limit=limit,
        fewshot_seed=fewshot_seed,
        allow_download=options["allow_download"],
    )
    if samples_source is not None:
        refuse_unused(PROMPT_OPTIONS, "--samples reads the prompts as the logged run built them")
        inputs = [file for _, file in samples_files(samples_source)]
    else:
        inputs = settings.check()
    if json_out is not None:
        _check_view(json_out, out, inputs, force)
    reading = DocReading(stem, keep_whitespace, tolerance, greedy_tokens(options))
    stage = lm_eval_stage(settings, samples_source, reading, note=_note)
    run_command(stage, out, options)
    if json_out is not None:
        write_results_view(out, json_out)


@register_commands
def lm_eval_commands(cli: click.Group) -> None:
    """``readout audit lm-eval``."""
    audit_group.add_command(lm_eval_command)
