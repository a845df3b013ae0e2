"""Text from items and models made safe to show: no escape sequences, no controls.

One function serves the terminal and the HTML report alike.
"""

from __future__ import annotations

import re

_ESCAPE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC: titles, hyperlinks
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"  # DCS, SOS, PM, APC strings
    r"|\x1b[@-Z\\-_]"  # other two-character sequences
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""Bidirectional marks, embeddings, overrides and isolates: they reorder the text around them."""


def _visible(match: re.Match[str]) -> str:
    """A bidirectional control as its code point, ``<U+202E>``."""
    return f"<U+{ord(match.group()):04X}>"


def terminal_safe(text: str) -> str:
    """``text`` without escape sequences, its controls as � and bidi controls as ``<U+202E>``.

    Escape sequences (ANSI/VT) are removed; other control characters are shown as �, and
    bidirectional marks, overrides and isolates by their code points, so none reorders a line.
    Newlines and tabs are kept; rich markup is not interpreted by the callers (they print
    ``Text`` objects), so brackets such as ``[/bold]`` stay literal. The HTML report passes
    every string through here before escaping it.
    """
    return _BIDI.sub(_visible, _CONTROL.sub("\ufffd", _ESCAPE.sub("", text)))
