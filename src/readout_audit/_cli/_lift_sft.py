"""``readout lift sft``: fine-tune the scorer on training papers' context-only cuts (LoRA)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, get_args

import click
from pydantic import ValidationError

from readout_audit._cli._common import user_errors
from readout_audit._cli._types import SEED
from readout_audit._exceptions import InputError
from readout_audit._util._models import validation_problem
from readout_audit.lift import Cut
from readout_audit.lift._conditions import LiftSetup
from readout_audit.lift._cutfile import read_cuts
from readout_audit.lift.sft import (
    PROJECTIONS,
    Schedule,
    SftConfig,
    StepLoss,
    TrainDtype,
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
@click.option("--progress/--no-progress", default=True, help="A line per step on stderr.")
@user_errors
def sft_command(
    cuts_path: Path,
    training_path: Path | None,
    out: Path,
    model_spec: str,
    device: str,
    dtype: TrainDtype,
    allow_download: bool,
    bos: bool,
    held_out: float,
    target_modules: str,
    max_grad_norm: float,
    progress: bool,
    **settings: Any,
) -> None:
    """Train the context-only SFT control: LoRA on the training papers' cuts (seed 001)."""
    if is_served(model_spec):
        raise InputError(
            "fine-tuning needs the scorer's weights: give a local model", field="model"
        )
    modules = tuple(name.strip() for name in target_modules.split(","))
    try:
        config = SftConfig(
            **settings,
            dtype=dtype,
            target_modules=modules,
            max_grad_norm=max_grad_norm or None,
        )
    except ValidationError as error:
        field, message = validation_problem(error)
        raise InputError(message, field=(field or "").replace("_", "-") or None) from None
    cuts = read_cuts(cuts_path)
    split = split_papers([c.paper for c in cuts], held_out=held_out, seed=config.seed)
    training = cuts if training_path is None else _training_cuts(training_path, cuts)
    setup = LiftSetup(bos=bos)
    examples = sft_examples(training, split, setup)
    held = [c for c in cuts if c.paper in set(split.held_out)]
    planned = plan_sft(examples, split, config, setup, held_out=held)
    check_sft_out(out, planned)  # before the model loads
    click.echo(
        f"{len(split.train)} training papers ({len(examples)} cuts), "
        f"{len(split.held_out)} held out ({len(held)} cuts, "
        f"{len(planned.held_out_overlap)} held by a training example: not read)",
        err=True,
    )

    def line(step: StepLoss, total: int) -> None:
        click.echo(
            f"step {step.step}/{total}: loss {step.loss:.4f}, clipLL_2 {step.clip_ll:.4f}, "
            f"raw {step.raw_ll:.4f}, lr {step.learning_rate:.3g}, grad norm {step.grad_norm:.3g}",
            err=True,
        )

    done = train_sft(
        load_model(model_spec, device=device, dtype=dtype, allow_download=allow_download),
        examples,
        split,
        out,
        held_out=held,
        config=config,
        setup=setup,
        on_step=line if progress else None,
    )
    last = done.losses[-1]
    click.echo(
        f"trained {done.steps_done} steps (last loss {last.loss:.4f}); adapter in {out / 'adapter'}"
    )


def _training_cuts(path: Path, benchmark: list[Cut]) -> list[Cut]:
    """The training cut file's cuts, refusing one that differs from the benchmark's same id."""
    mine = {c.id: c for c in benchmark}
    training = read_cuts(path)
    for cut in training:
        if cut.id in mine and cut != mine[cut.id]:
            raise InputError(
                "is not the benchmark's cut of that id: the two cut files were cut otherwise",
                source=str(path),
                item_id=cut.id,
            )
    return training
