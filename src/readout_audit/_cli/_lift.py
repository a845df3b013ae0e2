"""``readout lift``: cut TeX papers, write forecasts, score them and report the lift."""

from __future__ import annotations

from pathlib import Path

import click

from readout_audit._cli._common import force_option, user_errors
from readout_audit._cli._lift_example import example_command
from readout_audit._cli._lift_predict import predict_command
from readout_audit._cli._lift_score import lift_score_command, lift_toy_command
from readout_audit._cli._lift_sft import sft_command
from readout_audit._cli._limit_plain import limit_option
from readout_audit._cli._registry import register_commands
from readout_audit._cli._report import report_command
from readout_audit._cli._types import SEED
from readout_audit.lift import CutRun, CutSettings, build_settings, cut_sources


@click.group("lift")
def lift_group() -> None:
    """Likelihood lift of forecasts of hidden TeX continuations (cut, predict, score, report)."""


@lift_group.command("cut")
@click.argument("sources", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--out",
    required=True,
    type=click.Path(path_type=Path, dir_okay=False),
    help="The cut file (JSON lines); its manifest is written beside it.",
)
@click.option(
    "--kind",
    type=click.Choice(["equation", "prose"]),
    default="equation",
    show_default=True,
    help="Equation suffixes (section 4) or prose/TeX blocks (section 7).",
)
@click.option(
    "--seed", default=0, show_default=True, type=SEED, help="Seeds the pick of a paper's cuts."
)
@click.option(
    "--per-paper",
    type=click.IntRange(1),
    help="At most this many cuts per paper (default 10 equation cuts, 20 prose cuts).",
)
@click.option(
    "--min-cuts",
    default=10,
    show_default=True,
    type=click.IntRange(1),
    help="Admit a paper only when it offers at least this many qualifying cuts (the paper's "
    "rule); a paper with fewer gives none.",
)
@click.option(
    "--min-context",
    default=10_000,
    show_default=True,
    type=click.IntRange(0),
    help="Cleaned characters required before a cut, and the context's length.",
)
@click.option(
    "--training-out",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Also write every qualifying cut of the admitted papers, no per-paper quota, to this "
    "cut file: the training cuts of readout lift sft --training-cuts.",
)
@click.option("--min-target", type=click.IntRange(1), help="Default 50 (equation), 200 (prose).")
@click.option("--max-target", type=click.IntRange(1), help="Default 400 (equation), 2000 (prose).")
@limit_option("papers of the SOURCES, in order")
@force_option
@user_errors
def cut_command(
    sources: tuple[Path, ...],
    out: Path,
    training_out: Path | None,
    limit: int | None,
    force: bool,
    **settings: object,
) -> None:
    """Cut .tex files, folders of them or arXiv tarballs (SOURCES) into prediction tasks."""
    run = CutRun(
        sources=sources, out=out, training_out=training_out, limit=limit, force=force,
        settings=build_settings(CutSettings, **settings),
    )  # fmt: skip
    click.echo(cut_sources(run).summary())


lift_group.add_command(predict_command)
lift_group.add_command(lift_score_command)
lift_group.add_command(lift_toy_command)
lift_group.add_command(sft_command)
lift_group.add_command(report_command)
lift_group.add_command(example_command)


@register_commands
def lift_commands(cli: click.Group) -> None:
    """``readout lift``."""
    cli.add_command(lift_group)
