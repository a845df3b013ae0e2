"""The ``readout`` command line: the commands every run shares, and those each kind brings.

Running, reading and comparing runs (``audit``, ``report``, ``compare``, ``export``, ``table``,
``ledger``, ``conformance``) belong to the group; each kind's commands are added by the hooks
its module registers when the ``readout_audit.kinds`` entry points load it.
"""

from __future__ import annotations

import click

from readout_audit._cli._audit_group import audit_group
from readout_audit._cli._common import model_options, user_errors
from readout_audit._cli._conformance import conformance_command
from readout_audit._cli._export import export_command, table_command
from readout_audit._cli._fields import settings_from, settings_options
from readout_audit._cli._ledger import ledger_command
from readout_audit._cli._registry import PluginGroup, register_commands
from readout_audit._cli._report import compare_command, report_command
from readout_audit._cli._score import run_command
from readout_audit._version import __version__

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


@click.group(cls=PluginGroup)
@click.version_option(__version__, prog_name="readout")
def main() -> None:
    """Audit scores read off a language model's probabilities at a scored position."""


for _command in (
    audit_group,
    report_command,
    compare_command,
    export_command,
    table_command,
    ledger_command,
    conformance_command,
):
    main.add_command(_command)
