"""The score kind: every item's declared options read at its scored position."""

from readout_audit.scoring._audit import (
    SCORE,
    PreparedItem,
    items_sha256,
    prepare,
    score,
    score_item,
    scoring_config,
    variant_name,
)
from readout_audit.scoring._summary import (
    MassSummary,
    ScoreSummary,
    VariantScores,
    summarise,
)

__all__ = [
    "SCORE",
    "MassSummary",
    "PreparedItem",
    "ScoreSummary",
    "VariantScores",
    "items_sha256",
    "prepare",
    "score",
    "score_item",
    "scoring_config",
    "summarise",
    "variant_name",
]
