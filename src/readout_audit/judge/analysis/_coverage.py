"""The run's planned requests against its records: a planned request without one is unknown.

A run keeps the requests it planned (``artifacts/planned.json``, as records of unknown outcome)
before it sends any, so every denominator is the planned count even when a record is absent.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from readout_audit.judge.protocol import JudgeRecord

PLANNED = "planned"
"""The run directory's artifact holding its planned requests."""
AMENDMENT = "amendment"
"""A record's metadata key naming the protocol amendment its request was sent again under."""
AMENDED = "sent again under a protocol amendment: left out of the frozen tests"
"""The error of the ``unknown`` record an amended record is analysed as."""
NO_RECORD = "planned, and the run holds no record of it"
"""The error of the ``unknown`` record a planned request without a record is analysed as."""
SHOWN = 10
"""Request ids listed in the summary per kind of difference."""


class Coverage(BaseModel):
    """How the records cover the run's plan."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    n_planned: int
    n_recorded: int
    n_missing: int
    """Planned requests without a record: analysed as unknown outcomes."""
    n_unplanned: int
    """Records of requests the run never planned."""

    missing: list[str]
    """The first missing request ids."""
    unplanned: list[str]
    """The first unplanned record ids."""
    short: list[str] = []
    """``configuration phase: kept k, inventory n`` where the kept plan's count differs from the
    inventory's: a plan that lost a request leaves it out of every denominator."""


def plan_shortfall(
    planned: Sequence[JudgeRecord], inventory: Mapping[str, Mapping[str, int]]
) -> list[str]:
    """Where the kept plan disagrees with the inventory's counts (per configuration and phase).

    A phase the plan holds nothing of for a configuration is not yet run, not short.
    """
    kept = Counter((r.configuration, r.phase) for r in planned)
    found = []
    for configuration, phase in sorted(kept):
        expected = inventory.get(configuration, {}).get(phase, 0)
        if kept[(configuration, phase)] != expected:
            found.append(
                f"{configuration} {phase}: kept {kept[(configuration, phase)]}, "
                f"inventory {expected}"
            )
    return found


def cover(
    records: Sequence[JudgeRecord],
    planned: Sequence[JudgeRecord],
    inventory: Mapping[str, Mapping[str, int]] | None = None,
) -> tuple[list[JudgeRecord], Coverage]:
    """The records plus an ``unknown`` record for every planned request without one.

    ``planned``: the run's planned requests as records of unknown outcome (their planned
    fields: phase, configuration, source, cell, ...). Records that were not planned are kept
    (never dropped silently) and counted. ``inventory``: the inventory's requests per
    configuration and phase, which the plan must match (None: not checked).
    """
    recorded = {r.item_id for r in records}
    planned_ids = {r.item_id for r in planned}
    missing = [
        r.model_copy(update={"outcome": "unknown", "verdict": None, "error": NO_RECORD})
        for r in planned
        if r.item_id not in recorded
    ]
    unplanned = [r.item_id for r in records if r.item_id not in planned_ids]
    coverage = Coverage(
        n_planned=len(planned_ids),
        n_recorded=len(recorded),
        n_missing=len(missing),
        n_unplanned=len(unplanned),
        missing=[r.item_id for r in missing[:SHOWN]],
        unplanned=unplanned[:SHOWN],
        short=[] if inventory is None else plan_shortfall(planned, inventory),
    )
    return [*records, *missing], coverage


def set_apart(records: Sequence[JudgeRecord]) -> tuple[list[JudgeRecord], dict[str, str]]:
    """Records sent again under a protocol amendment, analysed as unknown; id → amendment.

    The frozen tests read only first attempts: a replayed request may have been processed
    twice, so its verdict is reported, never counted.
    """
    amended = {r.item_id: str(r.metadata[AMENDMENT]) for r in records if AMENDMENT in r.metadata}
    analysed = [
        r.model_copy(update={"outcome": "unknown", "verdict": None, "error": AMENDED})
        if r.item_id in amended
        else r
        for r in records
    ]
    return analysed, amended


def kept_plan(artifacts: dict[str, Any], phase: str | None = None) -> list[JudgeRecord] | None:
    """A run's kept plan (of one phase, when given) as records of unknown outcome, or None."""
    kept = artifacts.get(PLANNED)
    if kept is None:
        return None
    return [JudgeRecord.model_validate(r) for r in kept if phase is None or r["phase"] == phase]
