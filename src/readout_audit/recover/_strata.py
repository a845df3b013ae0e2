"""Per-depth strata of every readout (seed 003, Table 32's depth rows, for each readout).

A readout that holds on shallow items and fails on deep ones reads differently from one that
fails alike at every depth; the strata split each readout's held-out accuracy by the items'
reasoning depth, the corrected string score included.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from readout_audit._exceptions import InputError
from readout_audit.recover._summary import DepthStratum


def depth_strata(
    correct: Mapping[str, np.ndarray], depths: Sequence[int | None]
) -> list[DepthStratum]:
    """One row per depth (ascending) with each readout's mean correctness on its examples.

    ``correct[readout]`` holds per-example correctness in [0, 1] (a probe's averaged over its
    seeds); examples without a depth are left out, and no row is made when none has one.
    """
    known = np.array([d is not None for d in depths], dtype=bool)
    for name, values in correct.items():
        if np.shape(values) != (len(depths),):
            raise InputError(
                f"expected one value per example ({len(depths)}), got {np.shape(values)}",
                field=f"correct[{name!r}]",
            )
    if not known.any():
        return []
    levels = np.array([d if d is not None else -1 for d in depths], dtype=np.int64)
    rows = []
    for depth in sorted(set(levels[known].tolist())):
        where = levels == depth
        rows.append(
            DepthStratum(
                depth=depth,
                n=int(where.sum()),
                accuracies={name: float(np.mean(v[where])) for name, v in correct.items()},
            )
        )
    return rows
