"""``readout lift sft`` as a library call: cut files in, a finished fine-tuning folder out.

The cut files are read and split, the examples planned and the folder checked and locked before
the scorer opens, so bad input or a second writer is refused at once; the scorer is opened
through the caller's model choice (``open_model``), then trained (:func:`train_sft`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

from readout_audit._exceptions import InputError
from readout_audit._util import option_hint
from readout_audit.lift._conditions import LiftSetup
from readout_audit.lift._cut import Cut
from readout_audit.lift._cutfile import read_cuts
from readout_audit.lift.sft._examples import sft_examples
from readout_audit.lift.sft._folder import check_sft_out
from readout_audit.lift.sft._manifest import SftConfig, StepLoss
from readout_audit.lift.sft._split import split_papers
from readout_audit.lift.sft._stage import FineTuning, SftStage
from readout_audit.lift.sft._train import plan_sft, train_sft
from readout_audit.model import ScoringModel, TextCodec, is_served
from readout_audit.progress import ProgressMode, announce


class SftRun(BaseModel):
    """What one fine-tuning reads and writes, and how it trains."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    cuts: Path = Field(json_schema_extra=option_hint(path="file"))
    """The benchmark's cut file (from readout lift cut); its papers are split into training
    and held-out sets, and its held-out cuts are checked against the training examples."""
    training_cuts: Path | None = Field(default=None, json_schema_extra=option_hint(path="file"))
    """The cuts the training papers' examples come from (readout lift cut --training-out:
    every qualifying cut); default the --cuts file's own."""
    out: Path = Field(json_schema_extra=option_hint(path="dir"))
    """A new or empty directory for the adapter, its checkpoint, losses.jsonl and the
    manifest; a rerun resumes from the checkpoint."""
    bos: bool = False
    """Open every example's prompt with the tokenizer's BOS token, as lift score --bos does:
    a scorer read with --bos can then take --sft."""
    held_out: float = Field(default=0.5, gt=0, lt=1)
    """Share of papers held out from training (scored later, never trained on)."""
    training: SftConfig = Field(default_factory=SftConfig)
    progress: ProgressMode = Field(default="off", json_schema_extra=option_hint(skip=True))
    """``off``: nothing on stderr; else the plan and a line per step."""


class ModelOpener(Protocol):
    """A model spec and how to open it (the CLI's model choice)."""

    @property
    def spec(self) -> str: ...

    def open(self, preflight: Callable[[TextCodec], None] | None = None) -> ScoringModel: ...


def training_cuts(path: Path, benchmark: list[Cut]) -> list[Cut]:
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


def step_line(step: StepLoss, total: int) -> str:
    """A step's progress line: its losses, rate and gradients' norm."""
    return (
        f"step {step.step}/{total}: loss {step.loss:.4f}, clipLL_2 {step.clip_ll:.4f}, "
        f"raw {step.raw_ll:.4f}, lr {step.learning_rate:.3g}, grad norm {step.grad_norm:.3g}"
    )


def fine_tune(run: SftRun, scorer: ModelOpener) -> FineTuning:
    """Plan, check and lock ``run.out``, open the scorer, train it (resuming the folder)."""
    if is_served(scorer.spec):
        raise InputError(
            "fine-tuning needs the scorer's weights: give a local model", field="model"
        )
    cuts = read_cuts(run.cuts)
    split = split_papers([c.paper for c in cuts], held_out=run.held_out, seed=run.training.seed)
    training = cuts if run.training_cuts is None else training_cuts(run.training_cuts, cuts)
    setup = LiftSetup(bos=run.bos)
    examples = sft_examples(training, split, setup)
    held = [c for c in cuts if c.paper in set(split.held_out)]
    plan = plan_sft(examples, split, run.training, setup, held_out=held)
    check_sft_out(run.out, plan)
    announce(
        run.progress,
        f"{len(split.train)} training papers ({len(examples)} cuts), "
        f"{len(split.held_out)} held out ({len(held)} cuts, "
        f"{len(plan.held_out_overlap)} held by a training example: not read); "
        f"{_steps(plan.training.total_steps)} of {plan.training.examples_per_step} examples",
    )
    on_step = None if run.progress == "off" else _announcer(run.progress)
    with SftStage(run.out) as stage:  # locked now: a second writer is refused before loading
        model = scorer.open(preflight=lambda codec: check_rank(run.training.rank, codec))
        return train_sft(
            model, examples, split, stage, held_out=held, config=run.training, setup=setup,
            on_step=on_step,
        )  # fmt: skip


def _steps(n: int) -> str:
    return f"{n} step" if n == 1 else f"{n} steps"


def check_rank(rank: int, codec: TextCodec) -> None:
    """Refuse a LoRA rank above the model's hidden size before the weights load.

    A rank past the width adds parameters and no capacity; the configuration tells it early.
    """
    if codec.width is not None and rank > codec.width:
        raise InputError(
            f"{rank} exceeds the model's hidden size ({codec.width}); choose at most that",
            field="rank",
        )


def _announcer(mode: ProgressMode) -> Callable[[StepLoss, int], None]:
    def line(step: StepLoss, total: int) -> None:
        announce(mode, step_line(step, total))

    return line
