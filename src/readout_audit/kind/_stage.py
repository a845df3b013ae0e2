"""One path from settings to a finished run, for a command and a notebook alike.

:func:`run_stage` checks the run directory before anything loads, runs the stage's checks
with the tokenizer alone, opens the model and runs the stage (which binds the model's ledger
to the run and finishes it through :func:`run_kind`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Generic, TypedDict, TypeVar

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from readout_audit._exceptions import InputError, RunDirectoryError
from readout_audit._util import INT_MAX, hold, option_hint, release_held
from readout_audit.kind._choice import ModelChoice
from readout_audit.log import (
    MANIFEST,
    existing_manifest,
    read_only_files,
    stage_owning,
    unwritable,
)
from readout_audit.model import DEFAULT_BATCH_SIZE, ScoringModel, TextCodec
from readout_audit.progress import ProgressMode
from readout_audit.readout import DEFAULT_TOP_K

T = TypeVar("T")


GreedyTokens = Annotated[
    int, Field(ge=0, le=INT_MAX, strict=True, json_schema_extra=option_hint(skip=True))
]
"""Greedy tokens an audit reads at each scored position (a notebook's setting, no option)."""
MAX_TOP_K = 1 << 20
"""The most tokens a record keeps of a distribution: more than any vocabulary (the largest,
Gemma 3's, has 262,144), so a record never asks for more than the model has."""


class RunSettings(BaseModel):
    """What every kind's run takes besides its items and protocol: typed, nothing else."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    top_k: int = Field(DEFAULT_TOP_K, ge=1, le=MAX_TOP_K, strict=True)
    """Tokens of each scored position's distribution kept in its record (at most 2^20, more
    than any model's vocabulary)."""
    template_kwargs: dict[str, JsonValue] = Field(
        default_factory=dict, json_schema_extra=option_hint(skip=True)
    )
    """Chat-template arguments, e.g. ``{"enable_thinking": False}``."""
    batch_size: int = Field(DEFAULT_BATCH_SIZE, ge=1, le=INT_MAX, strict=True)
    """Scored positions per model call (one padded forward, one batched decode)."""
    progress: ProgressMode = Field("off", json_schema_extra=option_hint(skip=True))
    """``bar``, ``lines`` or ``off``: a mode, never a truth value (``"off"`` is truthy)."""
    overwrite: bool = False
    """Delete the run already in --out (whatever its configuration) and start it again;
    without it, a run of the same configuration is resumed."""

    def loop_args(self) -> LoopArgs:
        """What every audit function passes on to :func:`run_kind`, as its keyword arguments."""
        return LoopArgs(
            top_k=self.top_k,
            batch_size=self.batch_size,
            progress=self.progress,
            overwrite=self.overwrite,
        )


class LoopArgs(TypedDict):
    """The run settings every audit function takes by keyword (typed: mypy checks each one)."""

    top_k: int
    batch_size: int
    progress: ProgressMode
    overwrite: bool


Preflight = Callable[[TextCodec, RunSettings], None]
"""Checks with the tokenizer alone (items rendered against the context window), before the
weights load: bad input stops a run before the slow step."""


@dataclass(frozen=True)
class StageRun(Generic[T]):
    """A kind's run as :func:`run_stage` takes it: its kind, its preflight and its run."""

    kind: str
    """The run directory's kind (a directory of another kind is refused before loading)."""
    run: Callable[[ScoringModel, Path, RunSettings], T]
    """Runs on the opened model into the directory (usually through :func:`run_kind`)."""
    preflight: Preflight | None = None


def check_out(out: Path, kind: str | None = None) -> None:
    """Before the model loads: ``out`` is a writable directory, unlocked, of the same kind.

    ``out``'s lock is taken here (the directory made if it does not exist yet, and removed
    again if nothing is written into it) and kept until the run directory takes it over (or
    :func:`run_stage` ends), so a second writer is refused before it loads a model too.
    """
    if out.exists() and not out.is_dir():
        raise InputError("is a file, not a run directory", source=str(out), field="out")
    problem = unwritable(out)
    if problem is not None:
        raise InputError(problem, source=str(out), field="out")
    if out.is_dir():
        read_only = read_only_files(out)
        if read_only:
            names = ", ".join(path.name for path in read_only)
            raise InputError(f"holds files that cannot be written: {names}", source=str(out))
        found = existing_manifest(out)  # a manifest.json that is no run's is refused
        if kind is not None and found is not None and found.kind != kind:
            raise RunDirectoryError(
                f"{out} holds a {found.kind} run and this command writes {kind} runs; "
                "choose another --out"
            )
    owner = stage_owning(out / MANIFEST)  # another stage's folder, or a folder inside one
    if owner is not None and owner.stage != Path(os.path.realpath(out)):
        raise InputError(owner.refusal(), source=str(out), field="out")
    if owner is not None and owner.part == "member" and not (out / MANIFEST).is_file():
        raise RunDirectoryError(
            f"{out} holds a {owner.kind} stage, not a run; choose another --out"
        )
    hold(out)  # kept through the model's loading: a second writer is refused now


def run_stage(
    stage: StageRun[T],
    settings: RunSettings,
    out: str | Path,
    model_choice: ModelChoice | ScoringModel,
) -> T:
    """Check ``out``, run the preflight, open the model (unless given one), run the stage.

    ``model_choice`` is a model to open, or one already open (a notebook's): the preflight
    then reads its tokenizer before the run. The lock taken on ``out`` is released at the end
    whatever happens, once the run directory no longer needs it.
    """
    out = Path(out)
    check_out(out, stage.kind)
    preflight = stage.preflight
    check = None if preflight is None else (lambda codec: preflight(codec, settings))
    try:
        if isinstance(model_choice, ModelChoice):
            model = model_choice.open(check)
        else:
            model = model_choice
            if check is not None:
                check(model.codec)
        return stage.run(model, out, settings)
    finally:
        release_held()
