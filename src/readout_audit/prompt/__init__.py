"""Prompt rendering: the exact scored context, its tokens and the class of its ending."""

from readout_audit.prompt._render import (
    TAIL_CHARS,
    Ending,
    RenderedContext,
    Rendering,
    ending_class,
    render,
)

__all__ = [
    "Ending",
    "RenderedContext",
    "Rendering",
    "TAIL_CHARS",
    "ending_class",
    "render",
]
