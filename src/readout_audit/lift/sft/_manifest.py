"""What a fine-tuning folder records: its settings, one step's losses, and ``sft.json``.

Every number a user can set is bounded here (a learning rate of 1e300 diverges at the first
step), and ``sft.json`` read back is checked whole: a damaged one is one error naming the file
and its field, never a traceback later.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from readout_audit._exceptions import InputError
from readout_audit._util._input import read_input_text
from readout_audit._util._jsonl import loads_strict
from readout_audit._util._models import validate_line, validation_problem
from readout_audit.lift.sft._objective import CLIP_FLOOR, RAW_WEIGHT
from readout_audit.lift.sft._split import PaperSplit

SFT_MANIFEST = "sft.json"
LOSSES = "losses.jsonl"
CHECKPOINT = "checkpoint"
ADAPTER = "adapter"


class SftConfig(BaseModel):
    """The fine-tuning's hyper-parameters (the paper's loss; sizes for a CPU by default)."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    steps: int = Field(default=50, ge=1)
    batch_size: int = Field(default=4, ge=1)
    learning_rate: float = Field(default=2e-4, gt=0, le=1)
    rank: int = Field(default=8, ge=1)
    alpha: int = Field(default=16, ge=1)
    target_modules: tuple[str, ...] = ("q_proj", "v_proj")
    floor: float = CLIP_FLOOR
    raw_weight: float = Field(default=RAW_WEIGHT, ge=0, le=1)
    max_tokens: int = Field(default=512, ge=8)
    """Prompt and target tokens per example; a longer prompt keeps its end."""
    checkpoint_every: int = Field(default=10, ge=1)
    seed: int = Field(default=0, ge=0)


class StepLoss(BaseModel):
    """One optimiser step: its mean loss, clipLL_2 and raw mean log-likelihood over the batch."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    step: int
    loss: float
    clip_ll: float
    raw_ll: float
    examples: list[str]


class ScorerFile(BaseModel):
    """One weights file of the scorer a fine-tuning started from."""

    path: str
    sha256: str


class ScorerIdentity(BaseModel):
    """The part of ``sft.json``'s ``scorer`` that loading it again needs: spec and weights."""

    spec: str
    files: list[ScorerFile] = Field(min_length=1)


class SftManifest(BaseModel):
    """What a fine-tuning was: settings, split, data, scorer, and its losses when done."""

    model_config = ConfigDict(extra="forbid")

    config: SftConfig
    split: PaperSplit
    setup: dict[str, Any]
    scorer: dict[str, Any]
    examples: dict[str, str]
    """Example id → :func:`example_sha256`."""
    steps_done: int = 0
    losses: list[StepLoss] = Field(default_factory=list)
    adapter_files: dict[str, str] = Field(default_factory=dict)
    """The finished adapter's files (names in ``adapter/``) → SHA-256, checked before scoring."""

    @field_validator("adapter_files")
    @classmethod
    def _plain_names(cls, files: dict[str, str]) -> dict[str, str]:
        for name in files:
            if name != Path(name).name or name.startswith("."):
                raise ValueError(f"{name!r} is not a file name inside {ADAPTER}/")
        return files

    def identity(self, *, scorer: bool = True) -> dict[str, Any]:
        """What must match for a rerun to continue this fine-tuning (the scorer optional)."""
        done = {"steps_done", "losses", "adapter_files"}
        return self.model_dump(mode="json", exclude=done if scorer else {*done, "scorer"})


def check_same(earlier: SftManifest, planned: SftManifest, out: Path, *, scorer: bool) -> None:
    """Refuse to continue ``earlier`` with another fine-tuning's examples or settings."""
    if earlier.identity(scorer=scorer) != planned.identity(scorer=scorer):
        raise InputError(
            "holds a fine-tuning with other examples, split or settings; choose another --out",
            source=str(out),
        )


def read_manifest(path: Path) -> SftManifest:
    """``sft.json`` read and checked, its scorer's spec and weights included."""
    raw = loads_strict(read_input_text(path, what="fine-tuning manifest"), source=str(path))
    manifest = validate_line(SftManifest, raw, source=str(path), line=None)
    try:
        ScorerIdentity.model_validate(manifest.scorer)
    except ValidationError as error:
        field, message = validation_problem(error)
        raise InputError(message, source=str(path), field=f"scorer.{field}") from None
    return manifest
