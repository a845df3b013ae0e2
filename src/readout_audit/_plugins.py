"""The modules ``READOUT_AUDIT_PLUGINS`` names: plug-ins found without installed metadata.

Read by the kinds' registry and by the ``readout`` group alike (the group's ``--help`` lists a
plug-in's commands without loading any built-in kind), so it imports nothing heavy.
"""

from __future__ import annotations

import os

PLUGINS_ENV = "READOUT_AUDIT_PLUGINS"
"""Comma-separated modules imported as plug-ins (a kind's package, a command module)."""


def plugin_modules() -> list[str]:
    """The module names ``READOUT_AUDIT_PLUGINS`` lists, in order, blanks left out."""
    names = (part.strip() for part in os.environ.get(PLUGINS_ENV, "").split(","))
    return [name for name in names if name]
