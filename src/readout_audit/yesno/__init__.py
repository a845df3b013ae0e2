"""The yes/no audit (seed 002): fixed-id, dynamic and in-context sets against the parse."""

from readout_audit.yesno._audit import (
    YESNO,
    ModelSets,
    YesNoSetup,
    audit_yesno,
    diagnose,
)
from readout_audit.yesno._record import (
    YesNoRecord,
)
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
    "YESNO",
    "ClosedForm",
    "IdDifference",
    "ModelSets",
    "SetComparison",
    "YesNoGroup",
    "YesNoMetrics",
    "YesNoRecord",
    "YesNoSetup",
    "YesNoSummary",
    "audit_yesno",
    "diagnose",
    "summarise_yesno",
]
