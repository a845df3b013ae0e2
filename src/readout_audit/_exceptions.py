"""Errors raised by readout-audit.

ReadoutError                 every error this package raises on purpose
├── InputError               bad user input: names the source, line, item and field
├── ModelNotAvailableError   a model spec that cannot be loaded here (offline, missing file)
├── CapabilityError          a backend asked for something it declares it cannot do
└── RunDirectoryError        a run directory that belongs to another configuration
"""

from __future__ import annotations


class ReadoutError(Exception):
    """Base class of every error readout-audit raises on purpose."""


class InputError(ReadoutError, ValueError):
    """Bad input, located as precisely as possible (source, line, item id, field)."""

    def __init__(
        self,
        message: str,
        *,
        source: str | None = None,
        line: int | None = None,
        item_id: str | None = None,
        field: str | None = None,
    ) -> None:
        self.source, self.line, self.item_id, self.field = source, line, item_id, field
        where = []
        if source is not None:
            where.append(f"{source}:{line}" if line is not None else source)
        elif line is not None:
            where.append(f"line {line}")
        if item_id is not None:
            where.append(f"item {item_id!r}")
        if field is not None:
            where.append(f"field {field!r}")
        self.message = message
        super().__init__(f"{', '.join(where)}: {message}" if where else message)


class ModelNotAvailableError(ReadoutError):
    """A model spec names weights that cannot be loaded on this machine."""


class CapabilityError(ReadoutError, NotImplementedError):
    """The backend does not provide the requested quantity (see ``ScoringModel.capabilities``)."""


class RunDirectoryError(ReadoutError):
    """A run directory holds results of a different model or configuration."""
