"""The chronological balance of a served judge's stream: every primary cell in every quartile.

Seed 004 sends one provider's requests as one interleaved stream and reports that every primary
cue/presentation cell occurs in each equal-call chronological quartile of it, so a drift of the
hosted service over the run's window cannot fall on one condition alone. The quartiles are read
from the ledger's send times.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict

from readout_audit.judge.analysis._primary import PRIMARY_TERMS

CHRONOLOGY = "chronology"
"""The run directory's artifact holding the balance of its confirmation stream."""
QUARTILES = 4


class Chronology(BaseModel):
    """Primary cells per equal-call quartile of the stream's send order."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    n_sent: int
    counts: list[dict[str, int]]
    """Per quartile, in send order: ``cell/presentation`` → requests of that primary cell."""
    missing: list[str]
    """``q<k>: cell/presentation`` for each primary cell a quartile lacks."""

    @property
    def balanced(self) -> bool:
        """Every primary cell occurs in every quartile."""
        return not self.missing


def chronology(sent: Sequence[tuple[float, str]], cells: Mapping[str, str]) -> Chronology | None:
    """The balance of ``sent`` (send time, request id) pairs; None with fewer than four.

    ``cells`` names each request's ``cell/presentation``.
    """
    ordered = [request for _, request in sorted(sent)]
    if len(ordered) < QUARTILES:
        return None
    primary = [f"{cell}/{presentation}" for presentation, cell, _ in PRIMARY_TERMS]
    counts = []
    for part in np.array_split(np.arange(len(ordered)), QUARTILES):
        found = [cells.get(ordered[i]) for i in part]
        counts.append({name: found.count(name) for name in primary})
    missing = [
        f"q{k + 1}: {name}"
        for k, quartile in enumerate(counts)
        for name in primary
        if not quartile[name]
    ]
    return Chronology(n_sent=len(ordered), counts=counts, missing=missing)
