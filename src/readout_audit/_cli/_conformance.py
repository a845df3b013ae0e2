"""``readout conformance``: how far a served endpoint agrees with the same weights run locally."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from readout_audit._cli._common import user_errors
from readout_audit._cli._limit_plain import limit_option, plain_option
from readout_audit._cli._served import served_options, served_settings
from readout_audit._cli._types import FiniteFloat
from readout_audit.kind import check_out, check_served, quiet_loading
from readout_audit.model import CONFORMANCE_FILE, EMBEDDED_SPEC, Conformance
from readout_audit.report import (
    Block,
    Section,
    TableBlock,
    TextBlock,
    plain_tables,
    print_sections,
    report_console,
)

NONCONFORMING = 3
"""Exit status when an endpoint fails a check."""


def print_conformance(conformance: Conformance, plain: bool = False) -> None:
    """One table per endpoint: check, verdict, what was seen.

    Drawn as the report draws tables: every string literal, a server's markup or escapes too.
    """
    blocks: list[Block] = [
        TableBlock(
            f"{endpoint.endpoint} ({endpoint.server})",
            ["check", "verdict", "detail"],
            [[c.name, c.verdict, c.detail] for c in endpoint.checks],
            wrap=("detail",),
        )
        for endpoint in conformance.endpoints
    ]
    verdict = "conforms" if conformance.conforms else "does NOT conform"
    limited = "" if conformance.limit is None else f", first {conformance.limit} probe prompts"
    blocks.append(
        TextBlock(
            f"{conformance.model} {verdict} (reference {conformance.reference}, "
            f"{conformance.quantisation or 'unquantised'}, tolerance {conformance.tolerance}"
            f"{limited})"
        )
    )
    with plain_tables(plain):
        print_sections([Section("Conformance", blocks)], report_console(plain))


@click.command("conformance")
@click.option("--model", "model_spec", required=True, help="openai:<base-url>[,...]#<model>.")
@click.option(
    "--reference",
    default=EMBEDDED_SPEC,
    show_default=True,
    help="Local spec of the same weights (its tokenizer is also the served model's).",
)
@click.option(
    "--out",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Directory for conformance.json and the request ledger.",
)
@click.option(
    "--quantisation",
    help="Weights type of the served file (Q4_1, Q8_0, F16, ...); default: read from a GGUF "
    "reference, else unquantised.",
)
@click.option(
    "--tolerance",
    type=FiniteFloat(min=0),
    help="Largest accepted |served − local| log-prob (default: by quantisation).",
)
@click.option(
    "--threads",
    type=click.IntRange(1),
    default=None,
    help="CPU threads for the local reference (default: torch's, one per core).",
)
@served_options
@limit_option("probe prompts (raw prompts first, then chat prompts)")
@plain_option
@user_errors
def conformance_command(
    model_spec: str,
    reference: str,
    out: Path,
    quantisation: str | None,
    tolerance: float | None,
    limit: int | None,
    plain: bool,
    threads: int | None,
    **options: Any,
) -> None:
    """Compare a served model with a local forward of the same weights on fixed prompts."""
    check_out(out)
    settings = served_settings(options)
    quiet_loading()
    conformance = check_served(
        model_spec,
        reference,
        out,
        settings=settings,
        tokenizer=options["tokenizer"],
        quantisation=quantisation,
        tolerance=tolerance,
        progress=lambda line: click.echo(line, err=True),
        limit=limit,
        threads=threads,
    )
    print_conformance(conformance, plain)
    click.echo(f"written to {out / CONFORMANCE_FILE}", err=True)
    if not conformance.conforms:
        sys.exit(NONCONFORMING)
