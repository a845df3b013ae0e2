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
from readout_audit.audit._yesno import YesNoSetup, audit_yesno, diagnose
from readout_audit.audit._yesno_summary import summarise_yesno

__all__ = [
    "MASS_FLOOR",
    "Check",
    "PreparedItem",
    "ScoreResult",
    "YesNoSetup",
    "audit_options",
    "audit_ptrue",
    "audit_yesno",
    "diagnose",
    "items_sha256",
    "prepare",
    "score",
    "score_item",
    "summarise",
    "summarise_options",
    "summarise_ptrue",
    "summarise_yesno",
    "variant_name",
]
