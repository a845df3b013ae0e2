"""Audit kinds as plug-ins: the kind object, its registry, the run loop, releasing calls."""

from readout_audit.kind._kind import AuditKind, item_and_variant
from readout_audit.kind._registry import (
    ENTRY_POINTS,
    PLUGINS_ENV,
    UnknownKindError,
    audit_kinds,
    broken_plugins,
    get_kind,
    load_plugins,
    register_kind,
)
from readout_audit.kind._release import AMENDMENTS, amended_tags, release_unknown
from readout_audit.kind._runner import Job, Planner, ScoreResult, run_kind

__all__ = [
    "AMENDMENTS",
    "ENTRY_POINTS",
    "PLUGINS_ENV",
    "AuditKind",
    "Job",
    "Planner",
    "ScoreResult",
    "UnknownKindError",
    "amended_tags",
    "audit_kinds",
    "broken_plugins",
    "get_kind",
    "item_and_variant",
    "load_plugins",
    "register_kind",
    "release_unknown",
    "run_kind",
]
