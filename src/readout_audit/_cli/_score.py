"""``readout score`` and ``readout demo``: read every item's scored position into a run."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.text import Text

from readout_audit._cli._common import (
    check_out,
    greedy_tokens,
    model_options,
    run_options,
    user_errors,
)
from readout_audit._cli._served import served_settings
from readout_audit._util._text import terminal_safe
from readout_audit.data._demo import demo_items
from readout_audit.data._item import Item
from readout_audit.data._jsonl import load_items
from readout_audit.log._run import read_run
from readout_audit.model import open_model
from readout_audit.model._backend import ScoringModel
from readout_audit.model._codec import TextCodec
from readout_audit.model._device import resolve_device
from readout_audit.model._served_spec import is_served
from readout_audit.report._report import print_report
from readout_audit.scoring._audit import prepare, score


def quiet_loading() -> None:
    """Silence the loaders' own progress bars; the CLI shows one status line instead."""
    os.environ.setdefault("TQDM_DISABLE", "1")
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()  # type: ignore[no-untyped-call]


def load_cli_model(
    options: dict[str, Any], preflight: Callable[[TextCodec], None] | None = None
) -> ScoringModel:
    """Open the model named by the common options (:func:`~readout_audit.model.open_model`).

    A local one shows one status line instead of the loaders' bars; a served spec is not
    printed (its URL may hold a password).
    """
    spec = options["model_spec"]
    served = is_served(spec)
    quiet_loading()
    opening = {
        "served": served_settings(options) if served else None,
        "tokenizer": (options["tokenizer"] or None) if served else None,
        "conformance": options["conformance_path"] if served else None,
        "allow_nonconforming": served and options["allow_nonconforming"],
        "allow_download": options["allow_download"],
        "dtype": options["dtype"],
        "device": options["device"],
        "device_map": options["device_map"],
        "trust_remote_code": options["trust_remote_code"],
        "preflight": preflight,
    }
    if served:
        return open_model(spec, **opening)
    resolve_device(options["device"])  # a device this machine lacks fails before loading
    console = Console(stderr=True)
    loading = terminal_safe(f"loading {spec}")
    if not console.is_terminal:
        click.echo(loading, err=True)
    with console.status(Text(loading)):
        return open_model(spec, **opening)


def finish(out: Path, plain: bool = False) -> None:
    """Print the finished run's report (the same one ``readout report`` prints) and its place."""
    print_report(read_run(out), plain=plain)
    click.echo(terminal_safe(f"run written to {out}"))


Preflight = Callable[[TextCodec, dict[str, Any]], None]
"""Checks with the tokenizer alone (codec, run settings), before the weights load."""


def run_with_model(
    kind: str,
    out: Path,
    options: dict[str, Any],
    audit: Callable[[ScoringModel, dict[str, Any]], object],
    preflight: Preflight | None = None,
) -> None:
    """Check ``--out`` and the settings, load the model, run ``audit(model, settings)``, report.

    Everything that needs no model is checked first, and ``preflight`` (items rendered and
    checked against the context window) once the tokenizer is loaded, before the weights.
    """
    check_out(out, kind)
    settings = run_options(options)
    check = None if preflight is None else (lambda codec: preflight(codec, settings))
    audit(load_cli_model(options, check), settings)
    finish(out, options["plain"])


def prepare_all(items: Sequence[Item], greedy_tokens: int) -> Preflight:
    """A preflight that renders every item and checks it against the context window."""

    def check(codec: TextCodec, settings: dict[str, Any]) -> None:
        for item in items:
            prepare(item, codec, settings["template_kwargs"], greedy_tokens)

    return check


def _run(items: Sequence[Item], out: Path, options: dict[str, Any]) -> None:
    greedy = greedy_tokens(options)
    run_with_model(
        "score",
        out,
        options,
        lambda m, s: score(m, items, out, greedy_tokens=greedy, **s),
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
@click.option("--limit", type=click.IntRange(1), help="Score only the first N items.")
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
