"""``readout lift score|toy|report``: score forecasts against their controls, and read the run."""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import click

from readout_audit._cli._common import check_out, model_options, refuse_unused, user_errors
from readout_audit._cli._limit_plain import limit_option
from readout_audit._cli._model import ModelChoice
from readout_audit._cli._score import finish
from readout_audit._cli._types import SEED
from readout_audit._exceptions import InputError
from readout_audit.lift._conditions import LiftSetup
from readout_audit.lift._cut import Cut
from readout_audit.lift._cutfile import read_cuts
from readout_audit.lift._effort import TokenCounts
from readout_audit.lift._forecasts import Forecast, read_forecasts
from readout_audit.lift._score import (
    Forecasts,
    check_hardest_by,
    cut_jobs,
    forecast_settings,
    score_lift,
    setting_contrasts,
)
from readout_audit.lift._sft_scorer import check_sft_setup, rung_cuts
from readout_audit.lift._toy import toy_check, toy_rows
from readout_audit.lift.sft import open_sft_scorer, read_sft
from readout_audit.model._served_spec import is_served
from readout_audit.progress import progress_mode


def forecasts_by_cut(forecasts: Iterable[Forecast]) -> Forecasts:
    """Cut id → setting → Z, refusing a (cut, setting) that two files both give."""
    found: dict[str, dict[str, str]] = {}
    for f in forecasts:
        per_cut = found.setdefault(f.cut_id, {})
        if f.setting in per_cut:
            raise InputError(
                f"setting {f.setting!r} has two forecasts for this cut (two --forecasts files?)",
                item_id=f.cut_id,
                field="setting",
            )
        per_cut[f.setting] = f.z
    return found


def token_counts(forecasts: Iterable[Forecast]) -> TokenCounts:
    """Cut id → setting → the predictor's output and reasoning tokens, where reported."""
    found: dict[str, dict[str, dict[str, int | None]]] = {}
    for f in forecasts:
        if f.n_tokens is not None or f.reasoning_tokens is not None:
            counts = {"output": f.n_tokens, "reasoning": f.reasoning_tokens}
            found.setdefault(f.cut_id, {})[f.setting] = counts
    return found


def _pair(text: str) -> tuple[str, str]:
    """``A,B`` as the pair (A, B)."""
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 2 or not all(parts):
        raise InputError(f"{text!r} is not two settings A,B", field="contrast")
    return parts[0], parts[1]


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
    try:
        factors = tuple(int(m) for m in multipliers.split(","))
    except ValueError:
        raise InputError(
            f"{multipliers!r} is not a comma-separated list of integers", field="multipliers"
        ) from None
    if not factors or any(m < 1 for m in factors):
        raise InputError("multipliers must be integers of at least 1", field="multipliers")
    setup = LiftSetup(multipliers=factors, oracle=not no_oracle, bos=bos)
    cuts: list[Cut] = read_cuts(cuts_path)
    found = [f for p in forecast_paths for f in read_forecasts(p, setting=setting, cuts=cuts)]
    cuts = cuts[:limit]
    kept = {cut.id for cut in cuts}
    forecasts = forecasts_by_cut(f for f in found if f.cut_id in kept)
    counts = token_counts(f for f in found if f.cut_id in kept)
    pairs = [_pair(text) for text in contrasts] if contrasts else None
    settings = forecast_settings(forecasts)
    setting_contrasts(settings, pairs)  # checked before the model loads
    check_hardest_by(settings, hardest_by)
    if sft_dir is not None:
        trained = read_sft(sft_dir)
        rung_cuts(
            cuts,
            trained.split.held_out,
            trained.examples,
            trained.held_out_targets or {},
            trained.held_out_overlap,
        )
        check_sft_setup(trained.setup, setup)
    check_out(out, "lift")

    def preflight(codec: Any) -> None:
        for cut in cuts:
            cut_jobs(cut, forecasts.get(cut.id, {}), setup, codec)

    model = ModelChoice.from_options(options).open(preflight)
    tuned = None
    if sft_dir is not None:
        tuned = open_sft_scorer(
            sft_dir,
            device=options["device"],
            dtype=options["dtype"],
            allow_download=options["allow_download"],
        )
    score_lift(
        model,
        cuts,
        out,
        forecasts=forecasts,
        setup=setup,
        batch_size=options["batch_size"],
        progress=progress_mode(options["progress"]),
        toy=not no_toy,
        seed=seed,
        contrasts=pairs,
        sft=tuned,
        token_counts=counts,
        hardest_by=hardest_by,
        overwrite=options["overwrite"],
    )
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
