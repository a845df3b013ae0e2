"""``readout compare`` of two lm-eval audits: lm-eval's acc and the option mass per task, paired."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from readout_audit.lmeval._record import LMEvalRecord
from readout_audit.options import options_paired_metrics
from readout_audit.report import PairedDifference, mean_difference

Metric = Callable[[LMEvalRecord], float | None]
PER_TASK: dict[str, Metric] = {
    "acc": lambda r: r.lm_eval_metrics.get("acc"),
    "acc_norm": lambda r: r.lm_eval_metrics.get("acc_norm"),
    # a first token the options share holds mass that separates nothing (as in the summary)
    "option mass": lambda r: r.option_mass if r.distinct_first_tokens else None,
}
"""Per-document values compared task by task: lm-eval's two metrics and the option mass."""


def lm_eval_paired_metrics(
    pairs: Sequence[tuple[LMEvalRecord, LMEvalRecord]], n_boot: int, seed: int
) -> list[PairedDifference]:
    """Per task: acc, acc_norm and option mass in A and B, with B − A's paired interval.

    Over the documents both runs read (a paired bootstrap over documents), then the options
    audit's own differences.
    """
    tasks: dict[str, list[tuple[LMEvalRecord, LMEvalRecord]]] = {}
    for a, b in pairs:
        tasks.setdefault(a.task, []).append((a, b))
    rows = []
    for task, members in tasks.items():
        for name, metric in PER_TASK.items():
            kept = [
                (x, y, a.item_id)
                for a, b in members
                if (x := metric(a)) is not None and (y := metric(b)) is not None
            ]
            if kept:
                xs, ys, docs = zip(*kept, strict=True)
                rows.append(mean_difference(f"{name} {task}", xs, ys, docs, n_boot, seed))
    return rows + options_paired_metrics(pairs, n_boot, seed)
