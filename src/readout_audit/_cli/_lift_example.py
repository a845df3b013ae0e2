"""``readout lift example RUN --cut ID``: one cut's prompts, forecasts and scores (appendix C)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from readout_audit._cli._common import user_errors
from readout_audit._exceptions import InputError
from readout_audit._util import terminal_safe
from readout_audit.lift import ExampleDetail, LiftRecord, example_detail
from readout_audit.log import read_run

SHOWN = 1500
"""Characters of a long prompt shown on each side of the omitted middle (without --full)."""


def elided(text: str, full: bool) -> str:
    """The text, or its first and last ``SHOWN`` characters around a note of what is left out."""
    if full or len(text) <= 2 * SHOWN + 200:
        return text
    left = len(text) - 2 * SHOWN
    return f"{text[:SHOWN]}\n[… {left:,} characters omitted; --full shows them …]\n{text[-SHOWN:]}"


def _signed(value: float | None) -> str:
    return "–" if value is None else f"{value:+.3f}"


def render(detail: ExampleDetail, full: bool) -> str:
    """Appendix C's layout as plain text."""
    parts = [
        f"Cut {detail.cut_id} (paper {detail.paper})",
        "",
        "Predictor prompt.",
        elided(detail.predictor_prompt, full),
        "",
        "True suffix.",
        detail.target,
        "",
        f"The scored target: {detail.scored_target!r}",
    ]
    for setting, z in detail.forecasts.items():
        parts += ["", f"Forecast {setting}.", z]
    for row in detail.conditions:
        parts += ["", f"Scoring prompt: {row.condition}.", elided(row.prompt, full)]
    parts += ["", f"{'condition':<28} {'clipLL_2':>9} {'raw':>8} {'vs. empty':>10} {'vs. C_B':>9}"]
    parts += [
        f"{row.condition:<28} {row.clip2:>9.3f} {row.raw:>8.3f} "
        f"{_signed(row.vs_empty):>10} {_signed(row.vs_context):>9}"
        for row in detail.conditions
    ]
    return "\n".join(parts)


@click.command("example")
@click.argument("run_dir", type=click.Path(path_type=Path, file_okay=False))
@click.option("--cut", "cut_id", help="The cut's id (default: the run's first cut).")
@click.option("--full", is_flag=True, help="Show long prompts whole.")
@click.option("--json", "as_json", is_flag=True, help="Print the example as JSON.")
@user_errors
def example_command(run_dir: Path, cut_id: str | None, full: bool, as_json: bool) -> None:
    """One cut of a lift run expanded: predictor prompt, suffix, forecasts, prompts, scores."""
    run = read_run(run_dir).of(LiftRecord)
    if cut_id is None:
        cuts = run.artifacts.get("cuts", [])
        if not cuts:
            raise InputError("holds no cuts: not a lift run", source=str(run_dir))
        cut_id = str(cuts[0]["id"])
    detail = example_detail(run, cut_id)
    if as_json:
        click.echo(json.dumps(detail.model_dump(mode="json"), ensure_ascii=False, indent=1))
    else:
        click.echo(terminal_safe(render(detail, full)))
