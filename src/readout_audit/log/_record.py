"""The typed record written for every scored item × variant."""

from __future__ import annotations

from typing import Any, Protocol

from pydantic import ConfigDict, Field

from readout_audit.prompt import RenderedContext
from readout_audit.readout import PositionReadout

RECORD_SCHEMA_VERSION = 2
UPGRADABLE_VERSIONS = (1,)
"""Older record versions that ``read_run`` reads by upgrading each line to this version."""


class RunRecord(Protocol):
    """What every kind's record declares: one line of ``records.jsonl``, whatever else it holds.

    A protocol rather than a base class, so each kind keeps its own field order on disk.
    ``upgraded`` turns a line of an older schema version into this version's fields.
    """

    schema_version: int
    item_id: str
    variant: str
    cluster: str
    """Resampling cluster (the item id when the item names none)."""

    @classmethod
    def upgraded(cls, raw: dict[str, Any]) -> dict[str, Any]: ...

    @classmethod
    def model_validate(cls, obj: Any) -> Any: ...

    def model_dump_json(self) -> str: ...


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

    @classmethod
    def upgraded(cls, raw: dict[str, Any]) -> dict[str, Any]:
        """A record line of an older version in this version's fields.

        Version 2 changed only the constrained-option audit's fields, so other kinds' lines
        are unchanged.
        """
        return {**raw, "schema_version": RECORD_SCHEMA_VERSION}

    def predicted_option(self) -> str | None:
        """The option with the highest full-option log-likelihood, or None if any is unscored."""
        if any(lp is None for lp in self.option_logprobs):
            return None
        scores = [lp for lp in self.option_logprobs if lp is not None]
        return self.options[max(range(len(scores)), key=scores.__getitem__)]

    def matches_target(self, option: str) -> bool:
        """Whether an option is the record's target (as text, or as a number)."""
        target = self.target
        if isinstance(target, str):
            return option.strip() == target.strip()
        if isinstance(target, float | int) and not isinstance(target, bool):
            try:
                return float(option) == float(target)
            except ValueError:
                return False
        return False

    def choice_correct(self) -> bool | None:
        """Whether the log-likelihood choice is the target; None without a target or a choice."""
        if self.target is None or isinstance(self.target, bool):
            return None
        chosen = self.predicted_option()
        return None if chosen is None else self.matches_target(chosen)
