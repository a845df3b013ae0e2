"""Hidden states beside the records, so probes can be refitted without the model.

``RUN/hidden.f32`` holds one row per scored record: float32 hidden states of shape
(positions, layers, dim), appended raw and flushed before the record that points at them is
written. A row cut short by an interruption is dropped when the run resumes; a row whose record
was never written is simply not pointed at.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from readout_audit._exceptions import InputError, RunDirectoryError
from readout_audit._util import check_regular

HIDDEN_FILE = "hidden.f32"
POSITIONS = ("prompt_end", "answer_slot")
"""The stored positions: the prompt's last token before the slot, and the slot's last token."""


@dataclass(frozen=True)
class HiddenLayout:
    """The shape of each stored row, as the manifest records it."""

    layers: tuple[int, ...]
    """Hidden-state indices (0 = embeddings, the last = what the unembedding reads)."""
    dim: int
    positions: tuple[str, ...] = POSITIONS

    @property
    def row_shape(self) -> tuple[int, int, int]:
        """(positions, layers, dim)."""
        return (len(self.positions), len(self.layers), self.dim)

    @property
    def row_bytes(self) -> int:
        """Bytes of one float32 row."""
        return 4 * len(self.positions) * len(self.layers) * self.dim

    def as_config(self) -> dict[str, Any]:
        """The layout as the manifest records it."""
        return {
            "file": HIDDEN_FILE,
            "dtype": "float32",
            "positions": list(self.positions),
            "layers": list(self.layers),
            "dim": self.dim,
        }

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> HiddenLayout:
        """The layout a manifest recorded."""
        return cls(
            layers=tuple(config["layers"]),
            dim=int(config["dim"]),
            positions=tuple(config["positions"]),
        )


class HiddenWriter:
    """Appends rows to a run's hidden-state file, each flushed before its record is written."""

    def __init__(self, directory: Path, layout: HiddenLayout) -> None:
        self.path = directory / HIDDEN_FILE
        self.layout = layout
        size = self.path.stat().st_size if self.path.exists() else 0
        whole = size - size % layout.row_bytes
        if whole != size:  # a row cut short by an interruption
            with self.path.open("r+b") as handle:
                handle.truncate(whole)
        self.rows = whole // layout.row_bytes

    def append(self, row: np.ndarray) -> int:
        """Write one row; its index in the file."""
        data = np.ascontiguousarray(row, dtype="<f4")
        if data.shape != self.layout.row_shape:
            raise ValueError(f"a hidden row has shape {data.shape}, not {self.layout.row_shape}")
        with self.path.open("ab") as handle:
            handle.write(data.tobytes())
            handle.flush()
        self.rows += 1
        return self.rows - 1


def read_hidden(directory: Path, layout: HiddenLayout, needed: int = 0) -> np.ndarray:
    """Every stored row, shape (rows, positions, layers, dim), memory-mapped read-only.

    ``needed``: the rows the records point at; a file cut shorter is refused, naming its size.
    """
    path = directory / HIDDEN_FILE
    if not path.exists():
        raise RunDirectoryError(f"{path} is missing: the run's probes cannot be fitted")
    size = check_regular(path, limit=None, what="hidden-state file")
    if size < needed * layout.row_bytes:
        raise InputError(
            f"holds {size:,} bytes, but the records point at {needed:,} rows of "
            f"{layout.row_bytes:,} bytes: {needed * layout.row_bytes:,} bytes expected "
            "(the file was cut short)",
            source=str(path),
        )
    rows = size // layout.row_bytes
    if rows == 0:
        return np.zeros((0, *layout.row_shape), dtype=np.float32)
    return np.memmap(path, dtype="<f4", mode="r", shape=(rows, *layout.row_shape))
