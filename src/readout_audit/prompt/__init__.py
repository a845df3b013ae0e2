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

__all__ = [
    "TAIL_CHARS",
    "Ending",
    "RenderedContext",
    "Rendering",
    "context_field",
    "ending_class",
    "render",
]
