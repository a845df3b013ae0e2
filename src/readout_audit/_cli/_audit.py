"""``readout audit``: the protocols of the seed papers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from rich.console import Console

from readout_audit._cli._common import (
    model_options,
    parse_template_kwargs,
    show_progress,
    user_errors,
)
from readout_audit._cli._score import load_cli_model
from readout_audit._exceptions import InputError
from readout_audit.audit._options import audit_options
from readout_audit.audit._ptrue import audit_ptrue
from readout_audit.data._mc import MCItem, load_mc_items, load_mmlu_csv, load_mmlu_hf
from readout_audit.data._qa import load_qa_items
from readout_audit.prompt._spec import BUILTIN_SPECS, Variant
from readout_audit.prompt._spec_file import SPEC_SUFFIXES, load_spec_file
from readout_audit.report._terminal import print_options_audit, print_ptrue_audit


def _load_mc(source: str, subset: str, split: str, allow_download: bool) -> list[MCItem]:
    """JSONL items, MMLU's CSV layout (a file or folder), or ``hf:<dataset>[@revision]``."""
    if source.startswith("hf:"):
        dataset, _, revision = source[3:].partition("@")
        return load_mmlu_hf(
            dataset, subset, split=split, revision=revision or None, allow_download=allow_download
        )
    path = Path(source)
    if path.is_dir() or path.suffix == ".csv":
        return load_mmlu_csv(path)
    return load_mc_items(path)


@click.group("audit")
def audit_group() -> None:
    """Run an audit protocol of the seed papers on a model."""


@audit_group.command("options")
@click.option(
    "--items",
    "items_source",
    required=True,
    help="Multiple-choice items: JSONL (id, question, choices, answer, note, ...), MMLU CSV "
    "files, or MMLU as hf:<dataset-id-or-dir>[@revision] (e.g. hf:cais/mmlu@<commit>).",
)
@click.option(
    "--subset",
    default="all",
    show_default=True,
    help="Subset (config) of an hf: dataset, e.g. high_school_geography.",
)
@click.option("--split", default="test", show_default=True, help="Split of an hf: dataset.")
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--spec",
    "spec_name",
    default="forecast",
    show_default=True,
    help="The task that quotes the item: forecast, answer, or a TOML/YAML spec file.",
)
@click.option(
    "--variants",
    default=None,
    help="Comma-separated rungs of the prompt ladder (default: all, with a spec file's own).",
)
@click.option("--limit", type=click.IntRange(1), help="Audit only the first N items.")
@click.option(
    "--reader/--no-reader",
    default=None,
    help="Run the note-only reader for the forecast target (default: when every item "
    "has a gold letter and a note or passage).",
)
@click.option(
    "--note-budget",
    default=32,
    show_default=True,
    type=click.IntRange(1),
    help="Word budget of notes written from passages.",
)
@model_options
@user_errors
def options_command(
    items_source: str,
    subset: str,
    split: str,
    out: Path,
    spec_name: str,
    variants: str | None,
    limit: int | None,
    reader: bool | None,
    note_budget: int,
    **options: Any,
) -> None:
    """Constrained-option audit: option mass, argmax, continuation, first tokens, ending, stem."""
    items = _load_mc(items_source, subset, split, options["allow_download"])[:limit]
    if spec_name in BUILTIN_SPECS:
        spec, extra = BUILTIN_SPECS[spec_name], dict[str, Variant]()
    elif Path(spec_name).suffix in SPEC_SUFFIXES:
        spec, extra = load_spec_file(spec_name)
    else:
        raise InputError(
            f"unknown spec {spec_name!r}; expected {', '.join(BUILTIN_SPECS)} or a "
            f"{'/'.join(SPEC_SUFFIXES)} file",
            field="spec",
        )
    chosen = None
    if variants is not None:
        chosen = [v.strip() for v in variants.split(",") if v.strip()]
        if not chosen:
            raise InputError("no variants selected", field="variants")
    model = load_cli_model(options)
    result = audit_options(
        model,
        items,
        spec,
        out,
        variants=chosen,
        extra_variants=extra,
        top_k=options["top_k"],
        greedy_tokens=options["greedy_tokens"],
        template_kwargs=parse_template_kwargs(options["template_kwarg"]),
        reader=reader,
        note_budget=note_budget,
        batch_size=options["batch_size"],
        progress=show_progress(options["progress"]),
    )
    print_options_audit(result.summary, Console())
    click.echo(f"run written to {out}")


@audit_group.command("ptrue")
@click.option(
    "--items",
    "items_path",
    required=True,
    type=click.Path(path_type=Path),
    help="JSONL: id, question, optional instruction, optional answer, gold (letter or aliases).",
)
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path))
@click.option("--limit", type=click.IntRange(1), help="Audit only the first N items.")
@model_options
@user_errors
def ptrue_command(items_path: Path, out: Path, limit: int | None, **options: Any) -> None:
    """P(True) audit: lm-polygraph's PTrue and four repaired readouts, AUROC and PRR."""
    items = load_qa_items(items_path)[:limit]
    model = load_cli_model(options)
    result = audit_ptrue(
        model,
        items,
        out,
        top_k=options["top_k"],
        template_kwargs=parse_template_kwargs(options["template_kwarg"]),
        batch_size=options["batch_size"],
        progress=show_progress(options["progress"]),
    )
    print_ptrue_audit(result.summary, Console())
    click.echo(f"run written to {out}")
