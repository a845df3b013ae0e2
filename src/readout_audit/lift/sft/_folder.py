"""A fine-tuning's folder: only its own entries, read back checked, written whole, one writer.

``--out`` is a new or empty folder or one holding a fine-tuning's ``manifest.json``: a folder of
anyone else's files is refused before anything in it changes, and inside an SFT folder only the
entries named here are written, each of the kind the training writes (a user's file called
``checkpoint.old`` is refused, never replaced). A write the system refuses (a full disk) is one
error naming the file, and what was saved before it stays. A folder of an earlier version
(``sft.json``) is refused with what to do: train again into a new folder.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from readout_audit._exceptions import InputError
from readout_audit._util import (
    LOCK,
    check_regular,
    dumps_line,
    loads_line,
    loads_strict,
    read_input_bytes,
    read_input_text,
    read_lines,
    umask_mode,
    validate_line,
    write_bytes_atomic,
)
from readout_audit.lift.sft._manifest import (
    ADAPTER,
    ADAPTER_FILES,
    CHECKPOINT,
    LEGACY_MANIFEST,
    LOSSES,
    SFT_KIND,
    SFT_MANIFEST,
    SftPlan,
    StepLoss,
    plan_differences,
    validated,
)
from readout_audit.log import Manifest, load_manifest

STATE = "state.json"
ADAPTER_STATE = "adapter.pt"
OPTIMIZER_STATE = "optimizer.pt"
STAGING = f"{CHECKPOINT}.tmp"
OLD = f"{CHECKPOINT}.old"
ADAPTER_STAGING = f"{ADAPTER}.tmp"
OWN = {
    SFT_MANIFEST: False,
    ADAPTER_FILES: False,
    LOSSES: False,
    LOCK: False,
    CHECKPOINT: True,
    STAGING: True,
    OLD: True,
    ADAPTER: True,
    ADAPTER_STAGING: True,
}
"""Every entry the training writes in its folder, and whether it is a folder."""


@dataclass(frozen=True)
class Progress:
    """How far a fine-tuning got: its manifest and plan, its checkpoint's step, the losses."""

    manifest: Manifest
    plan: SftPlan
    step: int
    losses: list[StepLoss]
    checkpoint: Path | None
    """The checkpoint folder to resume from (None at step 0)."""


def check_folder(out: Path) -> None:
    """Refuse ``out`` unless it is new, empty, or a fine-tuning's folder with sound entries."""
    if not os.path.lexists(out):
        return
    if not out.is_dir():
        raise InputError("is not a folder", source=str(out), field="out")
    names = sorted(os.listdir(out))
    foreign = [name for name in names if name != LOCK]
    if LEGACY_MANIFEST in names and SFT_MANIFEST not in names:
        raise InputError(
            f"holds {LEGACY_MANIFEST}, a fine-tuning of an earlier readout-audit version, which "
            "this version neither resumes nor scores: train it again into a new folder",
            source=str(out),
            field="out",
        )
    if SFT_MANIFEST not in names and foreign:
        raise InputError(
            f"holds {foreign[0]!r} and no {SFT_MANIFEST}: not a readout lift sft folder; "
            "give a new or empty folder",
            source=str(out),
            field="out",
        )
    for name in (n for n in names if n in OWN):
        mode = os.lstat(out / name).st_mode
        if not (stat.S_ISDIR(mode) if OWN[name] else stat.S_ISREG(mode)):
            kind = "folder" if OWN[name] else "regular file"
            raise InputError(
                f"is not the {kind} a fine-tuning writes here; move it away", source=str(out / name)
            )


def read_progress(out: Path) -> Progress | None:
    """The fine-tuning ``out`` holds, checked whole, or None for a new or empty folder."""
    check_folder(out)
    if not (out / SFT_MANIFEST).exists():
        return None
    manifest, plan = read_plan(out)
    folder = next((out / n for n in (CHECKPOINT, OLD) if (out / n).exists()), None)
    step = 0 if folder is None else _checkpoint_step(folder, plan.training.total_steps)
    return Progress(manifest, plan, step, losses_until(out / LOSSES, step), folder)


def read_plan(out: Path) -> tuple[Manifest, SftPlan]:
    """A fine-tuning folder's manifest and the plan its ``config`` holds, checked."""
    path = out / SFT_MANIFEST
    manifest = load_manifest(path, "train into a new folder")
    if manifest.kind != SFT_KIND:
        raise InputError(f"is a {manifest.kind} manifest, not a fine-tuning's", source=str(path))
    return manifest, validated(SftPlan, manifest.config, path, "config.")


def _checkpoint_step(folder: Path, steps: int) -> int:
    """The step a checkpoint holds, its files present ('checkpoint.old' after a cut swap)."""
    path = folder / STATE
    raw = loads_strict(read_input_text(path, what="checkpoint state"), source=str(path))
    step = raw.get("step") if isinstance(raw, dict) else None
    if type(step) is not int or not 1 <= step <= steps:
        shown = repr(step)[:40]
        raise InputError(
            f"must be a step from 1 to {steps}, got {shown}", source=str(path), field="step"
        )
    for name in (ADAPTER_STATE, OPTIMIZER_STATE):
        check_regular(folder / name, what="checkpoint file")
    return step


def losses_until(path: Path, step: int) -> list[StepLoss]:
    """Steps 1 to ``step`` of ``losses.jsonl``; later lines (a cut one too) are redone."""
    lines = read_lines(path, append_only=True).lines
    if len(lines) < step:
        raise InputError(
            f"holds the losses of {len(lines)} steps but the checkpoint is at step {step}",
            source=str(path),
        )
    kept = []
    for index, (number, text) in enumerate(lines[:step], start=1):
        raw = loads_line(text, source=str(path), line=number)
        loss = validate_line(StepLoss, raw, source=str(path), line=number)
        if loss.step != index:
            raise InputError(
                f"records step {loss.step} where step {index} belongs",
                source=str(path),
                line=number,
                field="step",
            )
        kept.append(loss)
    return kept


def check_sft_out(out: Path, planned: SftPlan) -> None:
    """Before the scorer loads: ``out`` is new, empty, or this fine-tuning's sound folder."""
    progress = read_progress(out)
    if progress is not None:
        plan_differences(progress.plan, planned, out)


def unwritable(path: Path, error: Exception) -> InputError:
    """The one-line error of a write the system refused (a full disk, a read-only mount)."""
    reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
    return InputError(
        f"cannot be written ({reason}); what was saved before is kept: rerun to resume",
        source=str(path),
    )


def write_file(path: Path, data: bytes) -> None:
    """Write one of the folder's files whole or not at all."""
    try:
        write_bytes_atomic(path, data)
    except OSError as error:
        raise unwritable(path, error) from None


def write_json(path: Path, data: Any) -> None:
    """Write a JSON document whole or not at all (a checkpoint's state)."""
    write_file(path, (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode())


def write_losses(path: Path, losses: list[StepLoss]) -> None:
    """``losses.jsonl`` holding exactly ``losses`` (rewritten only when it holds more)."""
    data = "".join(dumps_line(s.model_dump(mode="json")) + "\n" for s in losses).encode()
    if not path.exists() or path.read_bytes() != data:
        write_file(path, data)


def save_checkpoint(out: Path, step: int, files: dict[str, bytes]) -> None:
    """The step and its state files as ``out/checkpoint``, replacing the last one whole."""
    staging, final, old = out / STAGING, out / CHECKPOINT, out / OLD
    shutil.rmtree(staging, ignore_errors=True)
    try:
        staging.mkdir()
    except OSError as error:
        raise unwritable(staging, error) from None
    try:
        for name, data in files.items():
            write_file(staging / name, data)
        write_json(staging / STATE, {"step": step})
    except InputError:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    if final.exists():  # else the last one is 'checkpoint.old' (a swap cut short): kept till now
        shutil.rmtree(old, ignore_errors=True)
        os.replace(final, old)
    os.replace(staging, final)
    shutil.rmtree(old, ignore_errors=True)


def save_adapter(out: Path, save: Callable[[Path], None]) -> dict[str, str]:
    """``save(folder)`` into a staging folder renamed ``out/adapter``; its files' SHA-256."""
    from safetensors import SafetensorError

    staging, final = out / ADAPTER_STAGING, out / ADAPTER
    shutil.rmtree(staging, ignore_errors=True)
    try:
        save(staging)
    except (OSError, SafetensorError) as error:
        shutil.rmtree(staging, ignore_errors=True)
        raise unwritable(staging, error) from None
    for path in staging.iterdir():  # safetensors writes 0600 whatever the umask
        path.chmod(umask_mode())
    hashes = adapter_hashes(staging)
    shutil.rmtree(final, ignore_errors=True)
    os.replace(staging, final)
    return hashes


def _sha256(path: Path) -> str:
    """An adapter file's SHA-256, read through the input gate (never a cached hash)."""
    return hashlib.sha256(read_input_bytes(path, what="adapter file")).hexdigest()


def adapter_hashes(folder: Path) -> dict[str, str]:
    """Each file of an adapter folder → its SHA-256."""
    return {path.name: _sha256(path) for path in sorted(folder.iterdir())}


def check_adapter(folder: Path, recorded: dict[str, str]) -> None:
    """Refuse an adapter folder whose files are not those ``adapter.json`` recorded, by name."""
    if not folder.is_dir() or folder.is_symlink():
        raise InputError(f"holds no {ADAPTER}/ folder", source=str(folder.parent))
    for name in sorted(recorded):
        path = folder / name
        if not os.path.lexists(path):
            raise InputError(f"is missing: {ADAPTER_FILES} records it", source=str(path))
        if _sha256(path) != recorded[name]:
            raise InputError(
                f"is not the file this fine-tuning saved (its SHA-256 differs from "
                f"{ADAPTER_FILES}'s)",
                source=str(path),
            )
    extra = sorted(set(os.listdir(folder)) - set(recorded))
    if extra:
        raise InputError(
            f"is a file {ADAPTER_FILES} does not record", source=str(folder / extra[0])
        )
