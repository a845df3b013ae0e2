"""``readout conformance``: how far a served endpoint agrees with the same weights run locally."""

from __future__ import annotations

import sys
from typing import Any

import click

from readout_audit._cli._common import user_errors
from readout_audit._cli._fields import settings_from, settings_options
from readout_audit._cli._limit_plain import plain_option
from readout_audit._cli._served import served_options, tokenizer_option
from readout_audit.kind import ConformanceRun, check_served, quiet_loading
from readout_audit.model import CONFORMANCE_FILE, ServedSettings
from readout_audit.report import print_conformance

NONCONFORMING = 3
"""Exit status when an endpoint fails a check."""


@click.command("conformance")
@settings_options(ConformanceRun)
@served_options
@tokenizer_option
@plain_option
@user_errors
def conformance_command(plain: bool, **options: Any) -> None:
    """Compare a served model with a local forward of the same weights on fixed prompts."""
    run = settings_from(ConformanceRun, options)
    quiet_loading()
    conformance = check_served(
        run,
        settings_from(ServedSettings, options),
        tokenizer=options["tokenizer"],
        progress=lambda line: click.echo(line, err=True),
    )
    print_conformance(conformance, plain)
    click.echo(f"written to {run.out / CONFORMANCE_FILE}", err=True)
    if not conformance.conforms:
        sys.exit(NONCONFORMING)
