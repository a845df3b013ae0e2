"""A text setting that must name one of a registry's entries, declared once on the field.

``Annotated[str, OneOf(lambda: GENERATORS)]``: the settings model refuses any other value, in a
notebook as on the command line, and the generated option offers the names as its choices. The
names are read when a value is checked, so an entry registered later (a plug-in's) counts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from pydantic import GetCoreSchemaHandler
from pydantic_core import core_schema


@dataclass(frozen=True)
class OneOf:
    """The allowed values of a text field: ``names()``, in the order the option lists them."""

    names: Callable[[], Iterable[str]]

    def choices(self) -> list[str]:
        """The allowed values now."""
        return list(self.names())

    def _check(self, value: str) -> str:
        allowed = self.choices()
        if value not in allowed:
            raise ValueError(f"{value!r} is none of {', '.join(allowed)}")
        return value

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_after_validator_function(self._check, handler(source))
