"""A fine-tuning's folder as a stage: its lock, its manifest, a loss record per step.

DIR/manifest.json   the stage's manifest: the scorer (``model``) and the plan (``config``)
DIR/losses.jsonl    a :class:`StepLoss` per step, appended and flushed as each is taken
DIR/adapter.json    each ``adapter/`` file's SHA-256, written once the training finishes
                    (its own SHA-256 in the manifest's ``fixed``)
DIR/checkpoint/     the last checkpoint (adapter and optimiser state), side files
DIR/adapter/        the finished adapter (PEFT's files), side files
DIR/.lock           held by the one process training into DIR

A rerun with the same plan and scorer resumes from the checkpoint (the loss lines after it are
dropped and redone); another plan is refused, listing the differences.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from readout_audit._exceptions import InputError
from readout_audit._util import RunLock, dumps_line, read_lines
from readout_audit.lift.sft._folder import losses_until, read_plan, write_losses
from readout_audit.lift.sft._manifest import (
    ADAPTER,
    ADAPTER_FILES,
    LOSSES,
    SFT_MANIFEST,
    AdapterFiles,
    SftConfig,
    SftPlan,
    StepLoss,
    validated,
)
from readout_audit.lift.sft._split import PaperSplit
from readout_audit.log import Manifest, Stage, read_fixed


class SftStage(Stage):
    """Writes one fine-tuning's folder, holding its lock from its opening (before a load)."""

    def __init__(self, out: Path) -> None:
        self.out = out
        super().__init__(RunLock(out), out / SFT_MANIFEST, out / LOSSES, folder=out)

    def start(self, manifest: Manifest, losses: list[StepLoss]) -> None:
        """Write the manifest (or check it and add this invocation) and keep ``losses`` alone.

        ``losses``: the steps up to the checkpoint resumed from; later lines are dropped.
        """
        self._resume(manifest, f"{self.out} holds a fine-tuning")
        write_losses(self.records_path, losses)
        self._open_records()

    def append(self, loss: StepLoss) -> None:
        """Append one step's losses and flush them."""
        self._write_line(dumps_line(loss.model_dump(mode="json")))

    def finish(self, adapter_files: dict[str, str], steps: int) -> None:
        """Record the adapter's files once, tied to the manifest, and mark this invocation finished.

        ``adapter.json`` holds each adapter file's SHA-256 and the manifest holds its own, so an
        adapter copied in with another fine-tuning's ``adapter.json`` is refused when read.
        """
        self.fix(ADAPTER_FILES, {"adapter_files": adapter_files})
        self.finish_invocation(planned=steps)


@dataclass(frozen=True)
class FineTuning:
    """A fine-tuning's folder read back: its plan, its scorer, every step and its adapter."""

    folder: Path
    plan: SftPlan
    scorer: dict[str, Any]
    """The manifest's ``model``: the scorer it started from (spec, weight files, dtype)."""
    losses: list[StepLoss]
    adapter_files: dict[str, str]
    """The finished adapter's files (names in ``adapter/``) → SHA-256; empty until it finishes."""
    identity: dict[str, Any]
    """The manifest's identity (what a rerun must match)."""

    @property
    def config(self) -> SftConfig:
        """The training's hyper-parameters."""
        return self.plan.training

    @property
    def split(self) -> PaperSplit:
        """The papers trained on and held out."""
        return self.plan.split

    @property
    def setup(self) -> dict[str, Any]:
        """The budgets its prompts were built with."""
        return self.plan.setup

    @property
    def finished(self) -> bool:
        """Whether every step was taken and the adapter saved."""
        return bool(self.adapter_files) and len(self.losses) == self.plan.training.total_steps

    def summary(self) -> str:
        """One line: the steps taken, the last loss, where the adapter is."""
        last = f" (last loss {self.losses[-1].loss:.4f})" if self.losses else ""
        return f"trained {len(self.losses)} steps{last}; adapter in {self.folder / ADAPTER}"


def read_fine_tuning(out: Path) -> FineTuning:
    """What ``out`` holds, checked: manifest, plan, loss lines and, once written, ``adapter.json``.

    A fine-tuning is finished when its last invocation finished after its last step; its
    ``adapter.json`` is read only if its SHA-256 is the one the manifest records.
    """
    manifest, plan = read_plan(out)
    last = manifest.invocations[-1] if manifest.invocations else None
    done = last is not None and last.finished is not None
    steps = len(read_lines(out / LOSSES, append_only=True).lines) if done else 0
    losses = losses_until(out / LOSSES, steps) if done else []
    files: dict[str, str] = {}
    if done:
        path = out / ADAPTER_FILES
        if not path.is_file():
            raise InputError(
                "is missing: a finished fine-tuning records its adapter's files there",
                source=str(path),
            )
        document = read_fixed(path, manifest, "train again into a new folder")
        files = validated(AdapterFiles, document, path).adapter_files
    return FineTuning(out, plan, manifest.model, losses, files, manifest.identity())
