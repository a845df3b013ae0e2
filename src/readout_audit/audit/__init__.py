"""Audits: protocols that run readouts over items and write run directories."""

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
    "PreparedItem",
    "ScoreResult",
    "items_sha256",
    "prepare",
    "score",
    "score_item",
    "summarise",
    "variant_name",
]
