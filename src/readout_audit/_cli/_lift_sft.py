"""``readout lift sft``: fine-tune the scorer on training papers' context-only cuts (LoRA)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, get_args

import click

from readout_audit._cli._common import user_errors
from readout_audit._cli._model import ModelChoice
from readout_audit._cli._types import SEED
from readout_audit.lift import build_settings
from readout_audit.lift.sft import PROJECTIONS, Schedule, SftConfig, SftRun, TrainDtype, fine_tune
from readout_audit.model import EMBEDDED_SPEC
from readout_audit.progress import progress_mode


@click.command("sft")
@click.option(
    "--cuts",
    "cuts_path",
    required=True,
    type=click.Path(path_type=Path, dir_okay=False),
    help="The benchmark's cut file (from readout lift cut); its papers are split into training "
    "and held-out sets, and its held-out cuts are checked against the training examples.",
)
@click.option(
    "--training-cuts",
    "training_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="The cuts the training papers' examples come from (readout lift cut --training-out: "
    "every qualifying cut); default the --cuts file's own.",
)
@click.option(
    "--out",
    required=True,
    type=click.Path(path_type=Path, file_okay=False),
    help="A new or empty directory for the adapter, its checkpoint, losses.jsonl and the "
    "manifest; a rerun resumes from the checkpoint.",
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
    "--dtype",
    default="float32",
    show_default=True,
    type=click.Choice(list(get_args(TrainDtype))),
    help="The scorer's weights' dtype while it trains (bfloat16 on a GPU); the adapter's "
    "weights stay float32.",
)
@click.option(
    "--allow-download", is_flag=True, help="Let hf: specs download from the Hugging Face Hub."
)
@click.option(
    "--bos",
    is_flag=True,
    help="Open every example's prompt with the tokenizer's BOS token, as lift score --bos "
    "does: a scorer read with --bos can then take --sft.",
)
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
    help="Seeds the split, the adapter's initialisation, dropout and the example order.",
)
@click.option("--steps", default=50, show_default=True, type=click.IntRange(1))
@click.option(
    "--batch-size",
    default=4,
    show_default=True,
    type=click.IntRange(1),
    help="Examples per forward (a micro-batch).",
)
@click.option(
    "--grad-accumulation",
    default=1,
    show_default=True,
    type=click.IntRange(1),
    help="Micro-batches summed into one optimiser step.",
)
@click.option(
    "--learning-rate",
    default=2e-4,
    show_default=True,
    type=click.FloatRange(0, 1, min_open=True),
    help="AdamW's peak learning rate (at most 1: a larger one diverges).",
)
@click.option(
    "--schedule",
    default="cosine",
    show_default=True,
    type=click.Choice(list(get_args(Schedule))),
    help="How the rate decays after the warm-up.",
)
@click.option(
    "--warmup",
    default=0.1,
    show_default=True,
    type=click.FloatRange(0, 1, max_open=True),
    help="Share of the steps whose rate climbs linearly from 0 to the peak.",
)
@click.option(
    "--max-grad-norm",
    default=1.0,
    show_default=True,
    type=click.FloatRange(0),
    help="Clip the gradients' global L2 norm to this; 0: no clipping.",
)
@click.option("--rank", default=32, show_default=True, type=click.IntRange(1), help="LoRA rank.")
@click.option("--alpha", default=64, show_default=True, type=click.IntRange(1), help="LoRA alpha.")
@click.option(
    "--target-modules",
    default=",".join(PROJECTIONS),
    show_default=True,
    help="Comma-separated names of the modules the adapter is put on.",
)
@click.option(
    "--dropout",
    default=0.0,
    show_default=True,
    type=click.FloatRange(0, 1, max_open=True),
    help="LoRA dropout.",
)
@click.option(
    "--raw-weight",
    default=0.05,
    show_default=True,
    type=click.FloatRange(0, 1),
    help="Weight of the raw NLL term beside the clipLL_2 loss.",
)
@click.option(
    "--max-tokens",
    type=click.IntRange(8),
    help="Refuse an example longer than this many tokens (default: sized from the examples; "
    "an example is never cut).",
)
@click.option("--checkpoint-every", default=10, show_default=True, type=click.IntRange(1))
@click.option(
    "--progress/--no-progress",
    default=True,
    help="The plan and a line per step on stderr (--no-progress: nothing).",
)
@user_errors
def sft_command(
    cuts_path: Path,
    training_path: Path | None,
    out: Path,
    model_spec: str,
    device: str,
    allow_download: bool,
    bos: bool,
    held_out: float,
    target_modules: str,
    max_grad_norm: float,
    progress: bool,
    **settings: Any,
) -> None:
    """Train the context-only SFT control: LoRA on the training papers' cuts (seed 001)."""
    training = build_settings(
        SftConfig,
        **settings,
        target_modules=tuple(name.strip() for name in target_modules.split(",")),
        max_grad_norm=max_grad_norm or None,
    )
    run = SftRun(
        cuts=cuts_path, training_cuts=training_path, out=out, bos=bos, held_out=held_out,
        training=training, progress=progress_mode(progress),
    )  # fmt: skip
    scorer = ModelChoice(
        spec=model_spec, device=device, dtype=training.dtype, allow_download=allow_download
    )
    click.echo(fine_tune(run, scorer).summary())
