"""``readout lift sft``: fine-tune the scorer on training papers' context-only cuts (LoRA)."""

from __future__ import annotations

from pathlib import Path

import click
from pydantic import ValidationError

from readout_audit._cli._common import user_errors
from readout_audit._cli._types import SEED
from readout_audit._exceptions import InputError
from readout_audit._util._models import validation_problem
from readout_audit.lift._conditions import LiftSetup
from readout_audit.lift._cutfile import read_cuts
from readout_audit.lift.sft import (
    SftConfig,
    StepLoss,
    check_sft_out,
    plan_sft,
    sft_examples,
    split_papers,
    train_sft,
)
from readout_audit.model import EMBEDDED_SPEC, load_model
from readout_audit.model._served_spec import is_served


@click.command("sft")
@click.option(
    "--cuts",
    "cuts_path",
    required=True,
    type=click.Path(path_type=Path, dir_okay=False),
    help="The cut file (from readout lift cut); its papers are split into training and "
    "held-out sets.",
)
@click.option(
    "--out",
    required=True,
    type=click.Path(path_type=Path, file_okay=False),
    help="A new or empty directory for the adapter, its checkpoint, losses.jsonl and sft.json; "
    "a rerun resumes from the checkpoint.",
)
@click.option(
    "--model",
    "model_spec",
    default=EMBEDDED_SPEC,
    show_default=True,
    help="The scorer to fine-tune (local weights).",
)
@click.option("--device", default="auto", show_default=True)
@click.option(
    "--held-out",
    default=0.5,
    show_default=True,
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    help="Share of papers held out from training (scored later, never trained on).",
)
@click.option(
    "--seed",
    default=0,
    show_default=True,
    type=SEED,
    help="Seeds the split, the adapter's initialisation and the example order.",
)
@click.option("--steps", default=50, show_default=True, type=click.IntRange(1))
@click.option("--batch-size", default=4, show_default=True, type=click.IntRange(1))
@click.option(
    "--learning-rate",
    default=2e-4,
    show_default=True,
    type=click.FloatRange(0, 1, min_open=True),
    help="AdamW's learning rate (at most 1: a larger one diverges).",
)
@click.option("--rank", default=8, show_default=True, type=click.IntRange(1), help="LoRA rank.")
@click.option("--alpha", default=16, show_default=True, type=click.IntRange(1), help="LoRA alpha.")
@click.option(
    "--raw-weight",
    default=0.05,
    show_default=True,
    type=click.FloatRange(0, 1),
    help="Weight of the raw NLL term beside the clipLL_2 loss.",
)
@click.option(
    "--max-tokens",
    default=512,
    show_default=True,
    type=click.IntRange(8),
    help="Tokens per example; a longer prompt keeps its end.",
)
@click.option("--checkpoint-every", default=10, show_default=True, type=click.IntRange(1))
@click.option("--progress/--no-progress", default=True, help="A line per step on stderr.")
@user_errors
def sft_command(
    cuts_path: Path,
    out: Path,
    model_spec: str,
    device: str,
    held_out: float,
    seed: int,
    steps: int,
    batch_size: int,
    learning_rate: float,
    rank: int,
    alpha: int,
    raw_weight: float,
    max_tokens: int,
    checkpoint_every: int,
    progress: bool,
) -> None:
    """Train the context-only SFT control: LoRA on the training papers' cuts (seed 001)."""
    if is_served(model_spec):
        raise InputError(
            "fine-tuning needs the scorer's weights: give a local model", field="model"
        )
    try:
        config = SftConfig(
            steps=steps,
            batch_size=batch_size,
            learning_rate=learning_rate,
            rank=rank,
            alpha=alpha,
            raw_weight=raw_weight,
            max_tokens=max_tokens,
            checkpoint_every=checkpoint_every,
            seed=seed,
        )
    except ValidationError as error:
        field, message = validation_problem(error)
        raise InputError(message, field=(field or "").replace("_", "-") or None) from None
    cuts = read_cuts(cuts_path)
    split = split_papers([c.paper for c in cuts], held_out=held_out, seed=seed)
    setup = LiftSetup()
    examples = sft_examples(cuts, split, setup)
    check_sft_out(out, plan_sft(examples, split, config, setup))  # before the model loads
    click.echo(
        f"{len(split.train)} training papers ({len(examples)} cuts), "
        f"{len(split.held_out)} held out",
        err=True,
    )

    def line(step: StepLoss, total: int) -> None:
        click.echo(
            f"step {step.step}/{total}: loss {step.loss:.4f}, clipLL_2 {step.clip_ll:.4f}, "
            f"raw {step.raw_ll:.4f}",
            err=True,
        )

    done = train_sft(
        load_model(model_spec, device=device, dtype="float32"),
        examples,
        split,
        out,
        config=config,
        setup=setup,
        on_step=line if progress else None,
    )
    last = done.losses[-1]
    click.echo(
        f"trained {done.steps_done} steps (last loss {last.loss:.4f}); adapter in {out / 'adapter'}"
    )
