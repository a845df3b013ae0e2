"""The readout-gap table (seed 003, §4.2 and Appendix D, Table 16).

Each row compares two readouts of the same examples by their accuracy difference, with a
paired bootstrap interval and a paired bootstrap p-value, e.g. "the answer-slot probe exceeds
the string score by +0.488 (95% CI [+0.452, +0.523], paired p < .001)".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from readout_audit._exceptions import InputError
from readout_audit.stats import centered_bootstrap_pvalue, paired_bootstrap, resampling_clusters


@dataclass(frozen=True)
class GapRow:
    """Readout ``a``'s accuracy minus readout ``b``'s, on the same examples."""

    a: str
    b: str
    difference: float
    """mean(correct_a) − mean(correct_b)."""
    low: float
    high: float
    """The paired percentile interval [q_{α/2}, q_{1−α/2}] of the replicate differences."""
    p_value: float
    """Two-sided paired bootstrap p-value of "no difference" (see :func:`readout_gap`)."""


def _correctness(correct: Mapping[str, Any], names: Sequence[str]) -> dict[str, np.ndarray]:
    arrays = {}
    for name in names:
        if name not in correct:
            raise InputError(f"{name!r} is not among the readouts {list(correct)}", field="pairs")
        values = np.asarray(correct[name], dtype=np.float64)
        where = f"correct[{name!r}]"
        if values.ndim != 1 or values.size == 0:
            raise InputError(f"expected a non-empty 1-D array, got {values.shape}", field=where)
        bad = np.flatnonzero(~((values >= 0) & (values <= 1)))
        if bad.size:
            raise InputError(f"value {values[bad[0]]} at {bad[0]} is not in [0, 1]", field=where)
        arrays[name] = values
    lengths = {name: v.size for name, v in arrays.items()}
    if len(set(lengths.values())) > 1:
        raise InputError(f"readouts must score the same examples, got {lengths}", field="correct")
    return arrays


def readout_gap(
    correct: Mapping[str, Any],
    pairs: Sequence[tuple[str, str]],
    *,
    n_boot: int = 10_000,
    seed: int = 0,
    alpha: float = 0.05,
    clusters: Sequence[Any] | None = None,
) -> list[GapRow]:
    """One row per (a, b) pair: accuracy difference, paired interval and p-value.

    ``correct[name]`` holds per-example correctness in [0, 1] on the same examples: 0/1 for a
    single readout, a probe's correctness averaged over its seeds. Every pair is judged on the
    same B resamples of the examples (whole clusters when two or more are given), so a
    replicate's difference Δ*_b = mean*_b(a) − mean*_b(b) keeps the pairing. With Δ the observed
    difference, p = (1 + #{b : |Δ*_b − Δ| ≥ |Δ| − 10⁻¹²}) / (B + 1): the replicates centred on
    Δ stand in for the null, and p ≥ 1/(B + 1). Identical readouts give Δ = 0 and p = 1.
    """
    if not pairs:
        raise InputError("expected at least one (a, b) pair", field="pairs")
    names = list(dict.fromkeys(name for pair in pairs for name in pair))
    arrays = _correctness(correct, names)
    n = next(iter(arrays.values())).size
    if clusters is not None and len(clusters) != n:
        raise InputError(
            f"expected one cluster per example ({n}), got {len(clusters)}", field="clusters"
        )
    distinct = list(dict.fromkeys((a, b) for a, b in pairs))
    if len({f"{a} - {b}" for a, b in distinct}) < len(distinct):
        raise InputError("readout names containing ' - ' make two pairs alike", field="pairs")
    boot = paired_bootstrap(
        arrays,
        statistic="mean",
        n_boot=n_boot,
        alpha=alpha,
        seed=seed,
        clusters=None if clusters is None else resampling_clusters(clusters),
        pairs=[(b, a) for a, b in distinct],
    )
    rows = []
    for a, b in pairs:
        gap = boot.differences[f"{a} - {b}"]
        p_value = centered_bootstrap_pvalue(gap.estimate, gap.replicates)
        rows.append(GapRow(a, b, gap.estimate, gap.low, gap.high, p_value))
    return rows
