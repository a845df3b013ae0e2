"""``readout ledger RUN_DIR``: what a run's served-model requests came to; release unknown ones."""

from __future__ import annotations

import json
from pathlib import Path

import click

from readout_audit._cli._common import user_errors
from readout_audit._cli._types import GivenPath
from readout_audit._exceptions import InputError
from readout_audit.kind import release_unknown as release
from readout_audit.serve import ledger_listing, ledger_of


@click.command("ledger")
@click.argument("run_dir", type=GivenPath(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--release-unknown",
    is_flag=True,
    help="Let a rerun send again the calls sent once with no known outcome (the server may "
    "have processed them: each may then be processed twice).",
)
@click.option(
    "--amend-protocol",
    "amendment",
    metavar="REASON",
    help="With --release-unknown in a run of a frozen protocol (a judge run): why its unknown "
    "calls may be sent again; kept in the run, and their new records are set apart.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the listing as JSON on stdout.")
@user_errors
def ledger_command(
    run_dir: Path, release_unknown: bool, amendment: str | None, as_json: bool
) -> None:
    """Requests of a run to served endpoints: counts per state, spend, unknown and failed calls."""
    path = ledger_of(run_dir)
    if amendment is not None and not release_unknown:
        raise InputError("amends a release: give it with --release-unknown", field="amend_protocol")
    released = release(run_dir, amendment=amendment) if release_unknown else None
    listing = ledger_listing(path, released)
    click.echo(json.dumps(listing.as_json(), indent=2) if as_json else "\n".join(listing.lines()))
