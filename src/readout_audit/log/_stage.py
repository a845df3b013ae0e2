"""Stages: what every protocol step writes, kept one way (a run directory is one stage).

:class:`Stage` holds the lock, the manifest and the append-only records; a run directory
(``RUN/.lock``, ``RUN/manifest.json``, ``RUN/records.jsonl``) and a stage file, laid out so:

FILE                 the stage's records, one JSON line each, appended and flushed one at a time
FILE.manifest.json   how they were made; reopening it with another configuration is refused
FILE.lock            held (flock) by the one process writing FILE

A rerun of the same configuration resumes: the records written are read back (a last line cut
by an interruption is dropped), and only the missing ones are made. Documents a stage fixes
once (a frozen selection, a plan) go through :func:`write_once`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Hashable
from pathlib import Path
from types import TracebackType
from typing import Any, Generic, Self, TypeVar

from pydantic import BaseModel, ValidationError

from readout_audit._exceptions import InputError, RunDirectoryError
from readout_audit._util import (
    JsonlAppender,
    RunLock,
    decode_json,
    iter_values,
    make_folders,
    read_input_bytes,
    read_models,
    remove_empty,
    write_json_atomic,
)
from readout_audit.log._manifest import Manifest, now

R = TypeVar("R", bound=BaseModel)
K = TypeVar("K", bound=Hashable)
MANIFEST_SUFFIX = ".manifest.json"


def differences(old: dict[str, Any], new: dict[str, Any], prefix: str = "") -> list[str]:
    """Every dotted key whose value differs between two nested dictionaries, with both values."""
    found = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if isinstance(a, dict) and isinstance(b, dict):
            found += differences(a, b, f"{prefix}{key}.")
        elif a != b:
            found.append(f"{prefix}{key}: {a!r} -> {b!r}")
    return found


def read_json_file(path: Path, remedy: str, sha256: str | None = None) -> Any:
    """A written file's JSON, decoded strictly (a repeated key, NaN or a cut file is corruption).

    With ``sha256``, only when the file's bytes hash to it (a document its manifest vouches for).
    """
    data = read_input_bytes(path)
    if sha256 is not None and hashlib.sha256(data).hexdigest() != sha256:
        raise RunDirectoryError(
            f"{path} is not the document its manifest records (its SHA-256 differs: swapped "
            f"or edited); {remedy}"
        )
    try:
        return decode_json(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as error:  # JSONDecodeError is a ValueError
        raise RunDirectoryError(f"{path} is corrupt (not JSON: {error}); {remedy}") from None


def read_fixed(path: Path, manifest: Manifest, remedy: str) -> Any:
    """A document a stage fixed (:meth:`Stage.fix`), read only if ``manifest`` records its hash.

    One copied in from another stage's folder, edited, or never recorded (written by an earlier
    version) is refused naming it, with ``remedy``.
    """
    recorded = manifest.fixed.get(path.name)
    if recorded is None:
        raise RunDirectoryError(
            f"{path} is not vouched for: its stage's manifest records no SHA-256 of it (an "
            f"earlier version's?); {remedy}"
        )
    return read_json_file(path, remedy, sha256=recorded)


def load_manifest(path: Path, remedy: str) -> Manifest:
    """A manifest file, decoded strictly and validated; a corrupt one names ``remedy``."""
    raw = read_json_file(path, remedy)
    try:
        return Manifest.model_validate(raw)
    except ValidationError as error:
        problem = error.errors()[0]
        where = ".".join(str(p) for p in problem["loc"])
        raise RunDirectoryError(
            f"{path} is corrupt ({where + ': ' if where else ''}{problem['msg']}); {remedy}"
        ) from None


def resumed_manifest(path: Path, manifest: Manifest, holds: str) -> Manifest:
    """``manifest`` written at ``path``, or, when one is there, checked against it and added to.

    The identities must match, else the error says the output ``holds`` (``RUN holds a run``)
    something of another configuration and lists every difference; the manifest returned
    carries every invocation so far.
    """
    if path.exists():
        previous = load_manifest(path, "choose another output")
        changed = differences(previous.identity(), manifest.identity())
        if changed:
            raise RunDirectoryError(
                f"{holds} of another configuration; choose a new output. Differences: "
                + "; ".join(changed)
            )
        manifest = previous.model_copy(
            update={"invocations": [*previous.invocations, *manifest.invocations]}
        )
    write_json_atomic(path, manifest.model_dump(mode="json"))
    return manifest


def stage_manifest_path(path: Path) -> Path:
    """Where a stage file's manifest lives: ``<file>.manifest.json`` beside it."""
    return path.with_name(path.name + MANIFEST_SUFFIX)


def stage_lock(path: Path) -> RunLock:
    """The lock a stage file is written under: ``<file>.lock`` beside it."""
    return RunLock(path, beside=True)


def check_unlocked(path: Path) -> None:
    """Raise at once, naming the holder, while another process writes the stage file.

    For a command to call before it loads a model; the writer then takes the lock for good.
    """
    stage_lock(path).probe()


class Stage:
    """What every stage is: one writing process (its lock), its manifest, append-only records.

    A run directory (:class:`~readout_audit.log.RunDirectory`) and a stage file
    (:class:`StageFile`) are stages: the lock is taken when the stage opens, the manifest is
    written or checked against the one on disk (:func:`resumed_manifest`), each record is one
    flushed line (a last line cut by an interruption is dropped on reopening), and finishing
    marks the invocation finished in the manifest. Documents fixed once go through
    :func:`write_once`.
    """

    def __init__(
        self, lock: RunLock, manifest_path: Path, records_path: Path, *, folder: Path | None = None
    ) -> None:
        """Take the lock; ``folder``: the stage's own folder, made now if need be.

        A stage opened before a slow step (a model's loading) refuses a second writer at once;
        closed before it starts, it removes the folders it made (a refused run leaves no trace).
        """
        self.manifest_path, self.records_path = manifest_path, records_path
        self.manifest: Manifest | None = None
        self._appender: JsonlAppender | None = None
        self._lock = lock
        try:
            self._made = [] if folder is None else make_folders(folder)
        except OSError as error:
            raise RunDirectoryError(f"cannot create {folder}: {error.strerror}") from None
        try:
            lock.acquire()
        except BaseException:
            remove_empty(self._made)
            raise

    def _resume(self, manifest: Manifest, holds: str) -> Manifest:
        """Write ``manifest``, or check it against the one on disk and add this invocation."""
        self.manifest = resumed_manifest(self.manifest_path, manifest, holds)
        return self.manifest

    def _open_records(self) -> None:
        """Open the records for appending (dropping a last line cut by an interruption)."""
        self._appender = JsonlAppender(self.records_path)

    def _write_line(self, text: str) -> None:
        if self._appender is None:
            raise RunDirectoryError(f"start {self.records_path} before appending records")
        self._appender.write_text(text)

    def write_manifest(self) -> None:
        """Write the manifest as it now is (atomically)."""
        assert self.manifest is not None
        write_json_atomic(self.manifest_path, self.manifest.model_dump(mode="json"))

    def fix(self, name: str, data: dict[str, Any]) -> None:
        """Write the document ``name`` beside the manifest once, and record its SHA-256 there.

        The manifest then vouches for it (:func:`read_fixed`); a rerun must find the same
        document (:func:`write_once`), the one the manifest recorded when it has.
        """
        assert self.manifest is not None
        path = self.manifest_path.with_name(name)
        write_once(path, data)
        if name not in self.manifest.fixed:
            self.manifest.fixed[name] = hashlib.sha256(read_input_bytes(path)).hexdigest()
            self.write_manifest()
        read_fixed(path, self.manifest, "use a new output")

    def finish_invocation(self, planned: int | None = None) -> None:
        """Mark this invocation finished (with the records its plan holds, when counted)."""
        assert self.manifest is not None
        self.manifest.invocations[-1].finished = now()
        if planned is not None:
            self.manifest.invocations[-1].planned = planned
        self.write_manifest()

    def close(self) -> None:
        """Close the records and release the lock (idempotent).

        A stage never started leaves none of the folders it made.
        """
        if self._appender is not None:
            self._appender.close()
            self._appender = None
        self._lock.release()
        if self.manifest is None:
            remove_empty(self._made)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()


class StageFile(Stage, Generic[R, K]):
    """One stage's records in one file, locked, its manifest written or checked beside it.

    ``key`` names a record (from its field ``key_field``, for messages); a second record of
    one key is refused, in the file as read back and when appended. ``what`` says what the
    records are.
    """

    manifest: Manifest

    def __init__(
        self,
        path: Path,
        manifest: Manifest,
        record_type: type[R],
        key: Callable[[R], K],
        *,
        key_field: str = "id",
        what: str = "records",
    ) -> None:
        self.path, self.record_type, self.key, self.what = path, record_type, key, what
        path.parent.mkdir(parents=True, exist_ok=True)
        sidecar = stage_manifest_path(path)
        super().__init__(stage_lock(path), sidecar, path)
        try:
            if not sidecar.exists() and path.exists() and path.stat().st_size:
                raise RunDirectoryError(
                    f"{path} exists without its manifest {sidecar.name}; choose another output"
                )
            self._resume(manifest, f"{path} holds {what}")
            written = read_models(
                iter_values(path, append_only=True),
                record_type,
                source=str(path),
                key=key,
                key_field=key_field,
            )
            self.done: dict[K, R] = {key(r): r for r in written}
            """The records already in the file, by key."""
            self._open_records()
        except BaseException:
            self._lock.release()
            raise

    def append(self, record: R) -> None:
        """Append one record and flush it to disk."""
        key = self.key(record)
        if key in self.done:
            raise RunDirectoryError(f"{key!r} is already in {self.path}")
        self._write_line(record.model_dump_json())
        self.done[key] = record

    def finish(self) -> None:
        """Mark this invocation finished in the manifest."""
        self.finish_invocation()


def write_once(path: Path, data: dict[str, Any], remedy: str = "use a new output") -> None:
    """Write a stage's fixed document once; a rerun must find the same document there.

    A document already written whose fields differ is the work of other arguments: the error
    names the first field that differs, and ``remedy``.
    """
    if not path.exists():
        write_json_atomic(path, data)
        return
    held = read_json_file(path, "choose a new output")
    wanted = json.loads(json.dumps(data))
    differing = [
        key for key in wanted if not isinstance(held, dict) or held.get(key) != wanted[key]
    ]
    if differing:
        raise InputError(
            f"was written with other arguments: {remedy}",
            source=str(path),
            field=differing[0],
        )
