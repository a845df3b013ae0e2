"""``readout audit lm-eval``: lm-evaluation-harness tasks, or a logged lm-eval run, audited."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from readout_audit._cli._audit_group import audit_group
from readout_audit._cli._common import (
    RunSettings,
    force_option,
    greedy_tokens,
    model_options,
    refuse_unused,
    user_errors,
)
from readout_audit._cli._limit_plain import limit_option
from readout_audit._cli._registry import register_commands
from readout_audit._cli._score import run_with_model
from readout_audit._cli._types import SEED
from readout_audit._exceptions import InputError
from readout_audit._util._text import terminal_safe
from readout_audit.lmeval import (
    LMEvalDoc,
    TaskSettings,
    audit_lm_eval,
    read_samples,
    task_documents,
)
from readout_audit.lmeval._audit import doc_variants, prepare_doc
from readout_audit.lmeval._doc import stem_in_context
from readout_audit.lmeval._samples import samples_files
from readout_audit.lmeval._summary import write_results_view
from readout_audit.lmeval._tasks import DEFAULT_FEWSHOT_SEED
from readout_audit.log._outputs import check_output_path
from readout_audit.model._codec import TextCodec

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


def _names(text: str | None) -> tuple[str, ...]:
    return tuple(n.strip() for n in (text or "").split(",") if n.strip())


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


def _note_doubled_stems(docs: list[LMEvalDoc], stem: str) -> None:
    """Say which tasks' contexts already end in ``stem``: their documents are not read twice."""
    tasks: dict[str, int] = {}
    for doc in docs:
        if stem_in_context(doc.context, stem):
            tasks[doc.task] = tasks.get(doc.task, 0) + 1
    for task, n in tasks.items():
        click.echo(
            terminal_safe(
                f"lm-eval: {task}: {n} document(s) already end in the stem {stem!r}; "
                "they are not read with it again (it would read it twice)"
            ),
            err=True,
        )


@click.command("lm-eval")
@click.option("--tasks", help="lm-eval task, group or tag names, comma-separated.")
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
    tasks: str | None,
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
    names = _names(tasks)
    if samples_source is None and not names:
        raise InputError("give --tasks, or --samples with a logged run", field="tasks")
    settings = TaskSettings(
        tasks=names,
        include_path=None if include_path is None else str(include_path),
        num_fewshot=num_fewshot,
        apply_chat_template=apply_chat_template,
        fewshot_as_multiturn=fewshot_as_multiturn,
        system_instruction=system_instruction,
        limit=limit,
        fewshot_seed=fewshot_seed,
        allow_download=options["allow_download"],
    )
    tokens = greedy_tokens(options)
    if samples_source is not None:
        refuse_unused(PROMPT_OPTIONS, "--samples reads the prompts as the logged run built them")
        inputs = [file for _, file in samples_files(samples_source)]
    else:
        inputs = settings.check()
    if json_out is not None:
        _check_view(json_out, out, inputs, force)
    docs: list[LMEvalDoc] = []
    source: dict[str, Any] = {"tasks": settings.config()}
    if samples_source is not None:
        docs = read_samples(samples_source, tasks=names or None, limit=limit)
        source = {"samples": str(samples_source)}

    def preflight(codec: TextCodec, run: RunSettings) -> None:
        if samples_source is None:
            shown = terminal_safe(", ".join(names))
            click.echo(f"lm-eval: building the requests of {shown}", err=True)
            docs.extend(task_documents(settings, codec, run.template_kwargs))
            click.echo(f"lm-eval: {len(docs)} documents", err=True)
        for doc in docs:
            for variant in doc_variants(doc, stem, keep_whitespace):
                prepare_doc(doc, codec, tokens, variant, stem or "")
        if stem is not None:
            _note_doubled_stems(docs, stem)

    run_with_model(
        "lm-eval",
        out,
        options,
        lambda model, run: audit_lm_eval(
            model,
            docs,
            out,
            source=source,
            stem=stem,
            keep_whitespace=keep_whitespace,
            tolerance=tolerance,
            greedy_tokens=tokens,
            top_k=run.top_k,
            batch_size=run.batch_size,
            progress=run.progress,
            overwrite=run.overwrite,
        ),
        preflight,
    )
    if json_out is not None:
        write_results_view(out, json_out)


@register_commands
def lm_eval_commands(cli: click.Group) -> None:
    """``readout audit lm-eval``."""
    audit_group.add_command(lm_eval_command)
