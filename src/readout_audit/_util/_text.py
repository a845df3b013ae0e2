"""Text from items and models made safe for a terminal: no escape sequences, no controls."""

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


def terminal_safe(text: str) -> str:
    """``text`` with ANSI/VT escape sequences removed and other control characters shown as �.

    Newlines and tabs are kept; rich markup is not interpreted by the callers (they print
    ``Text`` objects), so brackets such as ``[/bold]`` stay literal.
    """
    return _CONTROL.sub("\ufffd", _ESCAPE.sub("", text))
