"""The typed record written for every scored item × variant."""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field

from readout_audit.prompt._render import RenderedContext
from readout_audit.readout._position import PositionReadout

RECORD_SCHEMA_VERSION = 1


class ScoreRecord(RenderedContext, PositionReadout):
    """One line of ``records.jsonl``: the item, its rendering and everything read there.

    Field meanings are documented in ``docs/records.md``; ``schema_version`` changes whenever a
    field changes meaning or is removed.
    """

    model_config = ConfigDict(extra="forbid")

    schema_version: int = RECORD_SCHEMA_VERSION
    item_id: str
    variant: str
    """Prompt variant scored: ``production`` (no stem) or ``stem`` (answer stem prefilled)."""
    options: list[str]
    target: str | float | bool | None = None
    cluster: str
    """Resampling cluster (the item id when the item names none)."""
    metadata: dict[str, Any] = Field(default_factory=dict)

    @property
    def key(self) -> tuple[str, str]:
        """Identity of the record within a run: (item id, variant)."""
        return (self.item_id, self.variant)
