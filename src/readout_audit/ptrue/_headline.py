"""The P(True) audit's headline for ``readout table``: the library's AUROC and the spread."""

from __future__ import annotations

from typing import TYPE_CHECKING

from readout_audit.kind import ACCURACY

if TYPE_CHECKING:
    from readout_audit.ptrue._audit import PTrueSummary

LIBRARY = "library"
"""The readout lm-polygraph itself reads."""


def ptrue_headline(summary: PTrueSummary) -> dict[str, float | None]:
    """The answers' accuracy, the library readout's AUROC, and how far AUROC moves.

    ``AUROC range`` is the highest readout's AUROC minus the lowest's: what the choice of
    readout alone changes in the ranking of correct answers.
    """
    library = summary.readouts.get(LIBRARY)
    aurocs = [r.auroc.estimate for r in summary.readouts.values() if r.auroc is not None]
    return {
        ACCURACY: summary.accuracy,
        f"AUROC {LIBRARY}": library.auroc.estimate if library and library.auroc else None,
        "AUROC range": max(aurocs) - min(aurocs) if aurocs else None,
    }
