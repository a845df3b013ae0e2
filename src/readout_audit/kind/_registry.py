"""The registry of audit kinds: built-in ones, plug-in modules and installed entry points.

A plug-in is any module that calls :func:`register_kind` when imported: list it in the
``READOUT_AUDIT_PLUGINS`` environment variable (comma-separated module names) or install a
package that declares it under the ``readout_audit.kinds`` entry-point group.
"""

from __future__ import annotations

import importlib
import os
from importlib import metadata
from typing import Any

from readout_audit._exceptions import ReadoutError
from readout_audit.kind._kind import AuditKind

PLUGINS_ENV = "READOUT_AUDIT_PLUGINS"
ENTRY_POINTS = "readout_audit.kinds"

_KINDS: dict[str, AuditKind[Any, Any]] = {}
_loaded = False


class UnknownKindError(ReadoutError, KeyError):
    """No audit kind of that name is registered."""

    def __str__(self) -> str:
        return str(self.args[0])


def register_kind(kind: AuditKind[Any, Any]) -> AuditKind[Any, Any]:
    """Register a kind under its name; registering the same name twice is an error."""
    existing = _KINDS.get(kind.name)
    if existing is not None and existing is not kind:
        raise ReadoutError(f"an audit kind named {kind.name!r} is already registered")
    _KINDS[kind.name] = kind
    return kind


def load_plugins() -> None:
    """Import the built-in kinds, the modules in READOUT_AUDIT_PLUGINS and entry points (once)."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    importlib.import_module("readout_audit.audit")
    importlib.import_module("readout_audit.recover")
    importlib.import_module("readout_audit.lift._kind")
    importlib.import_module("readout_audit.judge._kind")
    for name in filter(None, (p.strip() for p in os.environ.get(PLUGINS_ENV, "").split(","))):
        try:
            importlib.import_module(name)
        except ImportError as error:
            raise ReadoutError(f"{PLUGINS_ENV}: cannot import plug-in {name!r}: {error}") from None
    for entry in metadata.entry_points(group=ENTRY_POINTS):
        entry.load()


def get_kind(name: str) -> AuditKind[Any, Any]:
    """The kind of that name (the manifest's ``kind``), or an error listing the known ones."""
    load_plugins()
    if name not in _KINDS:
        raise UnknownKindError(
            f"unknown audit kind {name!r}; known: {', '.join(sorted(_KINDS))} (a plug-in kind "
            f"must be importable: list its module in {PLUGINS_ENV})"
        )
    return _KINDS[name]


def audit_kinds() -> list[AuditKind[Any, Any]]:
    """Every registered kind, by name."""
    load_plugins()
    return [_KINDS[name] for name in sorted(_KINDS)]
