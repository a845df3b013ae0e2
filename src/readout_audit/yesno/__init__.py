"""The yes/no audit (seed 002): fixed-id, dynamic and in-context sets against the parse."""

from readout_audit.yesno._audit import (
    DIAGNOSTIC_SAMPLE,
    PARSE_TOKENS,
    YESNO,
    ModelSets,
    YesNoSetup,
    audit_yesno,
    diagnose,
    ignored_images,
    yesno_item,
)
from readout_audit.yesno._record import (
    YesNoRecord,
)
from readout_audit.yesno._settings import YesNoSettings
from readout_audit.yesno._summary import (
    ClosedForm,
    IdDifference,
    SetComparison,
    YesNoGroup,
    YesNoMetrics,
    YesNoSummary,
    summarise_yesno,
)

__all__ = [
    "ClosedForm",
    "DIAGNOSTIC_SAMPLE",
    "IdDifference",
    "ModelSets",
    "PARSE_TOKENS",
    "SetComparison",
    "YESNO",
    "YesNoGroup",
    "YesNoMetrics",
    "YesNoRecord",
    "YesNoSettings",
    "YesNoSetup",
    "YesNoSummary",
    "audit_yesno",
    "diagnose",
    "ignored_images",
    "summarise_yesno",
    "yesno_item",
]
