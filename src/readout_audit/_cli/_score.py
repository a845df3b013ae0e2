"""``readout score`` and ``readout demo``: read every item's scored position into a run."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import click

from readout_audit._cli._common import greedy_tokens, model_options, run_options, user_errors
from readout_audit._cli._limit_plain import limit_option
from readout_audit._cli._model import ModelChoice
from readout_audit._cli._registry import register_commands
from readout_audit._cli._types import GivenPath
from readout_audit._util import terminal_safe
from readout_audit.data import Item, demo_items, load_items
from readout_audit.kind import KindSettings, run_stage
from readout_audit.log import read_run
from readout_audit.report import print_report
from readout_audit.scoring import ScoreSettings


def finish(out: Path, plain: bool = False, verbose: bool = False) -> None:
    """Print the finished run's report (the one ``readout report`` prints) and its place.

    ``verbose`` prints every table and check, and the manifest (``readout report --verbose``).
    """
    print_report(read_run(out), plain=plain, verbose=verbose)
    click.echo(terminal_safe(f"run written to {out}"))


def run_command(settings: KindSettings, out: Path, options: Mapping[str, Any]) -> None:
    """:func:`~readout_audit.kind.run_stage` on the shared options' settings and model; report."""
    run_stage(settings, out, model=ModelChoice.from_options(options), run=run_options(options))
    finish(out, options["plain"], options["verbose"])


def _run(items: Sequence[Item], out: Path, options: Mapping[str, Any]) -> None:
    run_command(
        ScoreSettings(items=tuple(items), greedy_tokens=greedy_tokens(options)), out, options
    )


@click.command("score")
@click.option(
    "--items",
    "items_path",
    required=True,
    type=GivenPath(path_type=Path),
    help="JSONL file, one item per line.",
)
@click.option(
    "--out",
    required=True,
    type=GivenPath(file_okay=False, path_type=Path),
    help="Run directory (resumed if it exists with the same configuration).",
)
@limit_option("items")
@model_options
@user_errors
def score_command(items_path: Path, out: Path, limit: int | None, **options: Any) -> None:
    """Score every item's declared options at its scored position."""
    _run(load_items(items_path)[:limit], out, options)


@click.command("demo")
@click.option(
    "--out",
    default=Path("runs/demo"),
    show_default=True,
    type=GivenPath(file_okay=False, path_type=Path),
)
@model_options
@user_errors
def demo_command(out: Path, **options: Any) -> None:
    """Score the built-in demo items, which show each readout failure, and print a summary."""
    _run(demo_items(), out, options)


@register_commands
def score_commands(cli: click.Group) -> None:
    """``readout score`` and ``readout demo``."""
    cli.add_command(score_command)
    cli.add_command(demo_command)
