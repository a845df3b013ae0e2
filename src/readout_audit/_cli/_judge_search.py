"""``readout judge search``: a cue search's development, frozen selection and confirmation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from readout_audit._cli._common import user_errors
from readout_audit._cli._judge_options import (
    SOURCE_OPTIONS,
    execution_options,
    execution_settings,
    local_opener,
    refuse_unused_execution,
    source_options,
)
from readout_audit._cli._types import SEED
from readout_audit.judge import PAPER_SEED, SearchSettings, search_cues
from readout_audit.judge.inventory import SourceSettings
from readout_audit.judge.protocol import PRESENTATIONS, RESPONSE_FORMATS, make_settings
from readout_audit.judge.search import (
    CONFIRMATION_FILE,
    PROGRAMMES,
    SELECTION_FILE,
    SearchResult,
)
from readout_audit.model import EMBEDDED_SPEC
from readout_audit.progress import progress_mode


def _score(mean: float | None) -> str:
    return "    -" if mean is None else f"{mean:.3f}"


def search_lines(result: SearchResult, top: int = 5) -> list[str]:
    """The development rankings' heads and the confirmation table, as plain lines."""
    lines = []
    for scaffold, ranked in result.selection.rankings.items():
        lines.append(f"development, {scaffold} (best {min(top, len(ranked))} of {len(ranked)}):")
        lines += [
            f"  {s.positives:3d}/{s.planned:<3d} {_score(s.mean_score)}  {s.text!r}"
            for s in ranked[:top]
        ]
    epsilon = result.selection.hoeffding_epsilon()
    if epsilon is not None:
        lines.append(f"Hoeffding epsilon of the development screen (delta 0.05): {epsilon:.2f}")
    lines.append("confirmation (positives, mean displayed score, against blank: +/- and Holm p):")
    for row in result.confirmation.bridges:
        s = row.score
        versus = "" if row.p_holm is None else f"  +{row.forward}/-{row.reverse} p {row.p_holm:.3g}"
        lines.append(
            f"  {s.scaffold:13s} {row.role:8s} {s.positives:3d}/{s.planned:<3d} "
            f"{_score(s.mean_score)}{versus}  {s.text!r}"
        )
    for clean in result.confirmation.clean:
        lines.append(f"  {clean.cell}: accepted {clean.accepted}/{clean.judged}")
    return lines


@click.command("search")
@click.argument("out", type=click.Path(path_type=Path, file_okay=False))
@click.option(
    "--programme",
    type=click.Choice(sorted(PROGRAMMES)),
    required=True,
    help="screen: rank a proposals file's pool, freeze 16; extend: 20 seeds, two extension "
    "rounds, freeze the best two per scaffold with baselines and controls.",
)
@click.option(
    "--configuration",
    required=True,
    metavar="NAME=CONTRACT@JUDGE",
    help="The judge and its contract, e.g. local3=FINAL3@smollm2-135m.",
)
@click.option(
    "--response-format",
    type=click.Choice(list(RESPONSE_FORMATS)),
    default="json_schema",
    show_default=True,
    help="How a served judge's bodies ask for structured output.",
)
@click.option(
    "--proposals",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="screen: a `readout judge propose` file (its retained pool is ranked).",
)
@click.option(
    "--proposer",
    default=EMBEDDED_SPEC,
    show_default=True,
    help="extend: the local model that grows strings (its tokenizer measures token length).",
)
@source_options
@click.option("--seed", default=PAPER_SEED, show_default=True, type=SEED)
@click.option(
    "--presentation", type=click.Choice(PRESENTATIONS), default="sorted", show_default=True
)
@click.option(
    "--development",
    type=click.IntRange(1),
    help="Development questions per dataset [screen 12, extend 8].",
)
@click.option(
    "--confirmation",
    type=click.IntRange(1),
    help="Withheld confirmation questions per dataset [screen 12, extend 24].",
)
@click.option(
    "--keep", type=click.IntRange(1), help="Bridges frozen [screen 16; extend 2 per scaffold]."
)
@click.option("--rounds", type=click.IntRange(0), help="Extension rounds [extend 2].")
@click.option("--per-round", type=click.IntRange(1), help="New strings per round [32].")
@execution_options
@click.option("--progress/--no-progress", default=None, help="Progress on stderr.")
@user_errors
def judge_search_command(out: Path, progress: bool | None, **options: Any) -> None:
    """Run a cue search: development stages, a selection frozen to a file, then confirmation."""
    sources = {name: options.pop(name) for name in SOURCE_OPTIONS if name != "allow_download"}
    execution = execution_settings(options)
    given = {name: options[name] for name in SearchSettings.model_fields if name in options}
    settings = make_settings(
        SearchSettings,
        **given,
        sources=make_settings(SourceSettings, **sources, allow_download=options["allow_download"]),
    )
    refuse_unused_execution(settings.judge, local_proposer=settings.proposals is None)
    mode = progress_mode(progress)
    result = search_cues(
        settings,
        out,
        execution,
        local_opener(options),
        progress=mode,
        announce=None if mode == "off" else lambda line: click.echo(line, err=True),
    )
    for line in search_lines(result):
        click.echo(line)
    click.echo(f"selection: {out / SELECTION_FILE}; confirmation: {out / CONFIRMATION_FILE}")
