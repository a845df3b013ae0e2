"""``readout judge``: build a frozen inventory (seed 004), run it on judges, analyse, report."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from readout_audit._cli._common import refuse_unused, user_errors
from readout_audit._cli._judge_options import SOURCE_OPTIONS, source_options
from readout_audit._cli._judge_propose import judge_propose_command
from readout_audit._cli._judge_run import judge_analyze_command, judge_run_command
from readout_audit._cli._judge_search import judge_search_command
from readout_audit._cli._registry import register_commands
from readout_audit._cli._report import report_command
from readout_audit._cli._types import SEED
from readout_audit.judge import PAPER_SEED, BuildSettings, build_study
from readout_audit.judge.inventory import SWITCH_ITEMS, SourceSettings, inventory_summary
from readout_audit.judge.protocol import PRESENTATIONS, STUDY_PRESENTATION, make_settings
from readout_audit.judge.studies import STUDIES, get_study


@click.group("judge")
def judge_group() -> None:
    """LLM-judge robustness: presentation and cue experiments as frozen protocols."""


STUDY_OPTIONS = ("items", "preflight_per_dataset", "presentation")
"""The build options only some studies read (``Study.reads``)."""


def _refuse_study_options(study: str, sources: SourceSettings) -> None:
    """Refuse the options the study does not read (a study option, a dataset), or no dataset."""
    chosen = get_study(study)
    for option in STUDY_OPTIONS:
        if option not in chosen.reads:
            readers = ", ".join(s.name for s in STUDIES.values() if option in s.reads)
            refuse_unused((option,), f"by the {study} study: only {readers} read it")
    named = sources.named()
    if named and not chosen.sourced:
        raise click.UsageError(f"the {study} study reads no dataset: drop --{named[0]}")
    if chosen.sourced and not named:
        raise click.UsageError("give --gsm8k, --drop or --halueval (one or more)")


@judge_group.command("build")
@click.option(
    "--study",
    type=click.Choice(list(STUDIES)),
    default="confirmation",
    show_default=True,
    help="confirmation: the presentation study; decomposition: six bridges x two earlier "
    "values under HALL, HALL_R and FINAL3; formatting-pilot: colon placements x two earlier "
    "values; repeat: three passes on a decomposition's sources (--from-inventory); "
    "reference-switch: generated items graded in two reference worlds.",
)
@click.option(
    "--items",
    default=SWITCH_ITEMS,
    show_default=True,
    type=click.IntRange(4),
    help="Generated items of the reference switch (a multiple of 4).",
)
@click.option(
    "--from-inventory",
    "reused",
    type=click.Path(path_type=Path, exists=True, file_okay=False),
    help="The repeat panel: the decomposition inventory whose sources it reuses.",
)
@click.option(
    "--panel",
    "panel",
    multiple=True,
    metavar="DATASET=N",
    help="The repeat panel: sources per dataset, the first in the decomposition's sampling "
    "order [default: drop=56, halueval=24] (repeatable).",
)
@source_options
@click.option(
    "--out",
    required=True,
    type=click.Path(path_type=Path, file_okay=False),
    help="Directory for inventory.jsonl, its manifest and inventory.outcome.json.",
)
@click.option("--seed", default=PAPER_SEED, show_default=True, type=SEED)
@click.option(
    "--per-dataset",
    type=click.IntRange(1),
    help="Sources per dataset [default: the paper's: confirmation 100, decomposition 120, "
    "formatting-pilot 8].",
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
@click.option(
    "--presentation",
    type=click.Choice(list(PRESENTATIONS)),
    help=f"A robustness study's one presentation: sorted (every dictionary's keys sorted) or "
    f"insertion [default: {STUDY_PRESENTATION}; the repeat panel keeps its decomposition's].",
)
@click.option("--force", is_flag=True, help="Overwrite an inventory already in --out.")
@user_errors
def build_command(out: Path, force: bool, **options: Any) -> None:
    """Build a frozen inventory: sources, candidates, presentations, ordered requests.

    The inventory is a stage: a second build into it while one runs is refused; the same build
    again resumes an interrupted one; other settings are refused (listing the differences)
    unless ``--force``. A study that draws fresh sources is refused beside an inventory it
    shares a source or cluster with, unless that one is excluded.
    """
    sources = make_settings(SourceSettings, **{name: options.pop(name) for name in SOURCE_OPTIONS})
    _refuse_study_options(options["study"], sources)
    settings = make_settings(BuildSettings, **options, sources=sources)
    inventory = build_study(settings, out, overwrite=force)
    click.echo("\n".join(inventory_summary(inventory, out)))


judge_group.add_command(judge_run_command)
judge_group.add_command(judge_analyze_command)
judge_group.add_command(report_command)
judge_group.add_command(judge_propose_command)
judge_group.add_command(judge_search_command)


@register_commands
def judge_commands(cli: click.Group) -> None:
    """``readout judge``."""
    cli.add_command(judge_group)
