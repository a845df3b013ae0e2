"""A stage read back for reporting: its manifest, its files and whether it finished.

A stage is a run directory (``RUN/manifest.json``), a stage directory of the same layout, or a
stage file beside its ``<file>.manifest.json``; ``readout report`` shows any of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from readout_audit._exceptions import RunDirectoryError
from readout_audit._util import LOCK, lock_holder
from readout_audit.log._kinds import run_kinds
from readout_audit.log._manifest import Manifest
from readout_audit.log._run import RECORDS
from readout_audit.log._stage import MANIFEST_SUFFIX, load_manifest, stage_manifest_path

DIRECTORY_MANIFEST = "manifest.json"


@dataclass(frozen=True)
class StageFileInfo:
    """One file of a stage: its name, its size, and its complete lines when it is JSON Lines."""

    name: str
    size: int
    lines: int | None


@dataclass(frozen=True)
class StageView:
    """What a stage holds, from its files alone."""

    path: Path
    manifest: Manifest
    files: list[StageFileInfo]
    writer: str | None
    """The process writing the stage now (its lock's holder), if one is."""

    @property
    def finished(self) -> bool:
        """Whether the last invocation that wrote the stage finished."""
        invocations = self.manifest.invocations
        return bool(invocations) and invocations[-1].finished is not None


def _stage_files_in(directory: Path) -> list[Path]:
    """The manifests of the stage files a directory without a manifest of its own holds."""
    if (directory / DIRECTORY_MANIFEST).exists():
        return []
    return sorted(p for p in directory.glob("*" + MANIFEST_SUFFIX) if p.is_file())


def stage_manifest_of(path: Path) -> Path:
    """Where the manifest of the stage at ``path`` is (``path`` may name the manifest itself).

    A directory holding one stage file and no manifest of its own (a judge inventory's
    ``DIR``) is that stage; one holding several is refused, naming them.
    """
    if path.name.endswith(MANIFEST_SUFFIX):
        return path
    if not path.is_dir():
        return stage_manifest_path(path)
    inside = _stage_files_in(path)
    if len(inside) > 1:
        names = ", ".join(p.name.removesuffix(MANIFEST_SUFFIX) for p in inside)
        raise RunDirectoryError(f"{path} holds several stages ({names}): report one of them")
    return inside[0] if inside else path / DIRECTORY_MANIFEST


def _info(path: Path) -> StageFileInfo:
    lines = None
    if path.suffix == ".jsonl":
        with path.open("rb") as handle:
            lines = sum(1 for line in handle if line.endswith(b"\n"))
    return StageFileInfo(path.name, path.stat().st_size, lines)


def read_stage(path: str | Path) -> StageView:
    """The stage at ``path`` (a directory, a stage file or its manifest), read, never written."""
    path = Path(path)
    manifest_path = stage_manifest_of(path)
    if not manifest_path.is_file():
        raise RunDirectoryError(
            f"{path} is no stage: {manifest_path.name} is not there (a run directory holds "
            f"{DIRECTORY_MANIFEST}, a stage file a {MANIFEST_SUFFIX} beside it)"
        )
    manifest = load_manifest(manifest_path, "it cannot be reported")
    if manifest_path.name == DIRECTORY_MANIFEST:
        root = manifest_path.parent
        members = sorted(p for p in root.rglob("*") if p.is_file() and p.name != LOCK)
        return StageView(root, manifest, [_info(p) for p in members], lock_holder(root))
    stage = manifest_path.with_name(manifest_path.name.removesuffix(MANIFEST_SUFFIX))
    files = [_info(p) for p in (stage, manifest_path) if p.is_file()]
    writer = lock_holder(stage, beside=True)
    if writer is None and path.is_dir():  # a folder of one stage (an inventory): DIR/.lock
        writer = lock_holder(path)
    return StageView(stage, manifest, files, writer)


def holds_run(path: Path) -> bool:
    """Whether ``path`` is a run directory of records, which its kind reports, or another stage.

    A directory is a run when its manifest names a registered run kind, or when it holds
    ``records.jsonl`` (a run of a kind not installed here: its report names the kind missing).
    """
    if not path.is_dir():
        return False
    if (path / RECORDS).exists():
        return True
    manifest = path / DIRECTORY_MANIFEST
    if not manifest.is_file():
        return not _stage_files_in(path)  # no stage either: the run reader says what is missing
    kind = load_manifest(manifest, "it cannot be reported").kind
    return kind in {k.name for k in run_kinds()}
