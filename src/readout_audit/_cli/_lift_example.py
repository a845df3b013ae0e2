"""``readout lift example RUN --cut ID``: one cut's prompts, forecasts and scores (appendix C)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from readout_audit._cli._common import user_errors
from readout_audit._cli._types import GivenPath
from readout_audit._util import terminal_safe
from readout_audit.lift import LiftRecord, example_detail, example_text
from readout_audit.log import read_run


@click.command("example")
@click.argument("run_dir", type=GivenPath(path_type=Path, file_okay=False))
@click.option("--cut", "cut_id", help="The cut's id (default: the run's first cut).")
@click.option("--full", is_flag=True, help="Show long prompts whole.")
@click.option("--json", "as_json", is_flag=True, help="Print the example as JSON.")
@user_errors
def example_command(run_dir: Path, cut_id: str | None, full: bool, as_json: bool) -> None:
    """One cut of a lift run expanded: predictor prompt, suffix, forecasts, prompts, scores."""
    detail = example_detail(read_run(run_dir).of(LiftRecord), cut_id)
    if as_json:
        click.echo(json.dumps(detail.model_dump(mode="json"), ensure_ascii=False, indent=1))
    else:
        click.echo(terminal_safe(example_text(detail, full)))
