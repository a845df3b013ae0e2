"""Where a run begins: ``out`` checked and its run directory opened, locked, before a load."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from readout_audit._exceptions import InputError, RunDirectoryError
from readout_audit.log import (
    MANIFEST,
    RunDirectory,
    existing_manifest,
    get_run_kind,
    read_only_files,
    stage_owning,
    unwritable,
)

if TYPE_CHECKING:
    from readout_audit.kind._kind import AuditKind


def check_out(out: Path, kind: str | None = None) -> None:
    """Before anything loads: ``out`` is a writable directory, or none yet, of the same kind."""
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
            get_run_kind(found.kind, out)  # another stage's folder is named as what it holds
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


def claim(out: str | Path, kind: AuditKind[Any, Any]) -> RunDirectory:
    """``out`` checked (:func:`check_out`) and its run directory opened, locked, for ``kind``.

    How every run begins, before anything slow (a model's loading): a second writer is refused
    at once, and the folders made for a run that never starts go again when it closes.
    """
    check_out(Path(out), kind.name)
    return RunDirectory(out, kind)
