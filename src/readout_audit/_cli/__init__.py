"""The ``readout`` command line."""

from __future__ import annotations

import click

from readout_audit._cli._audit import audit_group
from readout_audit._cli._conformance import conformance_command
from readout_audit._cli._judge import judge_group
from readout_audit._cli._ledger import ledger_command
from readout_audit._cli._lift import lift_group
from readout_audit._cli._report import compare_command, report_command
from readout_audit._cli._score import demo_command, score_command
from readout_audit._version import __version__


@click.group()
@click.version_option(__version__, prog_name="readout")
def main() -> None:
    """Audit scores read off a language model's probabilities at a scored position."""


main.add_command(score_command)
main.add_command(demo_command)
main.add_command(audit_group)
main.add_command(report_command)
main.add_command(compare_command)
main.add_command(conformance_command)
main.add_command(ledger_command)
main.add_command(lift_group)
main.add_command(judge_group)
