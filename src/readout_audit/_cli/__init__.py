"""The ``readout`` command line: the commands every run shares, and those each kind brings.

Running, reading and comparing runs (``audit``, ``report``, ``compare``, ``export``, ``table``,
``ledger``, ``conformance``) belong to the group; each kind's commands are added by the hooks
its module registers. A command's module is imported when the command is named, and what
plug-ins build commands with (``readout_audit.cli``) when first used, so ``readout --help``
loads no kind.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from readout_audit._cli._main import main

if TYPE_CHECKING:
    from readout_audit._cli._audit_group import audit_group
    from readout_audit._cli._common import model_options, user_errors
    from readout_audit._cli._fields import settings_from, settings_options
    from readout_audit._cli._registry import register_commands
    from readout_audit._cli._score import run_command

_HOME = {
    "audit_group": "_audit_group",
    "model_options": "_common",
    "register_commands": "_registry",
    "run_command": "_score",
    "settings_from": "_fields",
    "settings_options": "_fields",
    "user_errors": "_common",
}
"""Where each name a plug-in builds its commands with lives, imported on first use."""

__all__ = [
    "audit_group",
    "main",
    "model_options",
    "register_commands",
    "run_command",
    "settings_from",
    "settings_options",
    "user_errors",
]


def __getattr__(name: str) -> Any:
    """A name of :data:`__all__`, imported from its module on first use."""
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
