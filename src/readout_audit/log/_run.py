"""The run directory: manifest.json, records.jsonl (append-only, resumable) and summary.json."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from pydantic import ValidationError

from readout_audit._exceptions import RunDirectoryError
from readout_audit.log._manifest import Invocation, Manifest, now
from readout_audit.log._record import RECORD_SCHEMA_VERSION, RECORD_TYPES, ScoreRecord

MANIFEST = "manifest.json"
RECORDS = "records.jsonl"
SUMMARY = "summary.json"


def _write_json_atomic(path: Path, data: Any) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _differences(old: dict[str, Any], new: dict[str, Any], prefix: str = "") -> list[str]:
    found = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if isinstance(a, dict) and isinstance(b, dict):
            found += _differences(a, b, f"{prefix}{key}.")
        elif a != b:
            found.append(f"{prefix}{key}: {a!r} -> {b!r}")
    return found


def _complete_lines(path: Path, *, repair: bool) -> Iterator[tuple[int, str]]:
    """Lines of a JSONL file, without a final line cut off by an interruption.

    With ``repair`` the cut-off line is also removed from the file, so appending can resume.
    """
    if not path.exists():
        return
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        cut = data.rfind(b"\n") + 1
        if repair:
            with path.open("r+b") as handle:
                handle.truncate(cut)
        data = data[:cut]
    for number, line in enumerate(data.decode("utf-8").splitlines(), start=1):
        if line.strip():
            yield number, line


def _record_type(kind: str) -> type[ScoreRecord]:
    if kind not in RECORD_TYPES:
        raise RunDirectoryError(
            f"unknown run kind {kind!r}; expected one of {sorted(RECORD_TYPES)}"
        )
    return RECORD_TYPES[kind]


def _parse_record(kind: str, path: Path, number: int, line: str) -> ScoreRecord:
    try:
        return _record_type(kind).model_validate_json(line)
    except ValidationError as error:
        raise RunDirectoryError(f"{path}:{number}: not a valid record: {error}") from None


class RunWriter:
    """Writes a run directory; reopening one with the same configuration resumes it.

    Each record is appended and flushed as soon as it is complete, so an interrupted run loses
    at most the record in progress, and a rerun skips every record already written.
    """

    def __init__(self, directory: str | Path, manifest: Manifest) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        manifest_path = self.directory / MANIFEST
        if manifest_path.exists():
            previous = Manifest.model_validate_json(manifest_path.read_text(encoding="utf-8"))
            changed = _differences(previous.identity(), manifest.identity())
            if changed:
                raise RunDirectoryError(
                    f"{self.directory} holds a run of another configuration; choose a new "
                    "output directory. Differences: " + "; ".join(changed)
                )
            manifest = previous.model_copy(
                update={"invocations": [*previous.invocations, *manifest.invocations]}
            )
        self.manifest = manifest
        self._write_manifest()
        self._records_path = self.directory / RECORDS
        self.done: set[tuple[str, str]] = {
            _parse_record(manifest.kind, self._records_path, n, line).key
            for n, line in _complete_lines(self._records_path, repair=True)
        }
        self._handle: TextIO = self._records_path.open("a", encoding="utf-8")

    def _write_manifest(self) -> None:
        _write_json_atomic(self.directory / MANIFEST, self.manifest.model_dump(mode="json"))

    def append(self, record: ScoreRecord) -> None:
        """Append one record and flush it to disk."""
        if record.key in self.done:
            raise RunDirectoryError(f"record {record.key} is already in {self._records_path}")
        self._handle.write(record.model_dump_json() + "\n")
        self._handle.flush()
        self.done.add(record.key)

    def close(self, summary: dict[str, Any] | None = None) -> None:
        """Close the records file; with a summary, write it and mark the invocation finished."""
        self._handle.close()
        if summary is not None:
            _write_json_atomic(self.directory / SUMMARY, summary)
            last: Invocation = self.manifest.invocations[-1]
            last.finished = now()
            self._write_manifest()


@dataclass(frozen=True)
class Run:
    """A run directory read back: manifest, records and summary (if the run finished)."""

    directory: Path
    manifest: Manifest
    records: list[ScoreRecord]
    summary: dict[str, Any] | None


def read_run(directory: str | Path) -> Run:
    """Read a run directory back, without the model."""
    directory = Path(directory)
    manifest_path = directory / MANIFEST
    if not manifest_path.exists():
        raise RunDirectoryError(f"{directory} is not a run directory (no {MANIFEST})")
    manifest = Manifest.model_validate_json(manifest_path.read_text(encoding="utf-8"))
    records_path = directory / RECORDS
    records = []
    for number, line in _complete_lines(records_path, repair=False):
        try:
            version = json.loads(line).get("schema_version")
        except (json.JSONDecodeError, AttributeError):
            raise RunDirectoryError(f"{records_path}:{number}: not a JSON record") from None
        if version != RECORD_SCHEMA_VERSION:
            raise RunDirectoryError(
                f"{records_path}:{number}: record schema version {version}, this version of "
                f"readout-audit reads {RECORD_SCHEMA_VERSION}"
            )
        records.append(_parse_record(manifest.kind, records_path, number, line))
    summary_path = directory / SUMMARY
    summary = json.loads(summary_path.read_text("utf-8")) if summary_path.exists() else None
    return Run(directory=directory, manifest=manifest, records=records, summary=summary)
