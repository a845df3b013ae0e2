"""Audits: protocols that run readouts over items and write run directories."""

from readout_audit.audit._checks import Check
from readout_audit.audit._options import audit_options, summarise_options
from readout_audit.audit._ptrue import audit_ptrue, summarise_ptrue
from readout_audit.audit._score import (
    PreparedItem,
    ScoreResult,
    items_sha256,
    prepare,
    score,
    score_item,
    variant_name,
)
from readout_audit.audit._summary import MASS_FLOOR, summarise

__all__ = [
    "MASS_FLOOR",
    "Check",
    "PreparedItem",
    "ScoreResult",
    "audit_options",
    "audit_ptrue",
    "items_sha256",
    "prepare",
    "score",
    "score_item",
    "summarise",
    "summarise_options",
    "summarise_ptrue",
    "variant_name",
]
