"""The registry of audit kinds, typed: those the entry points and plug-in modules register.

The names live in :mod:`readout_audit.log` (reading a run looks its kind up there); this module
registers and returns them as :class:`AuditKind` objects.
"""

from __future__ import annotations

from typing import Any, cast

from readout_audit.kind._kind import AuditKind
from readout_audit.log import (
    ENTRY_POINTS,
    PLUGINS_ENV,
    UnknownKindError,
    broken_plugins,
    get_run_kind,
    load_plugin,
    load_plugins,
    register_run_kind,
    run_kinds,
)

__all__ = [
    "ENTRY_POINTS",
    "PLUGINS_ENV",
    "UnknownKindError",
    "audit_kinds",
    "broken_plugins",
    "get_kind",
    "load_plugin",
    "load_plugins",
    "register_kind",
]


def register_kind(kind: AuditKind[Any, Any]) -> AuditKind[Any, Any]:
    """Register a kind under its name; registering the same name twice is an error."""
    register_run_kind(kind)
    return kind


def get_kind(name: str) -> AuditKind[Any, Any]:
    """The kind of that name (the manifest's ``kind``), or an error listing the known ones."""
    return cast(AuditKind[Any, Any], get_run_kind(name))


def audit_kinds() -> list[AuditKind[Any, Any]]:
    """Every registered kind, by name."""
    return [cast(AuditKind[Any, Any], kind) for kind in run_kinds()]
