"""The score kind: every item's declared options read at its scored position."""

from readout_audit.scoring._audit import (
    SCORE,
    PreparedItem,
    items_sha256,
    prepare,
    prepare_rendered,
    rendered_preflight,
    score,
    score_item,
    score_stage,
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
    "MassSummary",
    "PreparedItem",
    "SCORE",
    "ScoreSummary",
    "VariantScores",
    "items_sha256",
    "prepare",
    "prepare_rendered",
    "rendered_preflight",
    "score",
    "score_item",
    "score_stage",
    "scoring_config",
    "summarise",
    "variant_name",
]
