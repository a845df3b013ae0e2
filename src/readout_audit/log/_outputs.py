"""Files a command writes where the user says: never over a stage's files or an input.

A stage's files (a run directory and everything in it, a stage file, its manifest and its lock,
a stage folder such as a judge inventory's) belong to that stage's own writer alone, so no
report, export or other command's output lands among them, whatever its name, even forced.
Every file a command reads is an input: a file named, or one found inside a folder it reads,
so nothing is written inside an input folder. An existing regular file is replaced only when
forced; a device, a FIFO or a link never is.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from readout_audit._exceptions import InputError, ReadoutError
from readout_audit._util import LOCK, lock_holder, lock_path
from readout_audit.log._run import MANIFEST
from readout_audit.log._stage import MANIFEST_SUFFIX, load_manifest


def _real(path: Path) -> Path:
    """``path`` with its symbolic links followed; a loop stays as written (no ``RuntimeError``)."""
    return Path(os.path.realpath(path))


@dataclass(frozen=True)
class StageOwner:
    """The stage a path belongs to: where it is, its kind, and which of its files the path is."""

    stage: Path
    kind: str
    part: Literal["member", "file", "sidecar"]
    """``member``: inside a stage folder; ``file``: a stage file; ``sidecar``: one of a stage
    file's own files beside it (``FILE.manifest.json``, ``FILE.lock``, ``FILE.papers.json``)."""

    def refusal(self) -> str:
        """Why another command may not write the path, in one line."""
        if self.part == "member" and (self.stage / MANIFEST).is_file():
            return (
                f"is inside the run directory {self.stage}, whose files only the run writes; "
                "choose a path outside it"
            )
        if self.part == "member":
            return (
                f"is inside the stage folder {self.stage} ({self.kind}), whose files only its "
                "own writer writes; choose a path outside it"
            )
        what = "the stage file" if self.part == "file" else "one of the files of the stage file"
        return (
            f"is {what} {self.stage} ({self.kind}), which only its own writer replaces, even "
            "with --force; choose another path"
        )


def _manifest_kind(path: Path) -> str | None:
    """The kind a stage manifest at ``path`` names, or None when none is there (or it is not one).

    A web extension's ``manifest.json`` or a user's JSON file is no stage's.
    """
    if not path.is_file():
        return None
    try:
        return load_manifest(path, "it is no stage's").kind
    except (ReadoutError, OSError, ValueError):
        return None


def _folder_kind(folder: Path) -> str | None:
    """The kind of the stage ``folder`` is: a run directory, or a locked folder of stage files."""
    kind = _manifest_kind(folder / MANIFEST)
    if kind is None and os.path.lexists(folder / LOCK):
        manifests = sorted(folder.glob("*" + MANIFEST_SUFFIX))
        kind = next((k for m in manifests if (k := _manifest_kind(m)) is not None), None)
    return kind


def _stage_file_owning(real: Path) -> StageOwner | None:
    """The stage file whose own file ``real`` is: the file itself or a ``FILE.*`` beside it."""
    if not real.parent.is_dir():
        return None
    for manifest in sorted(real.parent.glob("*" + MANIFEST_SUFFIX)):
        stage = manifest.with_name(manifest.name.removesuffix(MANIFEST_SUFFIX))
        if real != stage and not real.name.startswith(stage.name + "."):
            continue
        kind = _manifest_kind(manifest)
        if kind is not None:
            return StageOwner(stage, kind, "file" if real == stage else "sidecar")
    return None


def stage_owning(path: Path) -> StageOwner | None:
    """The stage ``path`` (existing or not) belongs to, the outermost first, or None.

    A stage folder's members come first (a judge inventory's ``inventory.jsonl`` is the
    inventory folder's); then a stage file or one of its own files beside it.
    """
    real = _real(path)
    for folder in reversed(real.parents):
        kind = _folder_kind(folder)
        if kind is not None:
            return StageOwner(folder, kind, "member")
    return _stage_file_owning(real)


def shares_files(first: Path, second: Path) -> bool:
    """Whether two stage files would write one file.

    They do when they are the same path, or when one's own ``FILE.*`` beside it (its manifest,
    lock or ledger) is the other.
    """
    a, b = _real(first), _real(second)
    return a.parent == b.parent and (
        a.name == b.name or a.name.startswith(b.name + ".") or b.name.startswith(a.name + ".")
    )


def _is_regular(path: Path) -> bool:
    """Whether ``path`` is a regular file, links not followed.

    Another program's ``.lock`` folder above an output is none of this project's locks.
    """
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _writer_refusal(real: Path) -> str | None:
    """Why ``real`` may not be written while another process writes its stage, or None.

    A writer holds ``FILE.lock`` beside a stage file, or ``DIR/.lock`` of a folder above it,
    before its manifest exists (while its model loads); this process's own locks do not count.
    """
    folders = [folder for folder in real.parents if _is_regular(folder / LOCK)]
    for target, beside in [(real, True), *((folder, False) for folder in folders)]:
        holder = lock_holder(target, beside=beside)
        if holder is not None and holder != str(os.getpid()):
            return (
                f"is being written by process {holder} ({lock_path(target, beside=beside)} is "
                "held); wait for it to finish or choose another path"
            )
    return None


def unwritable(path: Path) -> str | None:
    """Why ``path`` (a file or a directory, existing or to be made) cannot be written, or None.

    The nearest existing folder is tried by creating a file in it and removing it again:
    permission bits do not tell (root passes them; a read-only mount or ``/sys`` does not).
    """
    existing = next(p for p in (path, *path.parents) if os.path.lexists(p))
    if existing != path and not existing.is_dir():
        return f"cannot be created: {existing} is a file"
    folder = existing if existing.is_dir() else existing.parent
    try:
        handle, name = tempfile.mkstemp(dir=folder, prefix=".readout-probe-")
    except OSError as error:
        return f"{folder} is not writable ({error.strerror})"
    os.close(handle)
    os.unlink(name)
    return None


def read_only_files(directory: Path) -> list[Path]:
    """The files directly in ``directory`` that cannot be opened for appending."""
    found = []
    for path in sorted(directory.iterdir()):
        if not path.is_file():
            continue
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_APPEND))
        except OSError:
            found.append(path)
    return found


def _input_refusal(real: Path, inputs: Iterable[Path]) -> str | None:
    """Why ``real`` (a resolved path) is one of the command's inputs, or None."""
    for given in inputs:
        source = _real(Path(given))
        if real == source:
            return "is also an input of this command; choose another path"
        if source in real.parents:
            return (
                f"is inside {given}, a folder this command reads (every file in it is an "
                "input); choose a path outside it"
            )
    return None


def _refusal(
    path: Path, inputs: Iterable[Path], force: bool, own: tuple[Path, str] | None
) -> str | None:
    """Why ``path`` may not be written, or None when it may."""
    if path.is_dir():
        return "is a directory; give a file name"
    reason = _input_refusal(_real(path), inputs)
    if reason is not None:
        return reason
    owner = stage_owning(path)
    if owner is not None and (own is None or (owner.stage, owner.kind) != (_real(own[0]), own[1])):
        return owner.refusal()
    reason = _writer_refusal(_real(path))
    if reason is not None:
        return reason
    if os.path.lexists(path):
        special = _not_a_file(path)
        if special is not None:
            return f"is {special}, not a regular file: never replaced, even with --force"
        if not force:
            return "exists; pass --force to overwrite it"
    return unwritable(path)


def _not_a_file(path: Path) -> str | None:
    """What ``path`` is when it is not a regular file (a device, a FIFO, a link), else None."""
    mode = os.lstat(path).st_mode
    kinds = {
        stat.S_ISLNK: "a symbolic link",
        stat.S_ISCHR: "a character device",
        stat.S_ISBLK: "a block device",
        stat.S_ISFIFO: "a FIFO",
        stat.S_ISSOCK: "a socket",
    }
    return next((name for test, name in kinds.items() if test(mode)), None)


def check_output_path(
    path: Path,
    *,
    option: str,
    inputs: Iterable[Path] = (),
    force: bool = False,
    own: tuple[Path, str] | None = None,
) -> None:
    """Refuse ``path`` as the output named by ``--option`` before anything is written.

    Refused: a directory; any stage's file (:func:`stage_owning`) but those of ``own`` (the
    stage this command writes, and its kind); one of the command's ``inputs`` or a path inside
    an input folder; an existing entry that is not a regular file (a device, a FIFO, a link:
    replacing one would swap ``/dev/null`` for a file) even with ``force``; and an existing
    file unless ``force``. The ``InputError`` names the path, the option and the reason.
    """
    reason = _refusal(path, list(inputs), force, own)
    if reason is not None:
        raise InputError(reason, source=str(path), field=option)
