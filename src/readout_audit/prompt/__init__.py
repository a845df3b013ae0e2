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
    BUILTIN_SPECS,
    FORECAST,
    FORECAST_CONDITIONS,
    LADDER,
    RENAMED_RUNGS,
    Parts,
    PromptSpec,
    Variant,
    build_item,
    item_parts,
    quoted_item,
    select_rungs,
)
from readout_audit.prompt._spec_file import SPEC_SUFFIXES, SpecFile, load_spec_file, read_spec_file

__all__ = [
    "ANSWER",
    "BUILTIN_SPECS",
    "Ending",
    "FORECAST",
    "FORECAST_CONDITIONS",
    "LADDER",
    "Parts",
    "PromptSpec",
    "RENAMED_RUNGS",
    "RenderedContext",
    "Rendering",
    "SPEC_SUFFIXES",
    "SpecFile",
    "TAIL_CHARS",
    "Variant",
    "build_item",
    "context_field",
    "ending_class",
    "item_parts",
    "load_spec_file",
    "quoted_item",
    "read_spec_file",
    "render",
    "select_rungs",
]
