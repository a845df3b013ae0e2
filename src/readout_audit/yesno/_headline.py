"""The yes/no audit's headline for ``readout table``: the reference readout and the spread."""

from __future__ import annotations

from readout_audit.kind import ACCURACY
from readout_audit.yesno._summary import REFERENCE, YesNoSummary


def yesno_headline(summary: YesNoSummary) -> dict[str, float | None]:
    """The reference readout's accuracy and F1, and how far F1 moves across the readouts.

    ``F1 range`` is the highest readout's F1 minus the lowest's, over all questions: what the
    choice of readout alone changes.
    """
    readouts = summary.overall.readouts
    reference = readouts.get(REFERENCE)
    f1s = [m.f1.estimate for m in readouts.values() if m.f1 is not None]
    return {
        ACCURACY: reference.accuracy.estimate if reference and reference.accuracy else None,
        f"F1 {REFERENCE}": reference.f1.estimate if reference and reference.f1 else None,
        "F1 range": max(f1s) - min(f1s) if f1s else None,
    }
