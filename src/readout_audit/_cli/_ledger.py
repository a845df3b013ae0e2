"""``readout ledger RUN_DIR``: what a run's served-model requests came to; release unknown ones."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from readout_audit._cli._common import user_errors
from readout_audit._exceptions import InputError
from readout_audit._util import terminal_safe
from readout_audit.kind import release_unknown as release
from readout_audit.serve import Ledger, LedgerEntry, ledger_of

KEY_PREFIX = 12
"""Characters of a call key shown in the listing."""


def _call(entry: LedgerEntry) -> dict[str, Any]:
    return {
        "key": entry.key,
        "state": entry.state,
        "path": entry.path,
        "tag": entry.tag,
        "endpoint": entry.endpoint,
        "attempts": entry.attempts,
        "error": entry.error,
    }


@click.command("ledger")
@click.argument("run_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
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
    with Ledger(path) as ledger:
        counts, spend = ledger.counts(), ledger.spend()
        listed = ledger.entries("unknown", "failed")
        over = sum(entry.over_bound for entry in ledger.entries("completed"))
    if as_json:
        listing = {
            "counts": counts,
            "spend": {"tokens": spend.tokens, "usd": spend.usd},
            "over_bound": over,
            "released": released,
            "calls": [_call(entry) for entry in listed],
        }
        click.echo(json.dumps(listing, indent=2))
        return
    click.echo(", ".join(f"{state} {n}" for state, n in counts.items()))
    click.echo(f"spend: {spend.tokens} tokens, ${spend.usd:.6f} (usage and open reservations)")
    if over:
        click.echo(f"{over} completed calls were charged more tokens than their bounds reserved")
    for entry in listed:
        where = entry.endpoint or "no endpoint"
        tag = f" {terminal_safe(entry.tag)}" if entry.tag else ""
        click.echo(
            f"{entry.state} {entry.key[:KEY_PREFIX]}{tag} {where} attempts {entry.attempts}: "
            f"{terminal_safe(entry.error or '')}"  # a server's answer may hold escape sequences
        )
    if released is not None:
        click.echo(f"released {released} unknown calls: a rerun sends them again")
