"""Run directories and stage files: manifest, append-only records, artifacts, typed summary."""

from readout_audit._util._lock import RunLock
from readout_audit.log._kinds import (
    ENTRY_POINTS,
    PLUGINS_ENV,
    RunKind,
    UnknownKindError,
    broken_plugins,
    get_run_kind,
    load_plugins,
    register_run_kind,
    run_kinds,
)
from readout_audit.log._manifest import Invocation, Manifest, package_versions
from readout_audit.log._outputs import check_output_path
from readout_audit.log._record import (
    RECORD_SCHEMA_VERSION,
    RunRecord,
    ScoreRecord,
)
from readout_audit.log._run import Run, RunDirectory, RunState, read_manifest, read_run
from readout_audit.log._stage import (
    StageFile,
    check_unlocked,
    stage_manifest_path,
    write_once,
)
from readout_audit.log._summary import (
    SUMMARY_SCHEMA_VERSION,
    Check,
    Interval,
    PairedScores,
    Summary,
    Timing,
    Verdict,
)
from readout_audit.log._table import flatten_record, record_columns, records_frame, write_frame

__all__ = [
    "ENTRY_POINTS",
    "PLUGINS_ENV",
    "RECORD_SCHEMA_VERSION",
    "RunRecord",
    "SUMMARY_SCHEMA_VERSION",
    "Check",
    "Interval",
    "Invocation",
    "Manifest",
    "PairedScores",
    "Run",
    "RunDirectory",
    "RunKind",
    "RunLock",
    "RunState",
    "ScoreRecord",
    "StageFile",
    "Summary",
    "Timing",
    "Verdict",
    "UnknownKindError",
    "broken_plugins",
    "check_output_path",
    "check_unlocked",
    "flatten_record",
    "get_run_kind",
    "load_plugins",
    "package_versions",
    "read_manifest",
    "read_run",
    "record_columns",
    "records_frame",
    "register_run_kind",
    "run_kinds",
    "stage_manifest_path",
    "write_frame",
    "write_once",
]
