"""Context-only training examples: a training paper's cut, its recent-context prompt, its Y.

The prompt is the scorer's same-budget recent-context control (``context``: the last
B = |Y| + 40 characters before the display, then its opening and the visible prefix; for prose,
the 3,000-character context), with no forecast string; the target is what the benchmark scores.
Only cuts of the split's training papers become examples.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from readout_audit.lift._conditions import CONTEXT, LiftSetup, conditions, target_text
from readout_audit.lift._cut import Cut
from readout_audit.lift.sft._split import PaperSplit


class SftExample(BaseModel):
    """One training example: the cut it comes from, the context-only prompt and the target."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    paper: str
    prompt: str
    target: str


def sft_examples(cuts: Sequence[Cut], split: PaperSplit, setup: LiftSetup) -> list[SftExample]:
    """The training papers' cuts as context-only examples, in the cut file's order."""
    train = set(split.train)
    found = []
    for cut in cuts:
        if cut.paper not in train:
            continue
        (prompt,) = [c.prompt for c in conditions(cut, {}, setup) if c.name == CONTEXT]
        found.append(
            SftExample(id=cut.id, paper=cut.paper, prompt=prompt, target=target_text(cut, setup))
        )
    return found
