"""The lm-eval audit's record: one document of a task, read at lm-eval's scored position."""

from __future__ import annotations

from pydantic import Field

from readout_audit.options import OptionsRecord


class LMEvalRecord(OptionsRecord):
    """An options-audit record of one lm-eval document, with lm-eval's own view of it."""

    task: str
    group: str | None = None
    doc_id: int
    choices: list[str]
    """The task's ``doc_to_choice`` strings (continuations without their delimiter)."""
    gold: list[int]
    """Indices of the correct continuations (empty when the task gives none)."""
    moved_whitespace: str
    """Whitespace lm-eval moved from the context's end onto every continuation (its
    ``_encode_pair``): the position read is before it."""
    lm_eval_metrics: dict[str, float] = Field(default_factory=dict)
    """acc, acc_norm and acc_bytes by lm-eval's formulas from this record's log-likelihoods
    (empty when a continuation could not be scored)."""
    logged_logliks: list[float] | None = None
    """The log-likelihoods a finished lm-eval run logged for these continuations (``--samples``)."""
    logged_metrics: dict[str, float] = Field(default_factory=dict)
    """That run's per-document metrics."""
    tolerance: float | None = None
    """Largest |re-scored − logged| log-likelihood that counts as reproduced (logged runs)."""
