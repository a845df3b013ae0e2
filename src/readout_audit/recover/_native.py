"""The best native readout position and layer (seed 003, Appendix D, Table 12).

The label logits read the answer slot's last hidden state through the model's output layer.
The same head can read either stored position (the prompt's end, the answer slot) at every
stored layer, an earlier layer going through the final norm first (a logit lens). The position
and layer that read best on the labelled training split are then judged on each held-out split:
if even the best native readout stays far below the probes, the answer is lost at the
vocabulary projection, not at one unlucky position.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from readout_audit._exceptions import InputError
from readout_audit.recover._summary import NativeReadout

POSITIONS = ("prompt end", "answer slot")
"""The stored positions, in the order of a record's ``layer_logits``."""


def native_accuracies(lens: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Accuracy of argmax over the candidates' logits, per (position, layer): shape (2, layers).

    ``lens`` has shape (examples, positions, layers, labels), ``labels`` one index per example;
    an exact tie goes to the earlier label, as every argmax here does.
    """
    table = np.asarray(lens, dtype=np.float64)
    gold = np.asarray(labels)
    if table.ndim != 4 or gold.shape != (table.shape[0],) or table.shape[0] == 0:
        raise InputError(
            f"expected (examples, positions, layers, labels) logits and one label per example, "
            f"got {table.shape} and {gold.shape}",
            field="layer_logits",
        )
    return np.asarray(np.mean(np.argmax(table, axis=3) == gold[:, None, None], axis=0))


def best_native(accuracies: np.ndarray) -> tuple[int, int]:
    """The (position, layer index) of the highest accuracy.

    Ties go to the conventional readout first: the answer slot, then later layers.
    """
    grid = np.asarray(accuracies)
    order = [
        (p, j) for p in range(grid.shape[0] - 1, -1, -1) for j in range(grid.shape[1] - 1, -1, -1)
    ]
    return max(order, key=lambda cell: (grid[cell], -order.index(cell)))


def native_rows(
    accuracies: np.ndarray, layers: Sequence[int], selected: tuple[int, int] | None
) -> list[NativeReadout]:
    """One row per (position, layer) of a held-out split, the training split's choice marked."""
    return [
        NativeReadout(
            position=POSITIONS[p],
            layer=layer,
            accuracy=float(accuracies[p, j]),
            selected=(p, j) == selected,
        )
        for p in range(accuracies.shape[0])
        for j, layer in enumerate(layers)
    ]
