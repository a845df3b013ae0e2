"""``readout audit``: the protocols of the seed papers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from readout_audit._cli._audit_group import audit_group
from readout_audit._cli._common import greedy_tokens, model_options, refuse_unused, user_errors
from readout_audit._cli._limit_plain import limit_option
from readout_audit._cli._registry import register_commands
from readout_audit._cli._score import run_command
from readout_audit._cli._types import SEED, IdSets, Listed, SpecType
from readout_audit._cli._warn import warn
from readout_audit.data import (
    LIBRARY_SHOTS,
    Correctness,
    load_mc_source,
    load_yesno_source,
    read_qa_source,
)
from readout_audit.model import is_served
from readout_audit.options import VERDICT_RUNGS, options_stage
from readout_audit.prompt import SpecFile
from readout_audit.ptrue import LIBRARY_SEED, AnswerMode, PromptMode, ptrue_stage
from readout_audit.readout import LLAMA_PAIR, LLAMA_SET, NO_FORMS, YES_FORMS, ParseRule
from readout_audit.yesno import DIAGNOSTIC_SAMPLE, PARSE_TOKENS, YesNoSetup, yesno_stage


@click.command("options")
@click.option(
    "--items",
    "items_source",
    required=True,
    help="Multiple-choice items: JSONL (id, question, choices, answer, note, ...), MMLU CSV "
    "files, MMLU as hf:<dataset-id-or-dir>[@revision] (e.g. hf:cais/mmlu@<commit>), or the "
    "paper's shuffled RACE-H list as race:<dataset-id-or-dir>[@revision] (e.g. race:ehovy/race; "
    "the paper's revision unless given).",
)
@click.option(
    "--subset",
    help="Subset (config) of an hf: or race: dataset [hf: all, race: high], e.g. "
    "high_school_geography.",
)
@click.option("--split", help="Split of an hf: dataset [test]; race: reads all three in turn.")
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--spec",
    "spec_file",
    type=SpecType(),
    default="forecast",
    show_default=True,
    help="The task that quotes the item: forecast, answer, or a TOML/YAML spec file.",
)
@click.option(
    "--variants",
    type=Listed(),
    default=None,
    help="Comma-separated rungs of the prompt ladder, or quick: the rungs the checks read "
    "(production, stem, space_appended). Default: all: the generic ladder, the forecast spec's "
    "conditions fixed_note, A1, A2, T1, T2 with their stems, a spec file's own.",
)
@limit_option("items")
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
    subset: str | None,
    split: str | None,
    out: Path,
    spec_file: SpecFile,
    variants: tuple[str, ...] | None,
    limit: int | None,
    reader: bool | None,
    note_budget: int,
    **options: Any,
) -> None:
    """Constrained-option audit: option mass, argmax, continuation, first tokens, ending, stem."""
    allow = options["allow_download"]
    items = load_mc_source(items_source, subset, split, allow_download=allow)[:limit]
    warn(*spec_file.warnings)
    stage = options_stage(
        items,
        spec_file.spec,
        variants=list(VERDICT_RUNGS) if variants == ("quick",) else variants,
        extra_variants=spec_file.variants,
        greedy_tokens=greedy_tokens(options),
        reader=reader,
        note_budget=note_budget,
    )
    run_command(stage, out, options)


@click.command("ptrue")
@click.option(
    "--items",
    "items_source",
    required=True,
    help="JSONL (id, question, optional instruction, optional answer, gold letter or aliases), "
    "or MMLU (CSV file or folder, or hf:<dataset>[@revision]) quoted as lm-polygraph's "
    "simple_instruct configuration quotes it.",
)
@click.option(
    "--shots-from",
    default=None,
    help="MMLU dev rows for the examples (CSV file or folder, or hf:...; an hf: --items reads "
    "its own dev split).",
)
@click.option(
    "--shots",
    default=LIBRARY_SHOTS,
    show_default=True,
    type=click.IntRange(0),
    help="Examples per MMLU subject (lm-polygraph's 5).",
)
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path))
@limit_option("items")
@click.option(
    "--correctness",
    type=click.Choice(["paper", "anywhere"]),
    default="paper",
    show_default=True,
    help="paper: the first letter of the item's own set (A-D), or the answer's first line equal "
    "to an alias; anywhere: any capital letter, or an alias anywhere in the answer.",
)
@click.option(
    "--answers",
    type=click.Choice(["library", "sample", "greedy"]),
    default="library",
    show_default=True,
    help="Answer step for items without an answer: lm-polygraph's (the checkpoint's generation "
    "config, at least 2 and at most 3 (letter) or 20 new tokens, stop at a newline), the same "
    "with sampling forced on, or greedy up to 32 tokens.",
)
@click.option(
    "--prompt-mode",
    type=click.Choice(["chat", "raw"]),
    default="chat",
    show_default=True,
    help="chat: one user message through the chat template (lm-polygraph's instruct mode, the "
    "paper's runs); raw: the text alone (the library's default).",
)
@click.option(
    "--seed",
    default=LIBRARY_SEED,
    show_default=True,
    type=SEED,
    help="Seed of sampled answers (each item's seed derives from it and the item id).",
)
@model_options
@user_errors
def ptrue_command(
    items_source: str,
    shots_from: str | None,
    shots: int,
    out: Path,
    limit: int | None,
    correctness: Correctness,
    answers: AnswerMode,
    prompt_mode: PromptMode,
    seed: int,
    **options: Any,
) -> None:
    """P(True) audit: lm-polygraph's PTrue and five other readouts, AUROC and PRR."""
    if options["greedy_tokens"] is not None:
        raise click.UsageError(
            "--greedy-tokens does not apply to audit ptrue: each readout reads one token at its "
            "position and --answers sets the answer step"
        )
    allow = options["allow_download"]
    source = read_qa_source(
        items_source, shots_from=shots_from, shots=shots, allow_download=allow, limit=limit
    )
    warn(*source.warnings)
    stage = ptrue_stage(
        source.items, correctness=correctness, answers=answers, prompt_mode=prompt_mode, seed=seed
    )
    run_command(stage, out, options)


def _legacy(
    pair: tuple[int, int] | None, sets: tuple[tuple[int, ...], tuple[int, ...]] | None, on: bool
) -> tuple[tuple[int, int] | None, tuple[tuple[int, ...], tuple[int, ...]] | None]:
    """The legacy readouts' ids: the flags', else LLaMA-2's ported verbatim, or none."""
    if not on:
        refuse_unused(("legacy_ids", "legacy_set"), "with --no-legacy")
        return None, None
    return pair or LLAMA_PAIR, sets or LLAMA_SET


@click.command("yesno")
@click.option(
    "--items",
    "items_path",
    type=click.Path(path_type=Path),
    help="JSONL yes/no items (id, question, label, optional prompt, image, split; a prompt is "
    "used verbatim instead of the chat template) or a POPE question file (question_id, image, "
    "text, label). Default: the built-in demo questions.",
)
@click.option(
    "--images",
    type=click.Path(file_okay=False, path_type=Path),
    help="Image folder for a vision-language model (POPE: COCO val2014).",
)
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path))
@limit_option("items")
@click.option(
    "--legacy-ids",
    type=Listed(int, "YES_ID,NO_ID"),
    help="Legacy two-token readout: YES_ID,NO_ID (default: LLaMA-2's 3582,1217 ported verbatim).",
)
@click.option(
    "--legacy-set",
    type=IdSets(),
    help="Legacy fixed-id sets YES_IDS:NO_IDS (default: LLaMA-2's eight ids ported verbatim).",
)
@click.option(
    "--legacy/--no-legacy", default=True, show_default=True, help="Run the legacy readouts."
)
@click.option(
    "--yes-form",
    "yes_forms",
    multiple=True,
    help="Extra yes surface form to derive from the tokenizer, beside Listing 1's yes, Yes, "
    "' yes', ' Yes' (repeatable; quote leading spaces).",
)
@click.option("--no-form", "no_forms", multiple=True, help="Extra no surface form (repeatable).")
@click.option(
    "--in-context-sets",
    is_flag=True,
    help="Also read dynamic_in_context: the forms plus YES/NO variants encoded after the "
    "rendered prompt, compared with Listing 1's sets in the summary.",
)
@click.option(
    "--instruction", help="Appended to each question on a new line, e.g. 'Answer yes or no.'"
)
@click.option(
    "--parse-rule",
    type=click.Choice(["substring", "word"]),
    default="substring",
    show_default=True,
    help="string_parse: the first yes/no substring of the decoded text (the paper's; 'Nothing' "
    "reads no) or the first standalone yes/no word.",
)
@click.option(
    "--diagnostic-sample",
    default=DIAGNOSTIC_SAMPLE,
    show_default=True,
    type=click.IntRange(1),
    help="Questions the new-model diagnostic (Algorithm 1) reads first.",
)
@click.option(
    "--extend-sets/--no-extend-sets",
    default=True,
    show_default=True,
    help="Add the diagnostic's emitted yes/no tokens missing from the legacy Y and N "
    "(Algorithm 1, line 8), read as the algorithm1 readout.",
)
@click.option(
    "--seed",
    default=0,
    show_default=True,
    type=SEED,
    help="Seed of the diagnostic sample and bootstrap.",
)
@model_options
@user_errors
def yesno_command(
    items_path: Path | None,
    images: Path | None,
    out: Path,
    limit: int | None,
    legacy_ids: tuple[int, int] | None,
    legacy_set: tuple[tuple[int, ...], tuple[int, ...]] | None,
    legacy: bool,
    yes_forms: tuple[str, ...],
    no_forms: tuple[str, ...],
    in_context_sets: bool,
    instruction: str | None,
    parse_rule: ParseRule,
    diagnostic_sample: int,
    extend_sets: bool,
    seed: int,
    **options: Any,
) -> None:
    """Yes/no audit: Listing 1's sets, legacy ids and Algorithm 1, max-logit and string parse."""
    spec = options["model_spec"]
    if items_path is None:
        refuse_unused(("images",), "without --items: the demo questions have no images")
    if is_served(spec):
        refuse_unused(("images",), f"by a served model ({spec}), which reads text only")
    pair, sets = _legacy(legacy_ids, legacy_set, legacy)
    setup = YesNoSetup(
        yes_forms=tuple(dict.fromkeys((*YES_FORMS, *yes_forms))),
        no_forms=tuple(dict.fromkeys((*NO_FORMS, *no_forms))),
        in_context=in_context_sets,
        legacy_pair=pair,
        legacy_set=sets,
        instruction=instruction,
        parse_rule=parse_rule,
    )
    stage = yesno_stage(
        load_yesno_source(items_path, images)[:limit],
        setup,
        images=images is not None,
        extend_sets=extend_sets,
        diagnostic_sample=diagnostic_sample,
        seed=seed,
        greedy_tokens=greedy_tokens(options, PARSE_TOKENS),
    )
    run_command(stage, out, options)


@register_commands
def audit_commands(cli: click.Group) -> None:
    """``readout audit options``, ``ptrue`` and ``yesno``."""
    for command in (options_command, ptrue_command, yesno_command):
        audit_group.add_command(command)
