"""The P(True) audit (seed 001): lm-polygraph's readout against its repairs."""

from readout_audit.ptrue._answers import (
    generate_answers,
)
from readout_audit.ptrue._audit import (
    PTRUE,
    PTrueReadout,
    PTrueSummary,
    audit_ptrue,
    summarise_ptrue,
)
from readout_audit.ptrue._record import (
    PTrueRecord,
)

__all__ = [
    "PTRUE",
    "PTrueReadout",
    "PTrueRecord",
    "PTrueSummary",
    "audit_ptrue",
    "generate_answers",
    "summarise_ptrue",
]
