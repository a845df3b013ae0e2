"""The ``recover`` audit kind: registered once, found by the runner, reports, CLI and compare."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from readout_audit.kind import AuditKind, register_kind
from readout_audit.recover._analysis import summarise_recover_run
from readout_audit.recover._offsets import corrected_predictions, fit_offsets
from readout_audit.recover._record import RecoverRecord, split_key
from readout_audit.recover._report import recover_sections
from readout_audit.recover._store import HIDDEN_FILE
from readout_audit.recover._summary import RecoverSummary
from readout_audit.recover._tables import Table
from readout_audit.report import PairedDifference, mean_difference


def recover_paired_metrics(
    typed: Sequence[tuple[RecoverRecord, RecoverRecord]], n_boot: int, seed: int
) -> list[PairedDifference]:
    """Raw and corrected held-out accuracy of two runs of one configuration, paired by item.

    Each run's offsets are refitted on its own fit-split records among the pairs (the default
    grid and a uniform prior), then frozen for its held-out records.
    """
    fits = [Table.of([p[side] for p in typed if p[side].role == "fit"]) for side in (0, 1)]
    if not all(len(t.records) for t in fits):
        return []
    offsets = [fit_offsets(t.sums).offsets for t in fits]
    rows = []
    for split in dict.fromkeys(a.split for a, _ in typed if a.role == "eval"):
        members = [
            (a, b)
            for a, b in typed
            if a.split == split and None not in a.option_logprobs + b.option_logprobs
        ]
        if not members:
            continue
        sides = [Table.of([p[side] for p in members]) for side in (0, 1)]
        labels = sides[0].labels
        assert labels is not None
        clusters = [a.cluster for a, _ in members]
        for stage, shift in (("raw", [np.zeros(3)] * 2), ("corrected", offsets)):
            right = [
                (corrected_predictions(t.sums, c) == labels).astype(float)
                for t, c in zip(sides, shift, strict=True)
            ]
            name = f"{stage} accuracy ({split})"
            rows.append(mean_difference(name, right[0], right[1], clusters, n_boot, seed))
    return rows


RECOVER: AuditKind[RecoverRecord, RecoverSummary] = AuditKind(
    name="recover",
    title="collapsed-score recovery",
    record_type=RecoverRecord,
    summary_type=RecoverSummary,
    summarise=summarise_recover_run,
    sections=recover_sections,
    record_key=split_key,
    paired_metrics=recover_paired_metrics,
    files=(HIDDEN_FILE,),
)
register_kind(RECOVER)
