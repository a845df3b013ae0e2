"""``readout judge``: build a frozen inventory (seed 004), run it on judges, analyse, report."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from readout_audit._cli._common import (
    force_option,
    local_model_options,
    refuse_unused,
    user_errors,
)
from readout_audit._cli._fields import settings_from, settings_options
from readout_audit._cli._judge_options import SOURCE_TYPES
from readout_audit._cli._judge_run import judge_analyze_command, judge_run_command
from readout_audit._cli._judge_search import judge_search_command
from readout_audit._cli._model import ModelChoice
from readout_audit._cli._registry import register_commands
from readout_audit._cli._report import report_command
from readout_audit._cli._types import GivenPath
from readout_audit.judge import BeamSettings, BuildSettings, build_study
from readout_audit.judge.inventory import inventory_summary
from readout_audit.judge.search import propose_to_file
from readout_audit.judge.studies import STUDIES

_BUILD_TYPES = {
    **SOURCE_TYPES,
    "reused": GivenPath(path_type=Path, exists=True, file_okay=False),
}


@click.group("judge")
def judge_group() -> None:
    """LLM-judge robustness: presentation and cue experiments as frozen protocols."""


def _refuse_study_options(study: str) -> None:
    """Refuse a build option the study does not read (``Study.reads``)."""
    for option in ("items", "preflight_per_dataset", "presentation"):
        if option not in STUDIES[study].reads:
            readers = ", ".join(s.name for s in STUDIES.values() if option in s.reads)
            refuse_unused((option,), f"by the {study} study: only {readers} read it")


@judge_group.command("build")
@settings_options(BuildSettings, types_=_BUILD_TYPES)
@click.option(
    "--out",
    required=True,
    type=GivenPath(path_type=Path, file_okay=False),
    help="Directory for inventory.jsonl, its manifest and inventory.outcome.json.",
)
@click.option("--force", is_flag=True, help="Overwrite an inventory already in --out.")
@user_errors
def build_command(out: Path, force: bool, **given: Any) -> None:
    """Build a frozen inventory: sources, candidates, presentations, ordered requests.

    The inventory is a stage: a second build into it while one runs is refused; the same build
    again resumes an interrupted one; other settings are refused (listing the differences)
    unless --force. A study that draws fresh sources is refused beside an inventory it shares
    a source or cluster with, unless that one is excluded.
    """
    _refuse_study_options(given["study"])
    inventory = build_study(settings_from(BuildSettings, given), out, overwrite=force)
    click.echo("\n".join(inventory_summary(inventory, out)))


@judge_group.command("propose")
@click.option(
    "--out", required=True, type=GivenPath(path_type=Path, dir_okay=False), help="JSON file."
)
@local_model_options("The local model whose beam proposes.")
@settings_options(BeamSettings)
@force_option
@user_errors
def judge_propose_command(
    out: Path, model_spec: str, device: str, force: bool, **given: Any
) -> None:
    """Propose bridge strings with a local model (the seed's beam, archive and retention).

    Each context's archive is kept as it completes: the same command again resumes.
    """
    opener = settings_from(ModelChoice, {"model_spec": model_spec, "device": device}).open
    archive, kept = propose_to_file(out, settings_from(BeamSettings, given), opener, force=force)
    click.echo(f"archived {len(archive)} strings, retained {len(kept)}; written to {out}")
    for proposal in kept[:10]:
        click.echo(f"  {proposal.logprob:8.3f}  {proposal.text!r}")


judge_group.add_command(judge_run_command)
judge_group.add_command(judge_analyze_command)
judge_group.add_command(report_command)
judge_group.add_command(judge_search_command)


@register_commands
def judge_commands(cli: click.Group) -> None:
    """``readout judge``."""
    cli.add_command(judge_group)
