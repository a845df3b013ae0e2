"""The P(True) audit (seed 001): lm-polygraph's readout against its repairs."""

from readout_audit.ptrue._answers import (
    LIBRARY_SEED,
    AnswerMode,
    PromptMode,
    generate_answers,
)
from readout_audit.ptrue._audit import (
    PTRUE,
    PTrueReadout,
    PTrueSummary,
    audit_ptrue,
    readout_items,
    summarise_ptrue,
)
from readout_audit.ptrue._record import (
    PTrueRecord,
)
from readout_audit.ptrue._settings import PTrueSettings

__all__ = [
    "AnswerMode",
    "LIBRARY_SEED",
    "PTRUE",
    "PTrueReadout",
    "PTrueRecord",
    "PTrueSettings",
    "PTrueSummary",
    "PromptMode",
    "audit_ptrue",
    "generate_answers",
    "readout_items",
    "summarise_ptrue",
]
