"""Audit kinds as plug-ins: the kind object, its registry, the run loop and executors."""

from readout_audit.kind._kind import AuditKind, item_and_variant
from readout_audit.kind._registry import (
    ENTRY_POINTS,
    PLUGINS_ENV,
    UnknownKindError,
    audit_kinds,
    get_kind,
    load_plugins,
    register_kind,
)
from readout_audit.kind._runner import Job, Planner, ScoreResult, run_kind

__all__ = [
    "ENTRY_POINTS",
    "PLUGINS_ENV",
    "AuditKind",
    "Job",
    "Planner",
    "ScoreResult",
    "UnknownKindError",
    "audit_kinds",
    "get_kind",
    "item_and_variant",
    "load_plugins",
    "register_kind",
    "run_kind",
]
