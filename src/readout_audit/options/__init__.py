"""The constrained-option audit (seed 000): the prompt ladder, its checks, the forecast's use."""

from readout_audit.options._audit import (
    OPTIONS,
    LadderRung,
    OptionsSummary,
    audit_options,
    by_rung,
    ladder_items,
    options_record,
    options_request,
    summarise_options,
)
from readout_audit.options._checks import (
    VERDICT_RUNGS,
    options_checks,
    variant_summary,
)
from readout_audit.options._downstream import (
    Downstream,
)
from readout_audit.options._headline import ladder_headline
from readout_audit.options._paired import options_paired_metrics
from readout_audit.options._record import (
    OptionsRecord,
)
from readout_audit.options._settings import OptionsSettings

__all__ = [
    "Downstream",
    "LadderRung",
    "OPTIONS",
    "OptionsRecord",
    "OptionsSettings",
    "OptionsSummary",
    "VERDICT_RUNGS",
    "audit_options",
    "by_rung",
    "ladder_headline",
    "ladder_items",
    "options_checks",
    "options_paired_metrics",
    "options_record",
    "options_request",
    "summarise_options",
    "variant_summary",
]
