"""``readout compare`` of two P(True) runs: AUROC on the same answers, paired."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from readout_audit.ptrue._record import PTrueRecord
from readout_audit.report import PairedDifference, paired_difference
from readout_audit.stats import paired_bootstrap, resampling_clusters


def ptrue_paired_metrics(
    typed: Sequence[tuple[PTrueRecord, PTrueRecord]], n_boot: int, seed: int
) -> list[PairedDifference]:
    """AUROC in both runs when they judge the same answers' correctness."""
    if not all(
        a.correct == b.correct and a.confidence is not None and b.confidence is not None
        for a, b in typed
    ):
        return []
    y = np.array([a.correct for a, _ in typed])
    if y.all() or not y.any():
        return []
    clusters = [a.cluster for a, _ in typed]
    boot = paired_bootstrap(
        {"A": [a.confidence for a, _ in typed], "B": [b.confidence for _, b in typed]},
        y,
        statistic="auc",
        clusters=resampling_clusters(clusters),
        n_boot=n_boot,
        seed=seed,
    )
    first, second = boot.readouts["A"], boot.readouts["B"]
    return [
        paired_difference(
            "AUROC",
            (first.estimate, second.estimate),
            second.replicates - first.replicates,
            clusters,
        )
    ]
