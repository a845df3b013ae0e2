"""``readout score`` and ``readout demo``: read every item's scored position into a run."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click

from readout_audit._cli._common import (
    RunSettings,
    check_out,
    greedy_tokens,
    model_options,
    run_options,
    user_errors,
)
from readout_audit._cli._limit_plain import limit_option
from readout_audit._cli._model import ModelChoice
from readout_audit._cli._registry import register_commands
from readout_audit._util._text import terminal_safe
from readout_audit.data._demo import demo_items
from readout_audit.data._item import Item
from readout_audit.data._jsonl import load_items
from readout_audit.log._run import read_run
from readout_audit.model._backend import ScoringModel
from readout_audit.model._codec import TextCodec
from readout_audit.report._report import print_report
from readout_audit.scoring._audit import prepare, score


def finish(out: Path, plain: bool = False, verbose: bool = False) -> None:
    """Print the finished run's report (the one ``readout report`` prints) and its place.

    ``verbose`` prints every table and check, and the manifest (``readout report --verbose``).
    """
    print_report(read_run(out), plain=plain, verbose=verbose)
    click.echo(terminal_safe(f"run written to {out}"))


Preflight = Callable[[TextCodec, RunSettings], None]
"""Checks with the tokenizer alone (codec, run settings), before the weights load."""


def run_with_model(
    kind: str,
    out: Path,
    options: dict[str, Any],
    audit: Callable[[ScoringModel, RunSettings], object],
    preflight: Preflight | None = None,
) -> None:
    """Check ``--out`` and the settings, load the model, run ``audit(model, settings)``, report.

    Everything that needs no model is checked first, and ``preflight`` (items rendered and
    checked against the context window) once the tokenizer is loaded, before the weights.
    """
    check_out(out, kind)
    settings = run_options(options)
    check = None if preflight is None else (lambda codec: preflight(codec, settings))
    audit(ModelChoice.from_options(options).open(check), settings)
    finish(out, options["plain"], options["verbose"])


def prepare_all(items: Sequence[Item], greedy_tokens: int) -> Preflight:
    """A preflight that renders every item and checks it against the context window."""

    def check(codec: TextCodec, settings: RunSettings) -> None:
        for item in items:
            prepare(item, codec, settings.template_kwargs, greedy_tokens)

    return check


def _run(items: Sequence[Item], out: Path, options: dict[str, Any]) -> None:
    greedy = greedy_tokens(options)
    run_with_model(
        "score",
        out,
        options,
        lambda m, s: score(m, items, out, greedy_tokens=greedy, **s.kwargs()),
        prepare_all(items, greedy),
    )


@click.command("score")
@click.option(
    "--items",
    "items_path",
    required=True,
    type=click.Path(path_type=Path),
    help="JSONL file, one item per line.",
)
@click.option(
    "--out",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
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
    type=click.Path(file_okay=False, path_type=Path),
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
