"""The P(True) audit's record: one (question, answer) pair under one readout."""

from __future__ import annotations

from pydantic import Field

from readout_audit.log import ScoreRecord
from readout_audit.readout import PTrueClass


class PTrueRecord(ScoreRecord):
    """A record of the P(True) audit: one (question, answer) pair under one readout."""

    readout: str
    """library, plain, renormalised, labels_in_place, moved or deleted."""
    answer: str
    """The answer judged (the model's own greedy answer unless the item supplied one)."""
    correct: bool
    """The answer's correctness against the item's gold labels."""
    confidence: float | None
    """The readout's confidence: log P(True) for library, plain and deleted, else a
    renormalised probability of True (or of its label A)."""
    removed_mass: float | None = None
    """library and deleted: the end-of-sequence probability lm-polygraph's first step removes."""
    item_letters: list[str] = Field(default_factory=lambda: ["A", "B", "C", "D"])
    """The quoted item's own letters (for the argmax class)."""
    argmax_class: PTrueClass | None = None
    """What holds the position: the readout's option, True/False, a label, an item letter, …"""
