"""What a fine-tuning folder records: its plan (the manifest's config), each step, its adapter.

Every number a user can set is bounded here (a learning rate of 1e300 diverges at the first
step), and what is read back is checked whole: a damaged file is one error naming the file and
its field, never a traceback later.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
)

from readout_audit._exceptions import InputError
from readout_audit._util import INT_MAX, Seed, option_hint, validation_problem
from readout_audit.lift.sft._objective import CLIP_FLOOR, RAW_WEIGHT
from readout_audit.lift.sft._split import PaperSplit
from readout_audit.log import differences, register_stage_kind

M = TypeVar("M", bound=BaseModel)

SFT_MANIFEST = "manifest.json"
LEGACY_MANIFEST = "sft.json"
"""An earlier version's one manifest of settings and outcome together (refused: train again)."""
LOSSES = "losses.jsonl"
CHECKPOINT = "checkpoint"
ADAPTER = "adapter"
ADAPTER_FILES = "adapter.json"
SFT_KIND = "lift-sft"
"""The ``kind`` of a fine-tuning's manifest."""
register_stage_kind(SFT_KIND, "a fine-tuning")


PROJECTIONS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
"""The seven linear projections of a Llama/Qwen block: the reference configuration's targets."""
Schedule = Literal["constant", "cosine", "linear"]
TrainDtype = Literal["float32", "float64", "bfloat16", "float16"]
STEPS_MAX = 1 << 31
"""The most steps, examples per micro-batch or micro-batches per step: their product, the
examples a run reads, stays an int64."""
LORA_MAX = 1 << 12
"""The largest LoRA rank or alpha (adapters use a few hundred at most): a rank of 10^12 would
be an allocation error after the model loads, an alpha past float range peft's overflow."""


class SftConfig(BaseModel):
    """The fine-tuning's hyper-parameters: the authors' configuration by default.

    The authors' ``run_config.json`` (docs/lift.md): rank 32, alpha 64, dropout 0.05 on the
    seven projections, AdamW at 2e-4 on a cosine schedule after a 3% warm-up, gradients clipped
    to norm 1.0, 4 examples × 4 accumulated a step, two epochs (their 400 steps).
    """

    model_config = ConfigDict(
        extra="forbid", frozen=True, allow_inf_nan=False, use_attribute_docstrings=True
    )

    epochs: int = Field(default=2, ge=1, le=STEPS_MAX, strict=True)
    """Passes over the examples; they set the steps when --steps is not given."""
    steps: int | None = Field(default=None, ge=1, le=STEPS_MAX, strict=True)
    """Optimiser steps (default: ⌈examples / (batch_size · grad_accumulation)⌉ · epochs)."""
    batch_size: int = Field(default=4, ge=1, le=STEPS_MAX, strict=True)
    """Examples per forward (a micro-batch); a step takes ``grad_accumulation`` of them."""
    grad_accumulation: int = Field(default=4, ge=1, le=STEPS_MAX, strict=True)
    """Micro-batches whose gradients one optimiser step sums."""
    learning_rate: float = Field(default=2e-4, gt=0, le=1)
    """AdamW's peak learning rate, reached after the warm-up (at most 1: a larger one diverges)."""
    schedule: Schedule = "cosine"
    """How the rate decays after the warm-up."""
    warmup: float = Field(default=0.03, ge=0, lt=1)
    """Share of the steps whose rate climbs linearly from 0 to the peak (⌈warmup · steps⌉)."""
    max_grad_norm: float | None = Field(default=1.0, ge=0)
    """Clip the gradients' global L2 norm to this; 0: no clipping."""
    rank: int = Field(default=32, ge=1, le=LORA_MAX, strict=True)
    """LoRA rank."""
    alpha: int = Field(default=64, ge=1, le=LORA_MAX, strict=True)
    """LoRA alpha."""
    target_modules: tuple[str, ...] = Field(default=PROJECTIONS, min_length=1)
    """Comma-separated names of the modules the adapter is put on."""
    dropout: float = Field(default=0.05, ge=0, lt=1)
    """LoRA dropout (its masks seeded per step, so a resumed run repeats them)."""
    floor: float = Field(default=CLIP_FLOOR, json_schema_extra=option_hint(skip=True))
    raw_weight: float = Field(default=RAW_WEIGHT, ge=0, le=1)
    """Weight of the raw NLL term beside the clipLL_2 loss."""
    max_tokens: int | None = Field(default=None, ge=8, le=INT_MAX, strict=True)
    """Refuse an example longer than this many tokens, prompt and target (default: sized from
    the examples; an example is never cut)."""
    dtype: TrainDtype = "float32"
    """The scorer's weights' dtype while it trains (bfloat16 on a GPU); the adapter's weights
    stay float32."""
    checkpoint_every: int = Field(default=10, ge=1, le=INT_MAX, strict=True)
    """Steps between checkpoints (a rerun resumes from the last)."""
    seed: Seed = 0
    """Seeds the split, the adapter's initialisation, dropout and the example order."""

    @field_validator("max_grad_norm")
    @classmethod
    def _no_clipping(cls, norm: float | None) -> float | None:
        return norm or None  # 0: not clipped, recorded as None

    @field_validator("target_modules")
    @classmethod
    def _module_names(cls, names: tuple[str, ...]) -> tuple[str, ...]:
        for name in names:
            if not name or not name.replace("_", "").isalnum():
                raise ValueError(f"{name!r} is not a module name (letters, digits, _)")
        if len(set(names)) != len(names):
            raise ValueError("a module is named twice")
        return names

    @property
    def examples_per_step(self) -> int:
        """Examples one optimiser step reads: ``batch_size`` · ``grad_accumulation``."""
        return self.batch_size * self.grad_accumulation

    @property
    def total_steps(self) -> int:
        """The optimiser steps of a planned fine-tuning (:meth:`for_examples` sets them)."""
        if self.steps is None:
            raise ValueError("a fine-tuning's steps are set when it is planned")
        return self.steps

    def for_examples(self, n: int) -> SftConfig:
        """These settings with ``steps`` set: given, or ``epochs`` passes over ``n`` examples."""
        if self.steps is not None:
            return self
        steps = math.ceil(n / self.examples_per_step) * self.epochs
        if steps > STEPS_MAX:
            raise InputError(
                f"{self.epochs} epochs of {n} examples are {steps} steps, more than "
                f"{STEPS_MAX}: give fewer --epochs",
                field="epochs",
            )
        return self.model_copy(update={"steps": steps})


class StepLoss(BaseModel):
    """One optimiser step: its mean loss, clipLL_2 and raw mean log-likelihood over the batch."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    step: int
    loss: float
    clip_ll: float
    raw_ll: float
    examples: list[str]
    learning_rate: float | None = None
    """The learning rate the step was taken at (None: an older readout's step)."""
    grad_norm: float | None = None
    """The gradients' global L2 norm before clipping."""


class ScorerFile(BaseModel):
    """One weights file of the scorer a fine-tuning started from."""

    path: str
    sha256: str


class ScorerIdentity(BaseModel):
    """The part of the manifest's ``model`` that loading the scorer again needs."""

    spec: str
    files: list[ScorerFile] = Field(min_length=1)


class SftPlan(BaseModel):
    """What a fine-tuning is (its manifest's ``config``): settings, split, data, held-out checks.

    A rerun continues a fine-tuning only when its plan is this one.
    """

    model_config = ConfigDict(extra="forbid")

    training: SftConfig
    split: PaperSplit
    setup: dict[str, Any]
    """The budgets its prompts were built with (:meth:`LiftSetup.as_config`)."""
    examples: dict[str, str]
    """Example id → :func:`example_sha256`."""
    held_out_targets: dict[str, str]
    """Every held-out cut checked against the training examples: id → its target's SHA-256."""
    held_out_overlap: dict[str, str] = Field(default_factory=dict)
    """Held-out cuts whose target a training example holds: id → ``target`` (the whole of it)
    or ``span`` (a 50-character span of it); the SFT rung does not read them."""

    @field_validator("training")
    @classmethod
    def _planned_steps(cls, training: SftConfig) -> SftConfig:
        if training.steps is None:
            raise ValueError("a planned fine-tuning records its steps")
        return training


class AdapterFiles(BaseModel):
    """``adapter.json``, written once the training finishes: each ``adapter/`` file's SHA-256."""

    model_config = ConfigDict(extra="forbid")

    adapter_files: dict[str, str] = Field(min_length=1)

    @field_validator("adapter_files")
    @classmethod
    def _plain_names(cls, files: dict[str, str]) -> dict[str, str]:
        for name in files:
            if name != Path(name).name or name.startswith("."):
                raise ValueError(f"{name!r} is not a file name inside {ADAPTER}/")
        return files


def plan_differences(earlier: SftPlan, planned: SftPlan, out: Path) -> None:
    """Refuse to continue ``earlier`` with another plan, listing every difference."""
    changed = differences(
        earlier.model_dump(mode="json"), planned.model_dump(mode="json"), prefix="config."
    )
    if changed:
        shown = "; ".join(changed[:5]) + ("; …" if len(changed) > 5 else "")
        raise InputError(
            "holds a fine-tuning with other examples, split or settings; choose another --out. "
            f"Differences: {shown}",
            source=str(out),
        )


def validated(model: type[M], raw: Any, path: Path, prefix: str = "") -> M:
    """``raw`` as ``model``, or one error naming the file and the field wrong."""
    try:
        return model.model_validate(raw)
    except ValidationError as error:
        field, message = validation_problem(error)
        raise InputError(message, source=str(path), field=prefix + (field or "")) from None
