"""The planned panel read from records: one record per planned request, indexed by its cell.

A planned request without an outcome is still a record (outcome ``unknown`` or ``failed``, no
verdict), so the records are the planned set and every denominator is a planned count.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from readout_audit._exceptions import InputError
from readout_audit.judge.protocol import JudgeRecord, Phase, Presentation

Key = tuple[str, str, str, str, str]
"""(phase, configuration, source_id, cell, presentation)."""


@dataclass(frozen=True)
class Source:
    """A planned source of one phase and configuration: its stratum and its mutation."""

    source_id: str
    dataset: str
    distance: str | None


class JudgePanel:
    """Records indexed by (phase, configuration, source, cell, presentation)."""

    def __init__(self, records: Iterable[JudgeRecord]) -> None:
        self.records: dict[Key, JudgeRecord] = {}
        self._requests: dict[tuple[str, str, str], list[JudgeRecord]] = {}
        self._sources: dict[tuple[str, str], dict[str, Source]] = {}
        for r in records:
            key = (r.phase, r.configuration, r.source_id, r.cell, r.presentation)
            if key in self.records:
                raise InputError(
                    f"two records for one planned request ({self.records[key].item_id!r} "
                    f"and {r.item_id!r})",
                    item_id=r.item_id,
                )
            self.records[key] = r
            self._requests.setdefault((r.phase, r.configuration, r.presentation), []).append(r)
            sources = self._sources.setdefault((r.phase, r.configuration), {})
            known = sources.get(r.source_id)
            if known is not None and known.dataset != r.dataset:
                raise InputError(
                    f"source {r.source_id!r} is in dataset {known.dataset!r} and {r.dataset!r}",
                    item_id=r.item_id,
                    field="dataset",
                )
            distance = r.distance or (known.distance if known else None)
            sources[r.source_id] = Source(r.source_id, r.dataset, distance)

    @property
    def configurations(self) -> list[str]:
        """Every configuration with a record, sorted."""
        return sorted({c for _, c in self._sources})

    def sources(self, phase: Phase, configuration: str) -> list[Source]:
        """The phase's planned sources of a configuration, by dataset and id."""
        found = self._sources.get((phase, configuration), {}).values()
        return sorted(found, key=lambda s: (s.dataset, s.source_id))

    def get(
        self, phase: Phase, configuration: str, source: str, cell: str, presentation: Presentation
    ) -> JudgeRecord | None:
        """The record of one planned request, or None when it was not planned."""
        return self.records.get((phase, configuration, source, cell, presentation))

    def requests(
        self, phase: Phase, configuration: str, presentation: Presentation
    ) -> list[JudgeRecord]:
        """Every planned request of a phase, configuration and presentation, in record order."""
        return self._requests.get((phase, configuration, presentation), [])

    def cell_records(
        self, phase: Phase, configuration: str, cell: str, presentation: Presentation
    ) -> list[JudgeRecord]:
        """One cell's planned records, by source."""
        found = (
            self.get(phase, configuration, s.source_id, cell, presentation)
            for s in self.sources(phase, configuration)
        )
        return [r for r in found if r is not None]


Reading = Callable[[JudgeRecord], float | None]
"""A number read from a record (None where it was not returned)."""


def acceptance(record: JudgeRecord) -> float | None:
    """V: 1 for a native positive verdict, 0 for another verdict, None without one."""
    accepted = record.accepted
    return None if accepted is None else float(accepted)


def weighted_mean(values: Any, datasets: Any, weights: Mapping[str, float]) -> float | None:
    """Eq. 8: Σ_d w_d · mean of the values in dataset d (None when a weighted dataset has none)."""
    x, d = np.asarray(values, dtype=np.float64), np.asarray(datasets)
    total = 0.0
    for dataset, w in weights.items():
        members = x[d == dataset]
        if members.size == 0 and w > 0:
            return None
        if members.size == 0:
            continue
        total += w * float(members.mean())
    return total
