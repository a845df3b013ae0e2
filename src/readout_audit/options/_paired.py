"""``readout compare`` of two options runs: the option-mass choice's accuracy, paired."""

from __future__ import annotations

from readout_audit.log import ScoreRecord
from readout_audit.report import PairedDifference, Pairs, mean_difference


def _mass_choice_correct(record: ScoreRecord) -> float | None:
    pick = getattr(record, "readout_choices", {}).get("first_token")
    if not isinstance(record.target, str) or pick is None:
        return None
    return float(record.matches_target(record.options[pick]))


def options_paired_metrics(pairs: Pairs, n_boot: int, seed: int) -> list[PairedDifference]:
    """Accuracy of the option-mass choice (the most probable first token) in both runs."""
    kept = [
        (x, y, a.cluster)
        for a, b in pairs
        if (x := _mass_choice_correct(a)) is not None and (y := _mass_choice_correct(b)) is not None
    ]
    if not kept:
        return []
    xs, ys, clusters = zip(*kept, strict=True)
    return [mean_difference("accuracy (option-mass choice)", xs, ys, clusters, n_boot, seed)]
