"""Readouts and diagnostics at a scored position: options in context, mass, argmax, greedy text."""

from readout_audit.readout._continuation import (
    ContinuationClass,
    ContinuationReading,
    letter_pull,
    read_continuation,
)
from readout_audit.readout._options import (
    OptionEncoding,
    distinct_first_tokens,
    encode_in_context,
    option_mass,
)
from readout_audit.readout._position import (
    DEFAULT_GREEDY_TOKENS,
    DEFAULT_TOP_K,
    Greedy,
    PositionReadout,
    TopToken,
    numeric_values,
    position_request,
    read_position,
    renormalise,
)
from readout_audit.readout._yesno import (
    LLAMA_PAIR,
    LLAMA_SET,
    NO_FORMS,
    YES_FORMS,
    ParsedAnswer,
    TokenSets,
    max_logit_decision,
    parse_yes_no,
    sets_from_encodings,
)

__all__ = [
    "DEFAULT_GREEDY_TOKENS",
    "DEFAULT_TOP_K",
    "LLAMA_PAIR",
    "LLAMA_SET",
    "NO_FORMS",
    "YES_FORMS",
    "ContinuationClass",
    "ContinuationReading",
    "Greedy",
    "OptionEncoding",
    "ParsedAnswer",
    "PositionReadout",
    "TokenSets",
    "TopToken",
    "distinct_first_tokens",
    "encode_in_context",
    "letter_pull",
    "max_logit_decision",
    "numeric_values",
    "option_mass",
    "parse_yes_no",
    "position_request",
    "read_continuation",
    "read_position",
    "renormalise",
    "sets_from_encodings",
]
