"""``readout audit recover``: collapsed sequence scores and their label-free recovery (seed 003)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from readout_audit._cli._audit_group import audit_group
from readout_audit._cli._common import greedy_tokens, model_options, user_errors
from readout_audit._cli._limit_plain import limit_option
from readout_audit._cli._registry import register_commands
from readout_audit._cli._score import run_command
from readout_audit._cli._types import SEED, FiniteFloat, Listed, replicates_option
from readout_audit.recover import (
    GENERATED_N,
    GENERATED_TRAIN_N,
    GENERATORS,
    OffsetGrid,
    RecoverSetup,
    configurations_named,
    recover_splits,
    recover_stage,
)


@click.command("recover")
@click.option(
    "--items",
    "items",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Logic items whose metadata names their split (e.g. a generated set), so that --fit, "
    "--eval and --probe-train can name splits in them (repeatable).",
)
@click.option(
    "--fit",
    help="The unlabelled in-domain split the offsets are fitted on (labels are dropped): a split "
    "of --items, a file (Logic-LLM JSON, ProofWriter/FOLIO/ANLI JSONL, item JSONL) or "
    "anli:[DATASET[@REV]:]SPLIT (e.g. anli:dev_r1).",
)
@click.option(
    "--eval",
    "evals",
    multiple=True,
    help="A held-out labelled split, [NAME=]SOURCE as for --fit (repeatable). With --generate: "
    "comma-separated generator splits [id,depth,lexical; also counterfactual], each also as "
    "NAME@SEED, drawn from another generator seed (the paper's stress splits: lexical@52,...).",
)
@click.option(
    "--probe-train",
    help="A labelled split the probes and the bag-of-words baseline train on (SOURCE as for "
    "--fit); without it no probe or TF-IDF control runs.",
)
@click.option(
    "--generate",
    type=click.Choice(sorted(GENERATORS)),
    help="Generate the synthetic deduction splits instead of reading items: controlled-logic "
    "(balanced so that no surface feature tells the label) or paper-logic (seed 003's "
    "Appendix B as printed).",
)
@click.option(
    "--n",
    "n",
    default=GENERATED_N,
    show_default=True,
    type=click.IntRange(3, 100_000),
    help="Generated items per fit and held-out split.",
)
@click.option(
    "--train-n",
    default=GENERATED_TRAIN_N,
    show_default=True,
    type=click.IntRange(3, 100_000),
    help="Generated probe-training items.",
)
@click.option("--generator-seed", default=0, show_default=True, type=SEED)
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--configurations",
    default="main/words",
    show_default=True,
    help="Comma-separated PROMPT/VERBALIZER configurations, the first the main one, or 'all' for "
    "the 20 built-in ones (prompts main, question-first, terse, judge, plain × verbalizers "
    "words, capitalised, abc, abc-options).",
)
@click.option(
    "--variant-items",
    default=300,
    show_default=True,
    type=click.IntRange(1),
    help="Items per split scored under each configuration after the first.",
)
@click.option(
    "--layers",
    type=Listed(int),
    help="Comma-separated hidden-state layers to store and probe "
    "(0 = embeddings, -1 = last) [the middle and the last].",
)
@click.option(
    "--chat/--no-chat",
    default=None,
    help="Render through the chat template [when the tokenizer has one].",
)
@click.option(
    "--prior",
    type=Listed(float),
    help="Target label prior of the offset fit, e.g. 0.4,0.3,0.3 [uniform].",
)
@click.option(
    "--grid",
    type=Listed(float, "LOW,HIGH,STEP"),
    default="-10,10,0.05",
    show_default=True,
    help="Offset grid LOW,HIGH,STEP.",
)
@click.option("--probe-rows", default=2000, show_default=True, type=click.IntRange(10))
@click.option("--probe-seeds", type=Listed(int), default="42,123,456", show_default=True)
@click.option(
    "--collapse-threshold",
    default=0.8,
    show_default=True,
    type=FiniteFloat(0, 1),
    help="Share of one label at which raw string scores count as collapsed.",
)
@click.option(
    "--seed",
    default=0,
    show_default=True,
    type=SEED,
    help="Seed of the permutation null, the bootstraps and the fit-budget subsamples.",
)
@click.option(
    "--max-tokens",
    default=1024,
    show_default=True,
    type=click.IntRange(16),
    help="Token limit of a prompt with its longest candidate (the paper's); a longer item loses "
    "the first words of its context, and its record says how many.",
)
@replicates_option("--n-perm", 10_000, "Permutations of the null")
@replicates_option("--n-boot", 10_000, "Bootstrap replicates")
@limit_option("items of each split (probe training, fit, every held-out split), read or generated")
@model_options
@user_errors
def recover_command(
    items: tuple[Path, ...],
    fit: str | None,
    evals: tuple[str, ...],
    probe_train: str | None,
    generate: str | None,
    n: int,
    train_n: int,
    generator_seed: int,
    out: Path,
    configurations: str,
    variant_items: int,
    layers: tuple[int, ...] | None,
    chat: bool | None,
    prior: tuple[float, ...] | None,
    grid: tuple[float, float, float],
    probe_rows: int,
    probe_seeds: tuple[int, ...],
    collapse_threshold: float,
    seed: int,
    n_perm: int,
    n_boot: int,
    max_tokens: int,
    limit: int | None,
    **options: Any,
) -> None:
    """Collapsed sequence scores: probes, label logits, string scores, label-free offsets."""
    setup = RecoverSetup(
        configurations=configurations_named(configurations),
        variant_items=variant_items,
        layers=layers,
        chat=chat,
        probe_seeds=probe_seeds,
        probe_rows=probe_rows,
        seed=seed,
        n_perm=n_perm,
        n_boot=n_boot,
        grid=OffsetGrid(*grid),
        prior=prior,
        collapse_threshold=collapse_threshold,
        max_tokens=max_tokens,
    )
    splits = recover_splits(
        items=items,
        fit=fit,
        evals=evals,
        probe_train=probe_train,
        generate=generate,
        n=n,
        train_n=train_n,
        seed=generator_seed,
        allow_download=options["allow_download"],
        limit=limit,
    )
    run_command(recover_stage(splits, setup, greedy_tokens(options, 0)), out, options)


@register_commands
def recover_commands(cli: click.Group) -> None:
    """``readout audit recover``."""
    audit_group.add_command(recover_command)
