"""The score kind: every item's declared options read at its scored position."""

from readout_audit.scoring._audit import (
    SCORE,
    PreparedItem,
    check_rendered,
    items_sha256,
    prepare,
    prepare_rendered,
    score_item,
    scoring_config,
    variant_name,
)
from readout_audit.scoring._settings import ScoreSettings, audit_score, score
from readout_audit.scoring._summary import (
    MassSummary,
    ScoreSummary,
    VariantScores,
    summarise,
)

__all__ = [
    "MassSummary",
    "PreparedItem",
    "SCORE",
    "ScoreSettings",
    "ScoreSummary",
    "VariantScores",
    "audit_score",
    "check_rendered",
    "items_sha256",
    "prepare",
    "prepare_rendered",
    "score",
    "score_item",
    "scoring_config",
    "summarise",
    "variant_name",
]
