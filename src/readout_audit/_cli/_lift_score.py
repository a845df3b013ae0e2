"""``readout lift score|toy|report``: score forecasts against their controls, and read the run."""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path
from typing import Any

import click

from readout_audit._cli._common import (
    check_out,
    model_options,
    refuse_unused,
    run_options,
    user_errors,
)
from readout_audit._cli._limit_plain import limit_option
from readout_audit._cli._model import ModelChoice
from readout_audit._cli._score import finish
from readout_audit._cli._types import SEED
from readout_audit._exceptions import InputError
from readout_audit.lift import (
    LIFT,
    LiftScoreRun,
    build_settings,
    score_cut_file,
    toy_check,
    toy_rows,
)
from readout_audit.model import is_served


@click.command("score")
@click.option(
    "--cuts",
    "cuts_path",
    required=True,
    type=click.Path(path_type=Path, dir_okay=False),
    help="The cut file (from readout lift cut).",
)
@click.option(
    "--forecasts",
    "forecast_paths",
    multiple=True,
    type=click.Path(path_type=Path, dir_okay=False),
    help="Forecast files (from readout lift predict, or cut_id/setting/z lines); repeatable.",
)
@click.option("--setting", help="The setting of forecast lines that name none.")
@click.option("--out", required=True, type=click.Path(path_type=Path), help="Run directory.")
@click.option(
    "--multipliers",
    default="1,3",
    show_default=True,
    help="Recent-context controls as multiples of B = |Y| + 40 (equation cuts).",
)
@click.option("--no-oracle", is_flag=True, help="Skip the true-suffix condition.")
@click.option(
    "--bos",
    is_flag=True,
    help="Open every scorer prompt with the tokenizer's BOS token (needed by servers that "
    "misread echoed log-probs of prompts without it, such as llama-cpp-python on SmolLM2).",
)
@click.option("--no-toy", is_flag=True, help="Skip appendix A's toy check on the scorer.")
@click.option(
    "--seed", default=0, show_default=True, type=SEED, help="Seeds the report's example cuts."
)
@click.option(
    "--contrast",
    "contrasts",
    multiple=True,
    metavar="A,B",
    help="A setting contrast A − B (repeatable), e.g. within each model family; default: each "
    "setting against the next, in the order the forecasts were given.",
)
@click.option(
    "--sft",
    "sft_dir",
    type=click.Path(path_type=Path, file_okay=False),
    help="A finished `readout lift sft` directory: its fine-tuned scorer reads the SFT rung "
    "(the recent-context prompt) on the cuts of its held-out papers.",
)
@click.option(
    "--hardest-by",
    metavar="SETTING",
    help="Section 9's heuristic: compare the settings on the fifth of cuts where this "
    "setting's lift is lowest (default: the last setting given).",
)
@limit_option("cuts of the cut file (and only their forecasts)")
@model_options
@user_errors
def lift_score_command(
    cuts_path: Path,
    forecast_paths: tuple[Path, ...],
    setting: str | None,
    out: Path,
    multipliers: str,
    no_oracle: bool,
    bos: bool,
    no_toy: bool,
    seed: int,
    contrasts: tuple[str, ...],
    sft_dir: Path | None,
    hardest_by: str | None,
    limit: int | None,
    **options: Any,
) -> None:
    """Score each cut's true target under every condition, then report the lift.

    The conditions: the empty scaffold, recent context (B and 3B characters), the SFT rung
    (with --sft), each forecast and the oracle (the true suffix in the scaffold).
    """
    settings = run_options(options)
    run = build_settings(
        LiftScoreRun, cuts=cuts_path, forecasts=forecast_paths, setting=setting, limit=limit,
        multipliers=multipliers, oracle=not no_oracle, bos=bos, toy=not no_toy, seed=seed,
        contrasts=contrasts, sft=sft_dir, hardest_by=hardest_by,
        batch_size=settings.batch_size, progress=settings.progress, overwrite=settings.overwrite,
    )  # fmt: skip
    check_out(out, LIFT.name)
    score_cut_file(run, out, ModelChoice.from_options(options))
    finish(out, options["plain"], options["verbose"])


@click.command("toy")
@click.option(
    "--ledger",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where a served scorer's requests are kept (required for one; SQLite, resumable).",
)
@model_options
@user_errors
def lift_toy_command(ledger: Path | None, **options: Any) -> None:
    """Appendix A's toy cases on a scorer: does the scaffold make it copy the first equation?"""
    refuse_unused(("overwrite",), "by lift toy, which writes no run")
    if not is_served(options["model_spec"]):
        refuse_unused(("ledger",), "by a local scorer, which sends no requests")
    elif ledger is None:
        raise InputError(
            "a served scorer's requests are kept in a ledger: give --ledger FILE", field="ledger"
        )
    model = ModelChoice.from_options(options).open()
    with model.bound_to(ledger) if ledger else nullcontext():
        rows = toy_rows(model)
    click.echo(
        f"{'case':<9} {'condition':<13} {'raw':>7} {'clipLL_2':>9} {'vs. empty':>10} "
        f"{'P(recovery)':>12}"
    )
    for r in rows:
        recovery = "–" if r.recovery is None else f"{r.recovery:.3f}"
        click.echo(
            f"{r.case:<9} {r.condition:<13} {r.raw:>7.3f} {r.clip2:>9.3f} {r.vs_empty:>+10.3f} "
            f"{recovery:>12}"
        )
    check = toy_check(rows)
    click.echo(f"{check.verdict.upper()}: {check.finding}")
