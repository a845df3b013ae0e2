"""``readout judge run|analyze``: one phase of an inventory on its judge, and the joint analysis."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from readout_audit._cli._common import check_out, user_errors
from readout_audit._cli._score import finish, load_cli_model
from readout_audit._exceptions import InputError
from readout_audit.judge._combine import combine_runs
from readout_audit.judge._inventory_file import read_inventory
from readout_audit.judge._run import chosen_configurations, run_local_judge, run_served_judge
from readout_audit.kind._progress import progress_mode
from readout_audit.model._device import DTYPES
from readout_audit.model._served import api_headers
from readout_audit.model._served_spec import is_served, parse_served_spec
from readout_audit.serve import CostCap, Endpoint


@click.command("run")
@click.argument("inventory", type=click.Path(path_type=Path, file_okay=False, exists=True))
@click.option("--out", required=True, type=click.Path(path_type=Path), help="Run directory.")
@click.option(
    "--phase",
    type=click.Choice(["preflight", "confirmation"]),
    required=True,
    help="Preflight first; confirmation runs the configurations whose preflight gates passed.",
)
@click.option(
    "--configuration",
    "configurations",
    multiple=True,
    metavar="NAME",
    help="Configurations to run (repeatable; default all). One run drives one judge.",
)
@click.option(
    "--unqualified",
    is_flag=True,
    help="Confirm without (or despite) preflight: recorded, and the analysis still gates.",
)
@click.option("--device", default="auto", show_default=True, help="A local judge's device.")
@click.option("--dtype", type=click.Choice(list(DTYPES)), default="auto", show_default=True)
@click.option("--allow-download", is_flag=True, help="Let hf: judges download from the Hub.")
@click.option("--batch-size", default=8, show_default=True, type=click.IntRange(1))
@click.option(
    "--concurrency",
    default=4,
    show_default=True,
    type=click.IntRange(1),
    help="A served judge's requests in flight per endpoint.",
)
@click.option(
    "--starts-per-s",
    type=click.FloatRange(min=0, min_open=True),
    help="A served judge's request starts per second per endpoint (default unpaced).",
)
@click.option(
    "--request-timeout",
    default=120.0,
    show_default=True,
    type=click.FloatRange(min=0, min_open=True),
    help="Seconds before a sent request's outcome counts as unknown (never resent).",
)
@click.option("--api-key-env", metavar="NAME", help="Environment variable holding the API key.")
@click.option(
    "--endpoint",
    multiple=True,
    metavar="URL",
    help="Send a served judge's requests here instead of the inventory's URLs (the model name "
    "and the bodies stay as planned); repeatable, one pool each.",
)
@click.option(
    "--max-spend-tokens",
    type=click.IntRange(1),
    help="Cap on a served judge's prompt + completion tokens over the run's ledger.",
)
@click.option("--plain", is_flag=True, help="No colour, ASCII borders: for logs and pipes.")
@click.option("--progress/--no-progress", default=None, help="Progress on stderr.")
@user_errors
def judge_run_command(
    inventory: Path,
    out: Path,
    phase: str,
    configurations: tuple[str, ...],
    unqualified: bool,
    batch_size: int,
    concurrency: int,
    starts_per_s: float | None,
    request_timeout: float,
    max_spend_tokens: int | None,
    endpoint: tuple[str, ...],
    plain: bool,
    progress: bool | None,
    **options: Any,
) -> None:
    """Run one phase of a frozen inventory on its judge; a rerun resumes where it stopped."""
    chosen = chosen_configurations(read_inventory(inventory), configurations)
    judge = chosen[0].judge
    check_out(out, "judge")
    common: dict[str, Any] = {
        "phase": phase,
        "configurations": configurations,
        "unqualified": unqualified,
        "progress": progress_mode(progress),
    }
    if is_served(judge):
        headers = api_headers(options["api_key_env"])
        endpoints = [
            Endpoint(url, concurrency, starts_per_s, request_timeout, headers)
            for url in endpoint or parse_served_spec(judge).base_urls
        ]
        cap = None if max_spend_tokens is None else CostCap(max_tokens=max_spend_tokens)
        _, plan = run_served_judge(inventory, out, endpoints, cap=cap, **common)
    else:
        model = load_cli_model(
            {**options, "model_spec": judge, "device_map": None, "trust_remote_code": False}
        )
        _, plan = run_local_judge(model, inventory, out, batch_size=batch_size, **common)
    for name in plan.skipped:
        click.echo(f"{name}: preflight gates failed, not confirmed (p = 1 in the family)")
    finish(out, plain)


@click.command("analyze")
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path, exists=True))
@click.option(
    "--out", required=True, type=click.Path(path_type=Path), help="The joint run directory."
)
@click.option("--plain", is_flag=True, help="No colour, ASCII borders: for logs and pipes.")
@user_errors
def judge_analyze_command(runs: tuple[Path, ...], out: Path, plain: bool) -> None:
    """Analyse several judges' runs of one inventory as one family, from their files alone."""
    if out.exists() and any(out.iterdir()):
        raise InputError("is not empty: choose a new directory", source=str(out), field="out")
    combine_runs(runs, out)
    finish(out, plain)
