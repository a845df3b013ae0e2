"""Audits: the built-in protocols, each one registered audit kind."""

from readout_audit.audit._downstream import Downstream
from readout_audit.audit._options import (
    OPTIONS,
    LadderRung,
    OptionsSummary,
    audit_options,
    summarise_options,
)
from readout_audit.audit._ptrue import (
    PTRUE,
    PTrueReadout,
    PTrueSummary,
    audit_ptrue,
    summarise_ptrue,
)
from readout_audit.audit._ptrue_answers import generate_answers
from readout_audit.audit._score import (
    SCORE,
    PreparedItem,
    items_sha256,
    prepare,
    score,
    score_item,
    scoring_config,
    variant_name,
)
from readout_audit.audit._summary import (
    MassSummary,
    ScoreSummary,
    VariantScores,
    summarise,
)
from readout_audit.audit._yesno import YESNO, ModelSets, YesNoSetup, audit_yesno, diagnose
from readout_audit.audit._yesno_summary import (
    ClosedForm,
    IdDifference,
    SetComparison,
    YesNoGroup,
    YesNoMetrics,
    YesNoSummary,
    summarise_yesno,
)
from readout_audit.readout import MASS_FLOOR

__all__ = [
    "MASS_FLOOR",
    "OPTIONS",
    "PTRUE",
    "SCORE",
    "YESNO",
    "ClosedForm",
    "Downstream",
    "IdDifference",
    "LadderRung",
    "MassSummary",
    "ModelSets",
    "OptionsSummary",
    "PTrueReadout",
    "PTrueSummary",
    "PreparedItem",
    "ScoreSummary",
    "SetComparison",
    "VariantScores",
    "YesNoGroup",
    "YesNoMetrics",
    "YesNoSetup",
    "YesNoSummary",
    "audit_options",
    "audit_ptrue",
    "audit_yesno",
    "diagnose",
    "generate_answers",
    "items_sha256",
    "prepare",
    "score",
    "score_item",
    "scoring_config",
    "summarise",
    "summarise_options",
    "summarise_ptrue",
    "summarise_yesno",
    "variant_name",
]
