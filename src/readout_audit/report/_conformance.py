"""A conformance verdict as a report: one table per endpoint, the verdict below."""

from __future__ import annotations

from readout_audit.model import Conformance
from readout_audit.report._blocks import Block, Section, TableBlock, TextBlock
from readout_audit.report._terminal import plain_tables, print_sections, report_console


def conformance_section(conformance: Conformance) -> Section:
    """One table per endpoint (check, verdict, what was seen), then the verdict in one line."""
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
    return Section("Conformance", blocks)


def print_conformance(conformance: Conformance, plain: bool = False) -> None:
    """The verdict drawn as the report draws tables: a server's markup or escapes literal."""
    with plain_tables(plain):
        print_sections([conformance_section(conformance)], report_console(plain))
