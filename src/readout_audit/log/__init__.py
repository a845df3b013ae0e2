"""Run directories: manifest, append-only records, summary, and reading them back."""

from readout_audit.log._manifest import Invocation, Manifest, package_versions
from readout_audit.log._record import (
    RECORD_SCHEMA_VERSION,
    RECORD_TYPES,
    OptionsRecord,
    PTrueRecord,
    ScoreRecord,
    YesNoRecord,
)
from readout_audit.log._run import Run, RunWriter, read_run

__all__ = [
    "Invocation",
    "Manifest",
    "OptionsRecord",
    "PTrueRecord",
    "RECORD_SCHEMA_VERSION",
    "RECORD_TYPES",
    "Run",
    "RunWriter",
    "ScoreRecord",
    "YesNoRecord",
    "package_versions",
    "read_run",
]
