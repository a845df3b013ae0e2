"""Readouts and diagnostics at a scored position: options in context, mass, argmax, greedy text."""

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

__all__ = [
    "DEFAULT_GREEDY_TOKENS",
    "DEFAULT_TOP_K",
    "Greedy",
    "OptionEncoding",
    "PositionReadout",
    "TopToken",
    "distinct_first_tokens",
    "encode_in_context",
    "numeric_values",
    "option_mass",
    "position_request",
    "read_position",
    "renormalise",
]
