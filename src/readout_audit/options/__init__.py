"""The constrained-option audit (seed 000): the prompt ladder, its checks, the forecast's use."""

from readout_audit.options._audit import (
    OPTIONS,
    LadderRung,
    OptionsSummary,
    audit_options,
    summarise_options,
)
from readout_audit.options._checks import (
    VERDICT_RUNGS,
)
from readout_audit.options._downstream import (
    Downstream,
)
from readout_audit.options._record import (
    OptionsRecord,
)

__all__ = [
    "OPTIONS",
    "Downstream",
    "LadderRung",
    "OptionsRecord",
    "OptionsSummary",
    "VERDICT_RUNGS",
    "audit_options",
    "summarise_options",
]
