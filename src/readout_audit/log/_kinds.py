"""Where run kinds are found: the built-in ones, plug-in modules and installed entry points.

Reading a run directory looks its kind up here by the manifest's name; the kind package
registers each kind here, so the run files never import the layer that runs them. A plug-in
is any module that registers a kind when imported: list it in ``READOUT_AUDIT_PLUGINS``
(comma-separated module names) or declare it under the ``readout_audit.kinds`` entry points.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from importlib import metadata
from typing import Any, Protocol

from readout_audit._exceptions import ReadoutError
from readout_audit.log._record import RunRecord
from readout_audit.log._summary import Summary

PLUGINS_ENV = "READOUT_AUDIT_PLUGINS"
ENTRY_POINTS = "readout_audit.kinds"
BUILT_IN = (
    "readout_audit.scoring",
    "readout_audit.options",
    "readout_audit.ptrue",
    "readout_audit.yesno",
    "readout_audit.recover",
    "readout_audit.lift._kind",
    "readout_audit.judge.run._kind",
)
"""The modules that register the built-in kinds when imported."""


class RunKind(Protocol):
    """What reading and writing a run needs of its kind (an ``AuditKind`` is one)."""

    @property
    def name(self) -> str: ...

    @property
    def record_type(self) -> type[RunRecord]: ...

    @property
    def summary_type(self) -> type[Summary]: ...

    @property
    def record_key(self) -> Callable[[Any], tuple[str, ...]]: ...

    @property
    def files(self) -> tuple[str, ...]: ...


class UnknownKindError(ReadoutError, KeyError):
    """No audit kind of that name is registered."""

    def __str__(self) -> str:
        return str(self.args[0])


_KINDS: dict[str, RunKind] = {}
_loaded = False


def register_run_kind(kind: RunKind) -> None:
    """Register a kind under its name; registering another under the same name is an error."""
    existing = _KINDS.get(kind.name)
    if existing is not None and existing is not kind:
        raise ReadoutError(f"an audit kind named {kind.name!r} is already registered")
    _KINDS[kind.name] = kind


def load_plugins() -> None:
    """Import the built-in kinds, the modules in READOUT_AUDIT_PLUGINS and entry points (once)."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    for module in BUILT_IN:
        importlib.import_module(module)
    for name in filter(None, (p.strip() for p in os.environ.get(PLUGINS_ENV, "").split(","))):
        try:
            importlib.import_module(name)
        except ImportError as error:
            raise ReadoutError(f"{PLUGINS_ENV}: cannot import plug-in {name!r}: {error}") from None
    for entry in metadata.entry_points(group=ENTRY_POINTS):
        entry.load()


def run_kind(name: str) -> RunKind:
    """The kind of that name (the manifest's ``kind``), or an error listing the known ones."""
    load_plugins()
    if name not in _KINDS:
        raise UnknownKindError(
            f"unknown audit kind {name!r}; known: {', '.join(sorted(_KINDS))} (a plug-in kind "
            f"must be importable: list its module in {PLUGINS_ENV})"
        )
    return _KINDS[name]


def run_kinds() -> list[RunKind]:
    """Every registered kind, by name."""
    load_plugins()
    return [_KINDS[name] for name in sorted(_KINDS)]
