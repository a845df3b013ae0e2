"""``readout judge propose``: a local model's beam over bridge strings, archived and retained."""

from __future__ import annotations

from pathlib import Path

import click

from readout_audit._cli._common import force_option, user_errors
from readout_audit._cli._model import ModelChoice
from readout_audit.judge import BeamSettings
from readout_audit.judge.protocol import make_settings
from readout_audit.judge.search import propose_to_file
from readout_audit.model import EMBEDDED_SPEC


@click.command("propose")
@click.option(
    "--out", required=True, type=click.Path(path_type=Path, dir_okay=False), help="JSON file."
)
@click.option("--model", "model_spec", default=EMBEDDED_SPEC, show_default=True)
@click.option("--device", default="auto", show_default=True)
@click.option("--depth", default=7, show_default=True, type=click.IntRange(1))
@click.option("--first-width", default=256, show_default=True, type=click.IntRange(1))
@click.option("--width", default=12, show_default=True, type=click.IntRange(1))
@force_option
@user_errors
def judge_propose_command(
    out: Path,
    model_spec: str,
    device: str,
    depth: int,
    first_width: int,
    width: int,
    force: bool,
) -> None:
    """Propose bridge strings with a local model (the seed's beam, archive and retention).

    Each context's archive is kept as it completes: the same command again resumes.
    """
    settings = make_settings(BeamSettings, first_width=first_width, width=width, depth=depth)
    model = ModelChoice(model_spec, device=device)
    archive, kept = propose_to_file(out, settings, model.open, force=force)
    click.echo(f"archived {len(archive)} strings, retained {len(kept)}; written to {out}")
    for proposal in kept[:10]:
        click.echo(f"  {proposal.logprob:8.3f}  {proposal.text!r}")
