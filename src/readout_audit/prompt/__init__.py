"""Prompt rendering: the exact scored context, its tokens and the class of its ending."""

from readout_audit.prompt._render import (
    TAIL_CHARS,
    Ending,
    RenderedContext,
    Rendering,
    context_field,
    ending_class,
    render,
)
from readout_audit.prompt._spec import (
    ANSWER,
    BUILTIN_RUNGS,
    BUILTIN_SPECS,
    FORECAST,
    FORECAST_RUNGS,
    LADDER,
    T1_STEM,
    T1_TEMPLATE,
    Parts,
    PromptSpec,
    Variant,
    build_item,
)
from readout_audit.prompt._spec_file import load_spec_file

__all__ = [
    "ANSWER",
    "BUILTIN_RUNGS",
    "BUILTIN_SPECS",
    "FORECAST",
    "FORECAST_RUNGS",
    "LADDER",
    "T1_STEM",
    "T1_TEMPLATE",
    "TAIL_CHARS",
    "Ending",
    "Parts",
    "PromptSpec",
    "RenderedContext",
    "Rendering",
    "Variant",
    "build_item",
    "context_field",
    "ending_class",
    "load_spec_file",
    "render",
]
