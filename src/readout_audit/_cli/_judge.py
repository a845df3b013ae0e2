"""``readout judge``: build a frozen inventory (seed 004), run it on judges, analyse, report."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from readout_audit._cli._common import user_errors
from readout_audit._cli._judge_options import load_banks, require_sources, source_options
from readout_audit._cli._judge_propose import judge_propose_command
from readout_audit._cli._judge_run import judge_analyze_command, judge_run_command
from readout_audit._cli._judge_search import judge_search_command
from readout_audit._cli._registry import register_commands
from readout_audit._cli._report import report_command
from readout_audit._cli._types import SEED
from readout_audit._exceptions import InputError
from readout_audit.judge import (
    INVENTORY_FILE,
    PAPER_SEED,
    SWITCH_ITEMS,
    SWITCH_STUDY,
    Inventory,
    build_inventory,
    build_switch_inventory,
    parse_configuration,
    read_planned,
    write_inventory,
)

CONFIRMATION_STUDY = "confirmation"
"""The protocol's own study: sources from GSM8K and DROP, two presentations."""


@click.group("judge")
def judge_group() -> None:
    """LLM-judge robustness: presentation and cue experiments as frozen protocols."""


def _summary(inventory: Inventory) -> str:
    manifest = inventory.manifest
    lines = []
    for bank in manifest.banks:
        skipped = ", ".join(f"{k} {v}" for k, v in bank.skipped.items()) or "none"
        excluded = ", ".join(f"{k} {v}" for k, v in manifest.exclusions[bank.dataset].items() if v)
        lines.append(
            f"{bank.dataset}: {bank.rows} rows, {bank.sources} sources (skipped: {skipped}; "
            f"excluded: {excluded or 'none'})"
        )
    counts = manifest.counts
    for phase, n in counts["sources"].items():
        lines.append(
            f"{phase}: {n} sources x {counts['per_source'][phase]} calls x "
            f"{len(manifest.configurations)} configurations = {counts['requests'][phase]} requests"
        )
    lines.append(
        "per configuration: " + ", ".join(f"{k} {v}" for k, v in counts["configurations"].items())
    )
    return "\n".join(lines)


def _response_formats(texts: tuple[str, ...], names: list[str]) -> dict[str, str]:
    """``NAME=FORM`` options by configuration name; each names a configuration, once."""
    forms: dict[str, str] = {}
    for text in texts:
        name, eq, form = text.partition("=")
        if not eq or not name or not form:
            raise InputError(f"expected NAME=FORM, got {text!r}", field="response-format")
        if name not in names:
            raise InputError(f"{name!r} names no --configuration", field="response-format")
        if name in forms:
            raise InputError(f"{name!r} is given twice", field="response-format")
        forms[name] = form
    return forms


@judge_group.command("build")
@click.option(
    "--study",
    type=click.Choice([CONFIRMATION_STUDY, SWITCH_STUDY]),
    default=CONFIRMATION_STUDY,
    show_default=True,
    help="confirmation: the presentation study on --gsm8k/--drop sources; reference-switch: "
    "generated items graded against two reference worlds (Section 6), no sources read.",
)
@click.option(
    "--items",
    default=SWITCH_ITEMS,
    show_default=True,
    type=click.IntRange(4),
    help="Generated items of the reference switch (a multiple of 4).",
)
@source_options
@click.option(
    "--out",
    required=True,
    type=click.Path(path_type=Path, file_okay=False),
    help="Directory for inventory.jsonl and inventory.manifest.json.",
)
@click.option("--seed", default=PAPER_SEED, show_default=True, type=SEED)
@click.option(
    "--per-dataset",
    default=100,
    show_default=True,
    type=click.IntRange(1),
    help="Confirmation sources per dataset.",
)
@click.option(
    "--preflight-per-dataset",
    default=10,
    show_default=True,
    type=click.IntRange(0),
    help="Preflight sources per dataset (disjoint from the confirmation sources).",
)
@click.option(
    "--configuration",
    "configurations",
    multiple=True,
    required=True,
    metavar="NAME=CONTRACT@JUDGE",
    help="A judge and its contract (FINAL3, FINAL4, HALL, HALL_R), e.g. "
    "local3=FINAL3@smollm2-135m or served=FINAL4@openai:http://127.0.0.1:8080/v1#smollm2 "
    "(repeatable).",
)
@click.option(
    "--response-format",
    "response_formats",
    multiple=True,
    metavar="NAME=FORM",
    help="How configuration NAME's bodies ask for structured output: json_schema (OpenAI, "
    "vLLM, SGLang; the default), json_object (llama-cpp-python) or none (the label read from "
    "the text) (repeatable).",
)
@click.option(
    "--bootstrap-seed",
    type=SEED,
    help="The first configuration's bootstrap seed; the others count up from it [default: --seed].",
)
@click.option("--force", is_flag=True, help="Overwrite an inventory already in --out.")
@user_errors
def build_command(
    study: str,
    items: int,
    out: Path,
    seed: int,
    per_dataset: int,
    preflight_per_dataset: int,
    configurations: tuple[str, ...],
    response_formats: tuple[str, ...],
    bootstrap_seed: int | None,
    force: bool,
    **sources: Any,
) -> None:
    """Build a frozen inventory: sources, candidates, both presentations, ordered requests."""
    if study == SWITCH_STUDY:
        named = [name for name in ("gsm8k", "drop") if sources[name] is not None]
        if named:
            raise click.UsageError(f"the reference switch generates its items: drop --{named[0]}")
    else:
        require_sources(sources)
    if (out / INVENTORY_FILE).exists() and not force:
        raise InputError("holds an inventory; pass --force to overwrite it", source=str(out))
    first_seed = seed if bootstrap_seed is None else bootstrap_seed
    forms = _response_formats(response_formats, [text.partition("=")[0] for text in configurations])
    parsed = [
        parse_configuration(text, first_seed + i, forms.get(text.partition("=")[0], "json_schema"))
        for i, text in enumerate(configurations)
    ]
    if study == SWITCH_STUDY:
        inventory = build_switch_inventory(parsed, seed=seed, items=items)
    else:
        inventory = build_inventory(
            load_banks(sources),
            parsed,
            seed=seed,
            per_dataset=per_dataset,
            preflight_per_dataset=preflight_per_dataset,
            priors=[read_planned(path) for path in sources["exclude"]],
        )
    write_inventory(out, inventory)
    click.echo(_summary(inventory))
    click.echo(f"wrote {len(inventory.requests)} requests to {out / INVENTORY_FILE}")


judge_group.add_command(judge_run_command)
judge_group.add_command(judge_analyze_command)
judge_group.add_command(report_command)
judge_group.add_command(judge_propose_command)
judge_group.add_command(judge_search_command)


@register_commands
def judge_commands(cli: click.Group) -> None:
    """``readout judge``."""
    cli.add_command(judge_group)
