"""``readout compare`` of two yes/no runs: each readout's F1 from the same resamples."""

from __future__ import annotations

from collections.abc import Sequence

from readout_audit.report import PairedDifference, paired_difference
from readout_audit.stats import binary_scores_bootstrap, resampling_clusters
from readout_audit.yesno._record import YesNoRecord


def yesno_paired_metrics(
    typed: Sequence[tuple[YesNoRecord, YesNoRecord]], n_boot: int, seed: int
) -> list[PairedDifference]:
    """Each readout's F1 in both runs from the same resamples (one seed), so B − A is paired."""
    if not typed:
        return []
    label = [a.label == "yes" for a, _ in typed]
    clusters = [a.cluster for a, _ in typed]
    rows = []
    for readout in typed[0][0].decisions:
        if not all(a.decisions.get(readout) and b.decisions.get(readout) for a, b in typed):
            continue
        f1 = [
            binary_scores_bootstrap(
                [r.decisions[readout] == "yes" for r in side],
                label,
                n_boot=n_boot,
                seed=seed,
                clusters=resampling_clusters(clusters),
            )["f1"]
            for side in ([a for a, _ in typed], [b for _, b in typed])
        ]
        rows.append(
            paired_difference(
                f"F1 {readout}",
                (f1[0].estimate, f1[1].estimate),
                f1[1].replicates - f1[0].replicates,
                clusters,
            )
        )
    return rows
