"""The SFT rung's scorer (seed 001, Section 6): a fine-tuned copy of the scorer and its papers.

The rung reads each held-out cut's same-budget recent-context prompt (``context``) with the
context-only fine-tuned scorer; cuts of training papers are not scored under it, nor are
held-out cuts whose target a training example holds (found when it trained); a held-out cut
the fine-tuning trained on or never checked (another cut file under the same ids) is refused.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from readout_audit._exceptions import InputError
from readout_audit.lift._conditions import LiftSetup
from readout_audit.lift._cut import Cut, sha256_text
from readout_audit.model import ScoringModel

PROMPT_FIELDS = ("slack", "prose_context", "closing", "bos")
"""The setup fields that shape a cut's ``context`` prompt and its scored target."""


@dataclass(frozen=True)
class SftScorer:
    """The fine-tuned scorer, the papers it may score, and the cuts it was trained on."""

    model: ScoringModel
    held_out: frozenset[str]
    trained: frozenset[str]
    """Ids of the cuts its fine-tuning trained on."""
    checked: Mapping[str, str] = field(default_factory=dict)
    """Held-out cut id → its target's SHA-256, for every cut checked against the examples."""
    overlap: frozenset[str] = frozenset()
    """Held-out cuts whose target a training example holds: not read."""
    identity: dict[str, Any] = field(default_factory=dict)
    """What the run's manifest records of it (the fine-tuning's manifest hash, its adapter)."""
    setup: dict[str, Any] = field(default_factory=dict)
    """The budgets its training prompts were built with (:meth:`LiftSetup.as_config`)."""

    def check_setup(self, setup: LiftSetup) -> None:
        """Refuse a run whose ``context`` prompts are not the route the scorer was tuned on."""
        check_sft_setup(self.setup, setup)

    def scored(self, cuts: Sequence[Cut]) -> set[str]:
        """Ids of the cuts the rung reads (:func:`rung_cuts`)."""
        return rung_cuts(cuts, self.held_out, self.trained, self.checked, self.overlap)


def check_sft_setup(trained: Mapping[str, Any], setup: LiftSetup) -> None:
    """Refuse ``setup`` when a field shaping the ``context`` prompt differs from ``trained``."""
    mine = setup.as_config()
    differs = [k for k in PROMPT_FIELDS if k in trained and trained[k] != mine[k]]
    if differs:
        shown = ", ".join(f"{k} {trained[k]!r} (this run: {mine[k]!r})" for k in differs)
        raise InputError(
            f"the SFT scorer was tuned on context prompts built with other settings: {shown}",
            field="sft",
        )


def rung_cuts(
    cuts: Sequence[Cut],
    held_out: Collection[str],
    trained: Collection[str],
    checked: Mapping[str, str],
    overlap: Collection[str],
) -> set[str]:
    """Ids of the held-out papers' cuts the rung reads: checked, and held by no example.

    A cut the fine-tuning trained on, or one it never checked against its examples (not in
    ``checked`` with that target), is refused: not the cut file the fine-tuning split.
    """
    found = [c for c in cuts if c.paper in held_out]
    seen = sorted({c.id for c in found} & set(trained))
    if seen:
        raise InputError(
            f"{len(seen)} cut(s) of held-out papers were SFT training examples (first "
            f"{seen[0]!r}): not the cut file the fine-tuning split",
            field="sft",
        )
    unchecked = [c.id for c in found if checked.get(c.id) != sha256_text(c.target)]
    if unchecked:
        raise InputError(
            f"{len(unchecked)} cut(s) of held-out papers were never checked against the "
            f"training examples (first {unchecked[0]!r}): not the cut file the fine-tuning split",
            field="sft",
        )
    kept = {c.id for c in found} - set(overlap)
    if not kept:
        raise InputError(
            "no cut of this run is on one of the fine-tuning's held-out papers and held by "
            "no training example",
            field="sft",
        )
    return kept
