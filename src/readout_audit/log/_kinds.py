"""Where run kinds are found: the ``readout_audit.kinds`` entry points and plug-in modules.

Reading a run directory looks its kind up here by the manifest's name; the kind package
registers each kind here, so the run files never import the layer that runs them. Each entry
point names a kind package, which registers its kind when imported and imports no command
line; the built-in kinds are declared in this package's metadata exactly as an installed
plug-in declares its own, and a module not installed can be listed in ``READOUT_AUDIT_PLUGINS``
(comma-separated module names). A missing entry-point group is one line of
:func:`broken_plugins`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import partial
from importlib import metadata
from pathlib import Path
from typing import Any, Protocol

from readout_audit._exceptions import ReadoutError
from readout_audit._plugins import PLUGINS_ENV, plugin_modules
from readout_audit.log._record import RunRecord
from readout_audit.log._summary import Summary

ENTRY_POINTS = "readout_audit.kinds"


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
_STAGES: dict[str, str] = {}
_BROKEN: list[str] = []
_loaded = False


def register_run_kind(kind: RunKind) -> None:
    """Register a kind under its name; registering another under the same name is an error."""
    existing = _KINDS.get(kind.name)
    if existing is not None and existing is not kind:
        raise ReadoutError(f"an audit kind named {kind.name!r} is already registered")
    _KINDS[kind.name] = kind


def register_stage_kind(name: str, what: str) -> None:
    """Say what a folder stage of a kind other than a run holds (``lift-sft``: a fine-tuning).

    A run command given such a folder then says what it was given, not that the kind is unknown.
    """
    _STAGES[name] = what


def load_plugins() -> None:
    """Import every kind's module once: the entry points, then READOUT_AUDIT_PLUGINS's modules.

    The built-in kinds are entry points like any installed plug-in's. A plug-in that fails to
    import is set aside with the reason (:func:`broken_plugins`), so the other kinds, the
    built-in ones among them, are still found.
    """
    global _loaded
    if _loaded:
        return
    _loaded = True
    entries = metadata.entry_points(group=ENTRY_POINTS)
    if not entries:
        _BROKEN.append(
            f"no {ENTRY_POINTS!r} entry points are installed (a source checkout, or a stale "
            "install: run pip install -e .): runs of the built-in kinds are read once their "
            "commands load, plug-ins not at all"
        )
    for entry in entries:
        load_plugin(f"entry point {entry.name!r} ({entry.value})", entry.load)
    for name in plugin_modules():
        load_plugin(f"{PLUGINS_ENV} module {name!r}", partial(importlib.import_module, name))


def load_plugin(label: str, load: Callable[[], object]) -> None:
    """Run one plug-in's import (a kind's package or a command module), keeping its error.

    Any error it raises is the plug-in's, kept with its name among :func:`broken_plugins`.
    """
    try:
        load()
    except Exception as error:  # a plug-in may fail in any way: name it and go on
        _BROKEN.append(f"plug-in {label} cannot be loaded: {type(error).__name__}: {error}")


def broken_plugins() -> list[str]:
    """Why each plug-in that failed to load did, one line each (loading them first)."""
    load_plugins()
    return list(_BROKEN)


def get_run_kind(name: str, where: Path | None = None) -> RunKind:
    """The kind of that name (the manifest's ``kind``), or an error listing the known ones.

    Another stage's kind (a fine-tuning's) is refused as that stage, naming the folder ``where``.
    A kind already registered is returned without loading the others (a command reads its own
    runs without importing every kind).
    """
    if name in _KINDS:
        return _KINDS[name]
    load_plugins()
    if name in _STAGES and name not in _KINDS:
        raise UnknownKindError(
            f"{where or 'the folder'} holds {_STAGES[name]} (kind {name!r}), not an audit run: "
            "a command that reads or overwrites runs leaves it alone; give a run directory"
        )
    if name not in _KINDS:
        broken = "".join(f"; {reason}" for reason in _BROKEN)
        raise UnknownKindError(
            f"unknown audit kind {name!r}; known: {', '.join(sorted(_KINDS))} (a plug-in kind "
            f"must be importable: declare it under the {ENTRY_POINTS!r} entry points or list "
            f"its module in {PLUGINS_ENV}){broken}"
        )
    return _KINDS[name]


def run_kinds() -> list[RunKind]:
    """Every registered kind, by name."""
    load_plugins()
    return [_KINDS[name] for name in sorted(_KINDS)]
