"""A recovery run's records as arrays, and the analysis settings its manifest records."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from readout_audit.data import LABELS
from readout_audit.recover._offsets import OffsetGrid
from readout_audit.recover._record import RecoverRecord


@dataclass(frozen=True)
class Settings:
    """The analysis settings a run's manifest records."""

    seed: int
    n_perm: int
    n_boot: int
    probe_seeds: tuple[int, ...]
    probe_rows: int
    grid: OffsetGrid
    prior: np.ndarray | None
    collapse_threshold: float

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Settings:
        """The settings of a run's manifest configuration."""
        return cls(
            seed=int(config["seed"]),
            n_perm=int(config["n_perm"]),
            n_boot=int(config["n_boot"]),
            probe_seeds=tuple(config["probe_seeds"]),
            probe_rows=int(config["probe_rows"]),
            grid=OffsetGrid(**config["grid"]),
            prior=np.asarray(config["prior"]) if config["prior"] is not None else None,
            collapse_threshold=float(config["collapse_threshold"]),
        )


def _complete(lens: list[list[list[float | None]]] | None) -> bool:
    return lens is not None and all(v is not None for rows in lens for row in rows for v in row)


@dataclass(frozen=True)
class Table:
    """One split's scored records of one configuration, as arrays."""

    records: list[RecoverRecord]
    sums: np.ndarray
    """Full candidate-string scores s_y(x), shape (n, labels)."""
    means: np.ndarray
    """The same divided by each candidate's token count."""
    firsts: np.ndarray
    logits: np.ndarray | None
    labels: np.ndarray | None
    lens: np.ndarray | None = None
    """Candidate logits at (position, stored layer), shape (n, 2, layers, labels), when every
    record holds them."""

    @classmethod
    def of(cls, records: Sequence[RecoverRecord]) -> Table:
        """The records' score arrays (records without every candidate scored are left out)."""
        kept = [r for r in records if all(t is not None for t in r.option_token_logprobs)]
        tokens = [[list(t or ()) for t in r.option_token_logprobs] for r in kept]
        sums = np.array([[sum(t) for t in row] for row in tokens]).reshape(-1, len(LABELS))
        means = np.array([[sum(t) / len(t) for t in row] for row in tokens])
        firsts = np.array([[t[0] for t in row] for row in tokens]).reshape(-1, len(LABELS))
        logits = None
        if kept and all(r.label_logits and None not in r.label_logits for r in kept):
            logits = np.array([r.label_logits for r in kept], dtype=np.float64)
        labels = None
        if kept and all(r.label is not None for r in kept):
            labels = np.array([LABELS.index(r.label) for r in kept if r.label is not None])
        lens = None
        if kept and all(_complete(r.layer_logits) for r in kept):
            lens = np.array([r.layer_logits for r in kept], dtype=np.float64)
        return cls(kept, sums, means.reshape(-1, len(LABELS)), firsts, logits, labels, lens)

    def hidden(self, states: np.ndarray, position: int, layer: int) -> np.ndarray:
        """The records' stored hidden states at one position and layer index."""
        rows = np.array([r.hidden_row for r in self.records], dtype=np.int64)
        return np.asarray(states[rows, position, layer], dtype=np.float64)
