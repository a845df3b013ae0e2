"""The run directory: manifest, append-only records, artifacts and summary, locked while written.

RUN/manifest.json      what is needed to redo the run; identity checked on resume
RUN/records.jsonl      one typed record per line, flushed as each completes
RUN/artifacts/*.json   results of a kind's stages before scoring (e.g. a diagnostic)
RUN/summary.json       the kind's typed summary, written when the run finishes, with the
                       SHA-256 of the records it was computed from and of itself
RUN/requests.sqlite    a served run's request ledger (with SQLite's -wal, -shm, -journal)
RUN/...                a kind's own files, as its ``files`` declares (hidden states, notes)
RUN/.lock              held (flock) by the one process writing the run

Overwriting deletes these files alone (the lock excepted): anything else in the folder is the
user's and stays.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar, cast

from pydantic import BaseModel, ValidationError

from readout_audit._exceptions import InputError, RunDirectoryError
from readout_audit._util import (
    JsonLines,
    RunLock,
    loads_line,
    lock_holder,
    read_lines,
    read_models,
    write_json_atomic,
    write_lines_atomic,
)
from readout_audit.log._kinds import RunKind, get_run_kind
from readout_audit.log._manifest import Manifest
from readout_audit.log._record import RECORD_SCHEMA_VERSION, UPGRADABLE_VERSIONS, RunRecord
from readout_audit.log._stage import Stage, load_manifest, read_json_file
from readout_audit.log._summary import SUMMARY_SCHEMA_VERSION, Summary
from readout_audit.log._table import records_frame
from readout_audit.serve import LEDGER_FILE

if TYPE_CHECKING:
    import pandas

MANIFEST = "manifest.json"
RECORDS = "records.jsonl"
SUMMARY = "summary.json"
ARTIFACTS = "artifacts"
INTEGRITY = "integrity"
"""The key of ``summary.json`` holding the hashes that tie it to its records."""
_ARTIFACT_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
RUN_FILES = (RECORDS, SUMMARY, *(LEDGER_FILE + end for end in ("", "-wal", "-shm", "-journal")))
"""The files every run may write beside its manifest and artifacts (the ledger's for a served
model); overwriting a run deletes these, the artifacts and its kind's own files, nothing else."""

RunState = Literal["finished", "unfinished", "incomplete", "cut", "running"]


def read_manifest(directory: Path) -> Manifest:
    """The run's manifest, or a clear error when it is missing or corrupt."""
    path = directory / MANIFEST
    if not path.exists():
        raise RunDirectoryError(f"{directory} is not a run directory (no {MANIFEST})")
    return load_manifest(path, "it cannot be resumed or reported")


def existing_manifest(directory: Path) -> Manifest | None:
    """The manifest of the run in ``directory``, or None when it holds no ``manifest.json``.

    An entry of that name that is not a run manifest (a web extension's, a folder, text) is
    refused: the folder is not a run's, so no run resumes in it nor deletes anything from it.
    """
    path = directory / MANIFEST
    if not os.path.lexists(path):
        return None
    remedy = f"{directory} is no run directory: choose another output (nothing was changed)"
    try:
        return load_manifest(path, remedy)
    except InputError as error:  # not a regular file: a folder, a FIFO
        raise RunDirectoryError(f"{error}; {remedy}") from None


def _repeated_record(key: Hashable, first: int) -> str:
    return (
        f"record {key!r} repeats line {first}: a run holds one record per key, so this run "
        "directory is corrupt (a line written twice?) and is neither reported nor resumed; "
        "keep one of the two lines, or score again into a new --out"
    )


def parse_records(kind: RunKind, lines: JsonLines) -> list[Any]:
    """Every complete record line as the kind's record type, one per key, with located errors.

    Read as a stage file's records are (:func:`read_models`): a key written twice is refused
    naming both lines, never counted twice. Every reader of a run's records, its resumption
    included, reads them here.
    """

    def current(raw: Any, number: int) -> Any:
        """A record line at this schema version (an older one upgraded), or why it cannot be."""
        version = raw.get("schema_version") if isinstance(raw, dict) else None
        if version != RECORD_SCHEMA_VERSION and version not in UPGRADABLE_VERSIONS:
            raise RunDirectoryError(
                f"{lines.path}:{number}: record schema version {version}, this version of "
                f"readout-audit reads {RECORD_SCHEMA_VERSION} (and upgrades "
                f"{', '.join(map(str, UPGRADABLE_VERSIONS))})"
            )
        if version == RECORD_SCHEMA_VERSION:
            return raw
        try:
            return kind.record_type.upgraded(raw)
        except (KeyError, TypeError) as error:
            raise RunDirectoryError(
                f"{lines.path}:{number}: not a valid version-{version} record ({error!r})"
            ) from None

    source = str(lines.path)
    return read_models(
        ((number, loads_line(text, source=source, line=number)) for number, text in lines.lines),
        kind.record_type,
        source=source,
        key=kind.record_key,
        repeated=_repeated_record,
        prepare=current,
    )


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _records_digest(records: Path) -> str:
    """The records file's hash (an absent file hashes as an empty one)."""
    return _sha256(records.read_bytes() if records.exists() else b"")


def _summary_digest(data: dict[str, Any]) -> str:
    """A summary's own hash: its JSON with sorted keys, so re-reading it gives the same text."""
    return _sha256(json.dumps(data, sort_keys=True, separators=(",", ":")).encode())


def _file_sizes(directory: Path, names: tuple[str, ...]) -> dict[str, int]:
    """The sizes of a kind's own files (hidden states: too large to hash on every read)."""
    return {
        name: (directory / name).stat().st_size for name in names if (directory / name).exists()
    }


def summary_document(
    summary: Summary, records: Path, files: tuple[str, ...] = ()
) -> dict[str, Any]:
    """``summary.json``'s content: the summary, the records' hash and the summary's own.

    With the sizes of the kind's own ``files`` it read, so a file cut since is noticed.
    """
    data: dict[str, Any] = summary.model_dump(mode="json")
    integrity: dict[str, Any] = {
        "records_sha256": _records_digest(records),
        "summary_sha256": _summary_digest(data),
    }
    if files:
        integrity["file_bytes"] = _file_sizes(records.parent, files)
    return {**data, INTEGRITY: integrity}


def _read_summary(path: Path, kind: RunKind) -> tuple[Summary | None, str | None]:
    """The typed summary if it is the one computed from the records on disk, and why not.

    None (to be recomputed from the records) when absent, written by an older version, or not
    matching its hashes: the records changed since, or the summary was edited.
    """
    if not path.exists():
        return None, None
    raw = read_json_file(
        path, "delete it and run `readout report` to recompute it from the records"
    )
    if not isinstance(raw, dict) or raw.get("schema_version") != SUMMARY_SCHEMA_VERSION:
        return None, None
    hashes = raw.pop(INTEGRITY, None)
    if not isinstance(hashes, dict) or hashes.get("summary_sha256") != _summary_digest(raw):
        return None, f"{path.name} does not match its hash (edited?); recomputed from the records"
    if hashes.get("records_sha256") != _records_digest(path.parent / RECORDS):
        return None, f"{RECORDS} changed after {path.name} was written; recomputed from them"
    sizes = hashes.get("file_bytes")
    if sizes is not None and sizes != _file_sizes(path.parent, kind.files):
        return None, f"{', '.join(kind.files)} changed after {path.name} was written; recomputed"
    try:
        summary: Summary = kind.summary_type.model_validate(raw)
    except ValidationError as error:
        raise RunDirectoryError(
            f"{path} is not a valid {kind.name} summary ({error.errors()[0]['msg']}); delete it "
            "and run `readout report` to recompute it from the records"
        ) from None
    return summary, None


def _read_artifacts(directory: Path) -> dict[str, Any]:
    found = {}
    folder = directory / ARTIFACTS
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        found[path.stem] = read_json_file(path, "delete it and rerun the command to redo it")
    return found


R = TypeVar("R", bound=RunRecord)
T = TypeVar("T", bound=RunRecord)


@dataclass(frozen=True)
class Run(Generic[R]):
    """A run directory read back, without the model: manifest, records, artifacts, summary.

    ``read_run`` returns records of the manifest's kind; ``run.of(RecordType)`` is the same run
    typed by its record, checked rather than filtered.
    """

    directory: Path
    manifest: Manifest
    records: list[R]
    summary: Summary | None
    """The summary on disk (None when the run did not finish, or its summary is outdated)."""
    artifacts: dict[str, Any] = field(default_factory=dict)
    cut_line: str | None = None
    """A last record line cut off by an interruption (re-scored when the run resumes)."""
    writer: str | None = None
    """The process id writing the run when it was read (it holds the lock), if any."""
    summary_problem: str | None = None
    """Why ``summary.json`` was not used (it does not match its records or itself)."""

    def of(self, record_type: type[T]) -> Run[T]:
        """The run typed by its record, or an error naming the first record of another type."""
        for number, record in enumerate(self.records, 1):
            if not isinstance(record, record_type):
                raise RunDirectoryError(
                    f"{self.directory}: record {number} is a {type(record).__name__}, "
                    f"not a {record_type.__name__}"
                )
        return cast("Run[T]", self)

    def to_pandas(self) -> pandas.DataFrame:
        """The records as a pandas DataFrame: one row per record, in the order of the file.

        The columns are the kind's record fields in order, the same for every run of the kind:
        a nested model's fields are columns of their own with dotted names (``greedy.text``); a
        field of one scalar type is a nullable column (``string``, ``Int64``, ``Float64``,
        ``boolean``; ``UInt64`` for integers past 2^63 - 1); a list, an object or a field of
        mixed type (``options``, ``top``, ``metadata``, ``target``) is its compact JSON text.
        Null is a missing value everywhere.
        ``readout export`` writes this frame as CSV or parquet. Needs pandas (imported here).
        """
        record_type = cast("type[BaseModel]", get_run_kind(self.manifest.kind).record_type)
        return records_frame(self.records, record_type)

    @property
    def planned(self) -> int | None:
        """Records the last finished invocation planned (None when not counted)."""
        last = self.manifest.invocations[-1] if self.manifest.invocations else None
        return last.planned if last is not None else None

    @property
    def state(self) -> RunState:
        """Where the run stands: ``running``, ``cut``, ``unfinished``, ``incomplete``, ``finished``.

        ``running``: a process holds its lock; ``cut``: interrupted mid-record; ``unfinished``:
        interrupted between records; ``incomplete``: marked finished, yet its records do not
        cover its plan.
        """
        if self.writer is not None:
            return "running"
        if self.cut_line is not None:
            return "cut"
        last = self.manifest.invocations[-1] if self.manifest.invocations else None
        if last is None or not last.finished:
            return "unfinished"
        if last.planned is not None and len(self.records) != last.planned:
            return "incomplete"
        return "finished"


def read_run(directory: str | Path) -> Run[Any]:
    """Read a run directory back, without the model; any kind found in the registry."""
    directory = Path(directory)
    manifest = read_manifest(directory)
    kind = get_run_kind(manifest.kind, directory)
    writer = lock_holder(directory)
    lines = read_lines(directory / RECORDS, append_only=True)
    summary, problem = _read_summary(directory / SUMMARY, kind)
    return Run(
        directory=directory,
        manifest=manifest,
        records=parse_records(kind, lines),
        summary=summary,
        artifacts=_read_artifacts(directory),
        cut_line=lines.cut,
        writer=writer,
        summary_problem=problem,
    )


class RunDirectory(Stage):
    """Writes one run directory, holding its lock; reopening one of the same configuration resumes.

    Each record is appended and flushed as soon as it is complete, so an interrupted run loses
    at most the record in progress (a cut last line is dropped and re-scored), and a rerun
    skips every record already written.
    """

    def __init__(self, directory: str | Path, kind: RunKind) -> None:
        """Lock ``directory`` (made if need be) for ``kind``'s run; :meth:`start` writes in it."""
        self.directory = Path(directory)
        self.kind = kind
        existing_manifest(self.directory)  # a folder whose manifest.json is no run's: untouched
        super().__init__(
            RunLock(self.directory),
            self.directory / MANIFEST,
            self.directory / RECORDS,
            folder=self.directory,
        )
        self.done: set[tuple[str, ...]] = set()

    def clear(self) -> None:
        """Delete the run held here: the files a run writes, its manifest last; the rest stays.

        Nothing is deleted when one of them is not a regular file (a folder, a FIFO or a link
        of that name is the user's), nor from a folder without a run manifest.
        """
        manifest = existing_manifest(self.directory)
        if manifest is None:
            return
        names = [*RUN_FILES, *get_run_kind(manifest.kind, self.directory).files]
        paths = [self.directory / name for name in names]
        artifacts = self.directory / ARTIFACTS
        if artifacts.is_dir() and not artifacts.is_symlink():
            paths += [p for p in artifacts.glob("*.json") if _ARTIFACT_NAME.match(p.stem)]
        paths = [p for p in paths if os.path.lexists(p)]
        for path in paths:
            if not stat.S_ISREG(os.lstat(path).st_mode):
                raise RunDirectoryError(
                    f"{path} is not a regular file, so not one the run wrote: nothing was "
                    "deleted; move it away to overwrite the run"
                )
        for path in [*paths, self.directory / MANIFEST]:
            path.unlink()
        if artifacts.is_dir() and not artifacts.is_symlink() and not any(artifacts.iterdir()):
            artifacts.rmdir()

    def start(
        self,
        manifest: Manifest,
        retried: Callable[[Any], bool] | None = None,
        *,
        overwrite: bool = False,
    ) -> None:
        """Load the done keys, then write the manifest or check it against the one on disk.

        ``overwrite``: the run held here (of any configuration) is deleted first.

        Records that cannot be resumed (a key written twice) are refused before anything
        changes. ``retried``: records this invocation answers again (a served request that failed or
        whose outcome was unknown); they are withdrawn from ``records.jsonl`` (rewritten
        atomically) before any new record is appended, so their keys are not done.
        """
        if overwrite:
            self.clear()
        existing = parse_records(self.kind, read_lines(self.records_path, append_only=True))
        self._resume(manifest, f"{self.directory} holds a run")
        if retried is not None and any(retried(r) for r in existing):
            existing = [r for r in existing if not retried(r)]
            write_lines_atomic(self.records_path, [r.model_dump_json() for r in existing])
        self.done = {self.kind.record_key(r) for r in existing}
        self._open_records()

    def record_execution(self, execution: dict[str, Any] | None) -> None:
        """Keep how this invocation sends its requests in the manifest, before it sends any."""
        assert self.manifest is not None
        self.manifest.invocations[-1].execution = execution
        self.write_manifest()

    def append(self, record: BaseModel) -> None:
        """Append one record and flush it to disk."""
        key = self.kind.record_key(record)
        if key in self.done:
            raise RunDirectoryError(f"record {key} is already in {self.records_path}")
        self._write_line(record.model_dump_json())
        self.done.add(key)

    def artifact(self, name: str) -> Any | None:
        """A stage's saved result, if an earlier invocation of this run wrote it."""
        path = self.directory / ARTIFACTS / f"{name}.json"
        return _read_artifacts(self.directory).get(name) if path.exists() else None

    def write_artifact(self, name: str, data: Any) -> None:
        """Save a stage's result (JSON) so a resumed run, its summary and report reuse it."""
        if not _ARTIFACT_NAME.match(name):
            raise ValueError(f"artifact names are lower-case identifiers, got {name!r}")
        (self.directory / ARTIFACTS).mkdir(exist_ok=True)
        write_json_atomic(self.directory / ARTIFACTS / f"{name}.json", data)

    def finish(self, summary: Summary, planned: int | None = None) -> None:
        """Write the summary (with its hashes) and mark the invocation finished.

        ``planned``: the records the run's plan holds; the run reads as finished only while its
        records number that many.
        """
        write_json_atomic(
            self.directory / SUMMARY, summary_document(summary, self.records_path, self.kind.files)
        )
        self.finish_invocation(planned)
