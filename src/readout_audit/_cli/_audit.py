"""``readout audit``: the protocols of the seed papers."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import click

from readout_audit._cli._common import greedy_tokens, model_options, user_errors
from readout_audit._cli._score import prepare_all, run_with_model
from readout_audit._exceptions import InputError
from readout_audit._util._jsonl import split_lines
from readout_audit.audit._options import audit_options, ladder_items
from readout_audit.audit._ptrue import audit_ptrue, readout_items
from readout_audit.audit._yesno import (
    DIAGNOSTIC_SAMPLE,
    PARSE_TOKENS,
    YesNoSetup,
    audit_yesno,
    yesno_item,
)
from readout_audit.data._jsonl import read_text
from readout_audit.data._mc import MCItem, load_mc_items, load_mmlu_csv, load_mmlu_hf
from readout_audit.data._qa import Correctness, load_qa_items
from readout_audit.data._yesno import YesNoItem, demo_yesno_items, load_pope, load_yesno_items
from readout_audit.kind._registry import UnknownKindError, audit_kinds, get_kind
from readout_audit.prompt._spec import BUILTIN_RUNGS, BUILTIN_SPECS
from readout_audit.prompt._spec_file import SPEC_SUFFIXES, load_spec_file
from readout_audit.readout._yesno import LLAMA_PAIR, LLAMA_SET, NO_FORMS, YES_FORMS


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


class AuditGroup(click.Group):
    """``readout audit NAME``: one subcommand per registered audit kind that has a command."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [kind.name for kind in audit_kinds() if kind.command is not None]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        try:
            kind = get_kind(cmd_name)
        except UnknownKindError:
            return None
        return kind.command() if kind.command is not None else None


@click.group("audit", cls=AuditGroup)
def audit_group() -> None:
    """Run an audit protocol of the seed papers on a model."""


@click.command("options")
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
        spec, extra = BUILTIN_SPECS[spec_name], dict(BUILTIN_RUNGS[spec_name])
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
    run_with_model(
        "options",
        out,
        options,
        lambda model, settings: audit_options(
            model,
            items,
            spec,
            out,
            variants=chosen,
            extra_variants=extra,
            greedy_tokens=greedy_tokens(options),
            reader=reader,
            note_budget=note_budget,
            **settings,
        ),
        prepare_all(
            [item for item, _ in ladder_items(spec, items, chosen, extra)], greedy_tokens(options)
        ),
    )


@click.command("ptrue")
@click.option(
    "--items",
    "items_path",
    required=True,
    type=click.Path(path_type=Path),
    help="JSONL: id, question, optional instruction, optional answer, gold (letter or aliases).",
)
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path))
@click.option("--limit", type=click.IntRange(1), help="Audit only the first N items.")
@click.option(
    "--correctness",
    type=click.Choice(["paper", "anywhere"]),
    default="paper",
    show_default=True,
    help="paper: the first letter of the item's own set (A-D), or the answer's first line equal "
    "to an alias; anywhere: any capital letter, or an alias anywhere in the answer.",
)
@model_options
@user_errors
def ptrue_command(
    items_path: Path, out: Path, limit: int | None, correctness: str, **options: Any
) -> None:
    """P(True) audit: lm-polygraph's PTrue and four repaired readouts, AUROC and PRR."""
    items = load_qa_items(items_path)[:limit]
    if options["greedy_tokens"] is not None:
        raise click.UsageError(
            "--greedy-tokens does not apply to audit ptrue: each readout reads one token at its "
            "position and generated answers are at most 32 tokens"
        )
    answered = [i for i in items if i.answer is not None]  # others are generated: unknown yet
    readouts = [item for i in answered for item in readout_items(i, i.answer or "").values()]
    run_with_model(
        "ptrue",
        out,
        options,
        lambda m, s: audit_ptrue(m, items, out, correctness=cast(Correctness, correctness), **s),
        prepare_all(readouts, 1),
    )


def _ids(text: str, name: str) -> tuple[int, ...]:
    try:
        ids = tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise InputError(f"expected comma-separated token ids, got {text!r}", field=name) from None
    if not ids:
        raise InputError("no token ids given", field=name)
    return ids


def _legacy(
    pair: str | None, sets: str | None, enabled: bool
) -> tuple[tuple[int, int] | None, tuple[tuple[int, ...], tuple[int, ...]] | None]:
    """The legacy readouts' ids: the flags', else LLaMA-2's ported verbatim, or none."""
    if not enabled:
        return None, None
    legacy_pair = LLAMA_PAIR
    if pair is not None:
        ids = _ids(pair, "legacy-ids")
        if len(ids) != 2:
            raise InputError(f"expected two ids (yes,no), got {len(ids)}", field="legacy-ids")
        legacy_pair = (ids[0], ids[1])
    legacy_set: tuple[tuple[int, ...], tuple[int, ...]] = LLAMA_SET
    if sets is not None:
        yes, sep, no = sets.partition(":")
        if not sep:
            raise InputError(
                "expected YES_IDS:NO_IDS, e.g. 3582,8241:1217,3782", field="legacy-set"
            )
        legacy_set = (_ids(yes, "legacy-set"), _ids(no, "legacy-set"))
    return legacy_pair, legacy_set


def _load_yesno(source: Path | None, images: Path | None) -> list[YesNoItem]:
    """POPE question files (by their fields), generic JSONL, or the built-in demo questions."""
    if source is None:
        return demo_yesno_items()
    first = next((line for line in split_lines(read_text(source)) if line.strip()), "")
    if '"question_id"' in first and '"text"' in first:
        return load_pope(source, images)
    return load_yesno_items(source, images)


@click.command("yesno")
@click.option(
    "--items",
    "items_path",
    type=click.Path(path_type=Path),
    help="JSONL yes/no items (id, question, label, optional image, split) or a POPE question "
    "file (question_id, image, text, label). Default: the built-in demo questions.",
)
@click.option(
    "--images",
    type=click.Path(file_okay=False, path_type=Path),
    help="Image folder for a vision-language model (POPE: COCO val2014).",
)
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path))
@click.option("--limit", type=click.IntRange(1), help="Audit only the first N items.")
@click.option(
    "--legacy-ids",
    help="Legacy two-token readout: YES_ID,NO_ID (default: LLaMA-2's 3582,1217 ported verbatim).",
)
@click.option(
    "--legacy-set",
    help="Legacy fixed-id sets YES_IDS:NO_IDS (default: LLaMA-2's eight ids ported verbatim).",
)
@click.option(
    "--legacy/--no-legacy", default=True, show_default=True, help="Run the legacy readouts."
)
@click.option(
    "--yes-form",
    "yes_forms",
    multiple=True,
    help="Extra yes surface form to derive from the tokenizer (repeatable; quote leading spaces).",
)
@click.option("--no-form", "no_forms", multiple=True, help="Extra no surface form (repeatable).")
@click.option(
    "--instruction", help="Appended to each question on a new line, e.g. 'Answer yes or no.'"
)
@click.option(
    "--diagnostic-sample",
    default=DIAGNOSTIC_SAMPLE,
    show_default=True,
    type=click.IntRange(1),
    help="Questions the new-model diagnostic (Algorithm 1) reads first.",
)
@click.option(
    "--extend-sets",
    is_flag=True,
    help="Add the diagnostic's emitted yes/no tokens that are outside the sets.",
)
@click.option(
    "--seed",
    default=0,
    show_default=True,
    type=int,
    help="Seed of the diagnostic sample and bootstrap.",
)
@model_options
@user_errors
def yesno_command(
    items_path: Path | None,
    images: Path | None,
    out: Path,
    limit: int | None,
    legacy_ids: str | None,
    legacy_set: str | None,
    legacy: bool,
    yes_forms: tuple[str, ...],
    no_forms: tuple[str, ...],
    instruction: str | None,
    diagnostic_sample: int,
    extend_sets: bool,
    seed: int,
    **options: Any,
) -> None:
    """Yes/no audit: tokenizer-derived sets, legacy ids, max-logit and string-parse readouts."""
    items = _load_yesno(items_path, images)[:limit]
    pair, sets = _legacy(legacy_ids, legacy_set, legacy)
    setup = YesNoSetup(
        yes_forms=tuple(dict.fromkeys((*YES_FORMS, *yes_forms))),
        no_forms=tuple(dict.fromkeys((*NO_FORMS, *no_forms))),
        legacy_pair=pair,
        legacy_set=sets,
        instruction=instruction,
    )
    run_with_model(
        "yesno",
        out,
        options,
        lambda model, settings: audit_yesno(
            model,
            items,
            out,
            setup=setup,
            extend_sets=extend_sets,
            diagnostic_sample=diagnostic_sample,
            seed=seed,
            greedy_tokens=greedy_tokens(options, PARSE_TOKENS),
            **settings,
        ),
        prepare_all([yesno_item(i, setup) for i in items], greedy_tokens(options, PARSE_TOKENS)),
    )
