"""The terminal renderer: report sections drawn as rich tables, every string as plain text."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from readout_audit._util._text import terminal_safe
from readout_audit.log._summary import Check
from readout_audit.report._blocks import ChecksBlock, Section, TableBlock, TextBlock

PLAIN: ContextVar[bool] = ContextVar("plain", default=False)
"""Set for output to logs and pipes: ASCII table borders (colour is the console's choice)."""

_VERDICT_STYLE = {"pass": "green", "warn": "yellow", "fail": "bold red"}


@contextmanager
def plain_tables(enabled: bool) -> Iterator[None]:
    """Within the block, tables get ASCII borders (for logs and pipes) when ``enabled``."""
    token = PLAIN.set(enabled)
    try:
        yield
    finally:
        PLAIN.reset(token)


def text(value: str, style: str = "") -> Text:
    """A string as literal terminal text: no markup, no escape sequences."""
    return Text(terminal_safe(value), style=style)


def new_table(title: str) -> Table:
    """A table in the report's style: heavy header, or plain ASCII under ``PLAIN``."""
    return Table(title=text(title), box=box.ASCII2 if PLAIN.get() else box.HEAVY_HEAD)


def wide_console(console: Console) -> Console:
    """Logs and pipes get 160 columns, so table rows stay whole."""
    if console.width < 160 and not console.is_terminal:
        return Console(file=console.file, width=160, no_color=console.no_color)
    return console


def table(block: TableBlock) -> Table:
    """A table block as a rich table; its ``wrap`` columns may wrap, the others stay whole."""
    rendered = new_table(block.title)
    for column in block.columns:
        rendered.add_column(text(column), no_wrap=column not in block.wrap)
    for row in block.rows:
        rendered.add_row(*(text(cell) for cell in row))
    if block.note:
        rendered.caption = text(block.note)
    return rendered


def checks_table(checks: Sequence[Check]) -> Table:
    """The checks with their verdicts (a word as well as a colour), evidence and repairs."""
    rendered = new_table("Checks")
    rendered.add_column("check", no_wrap=True)
    rendered.add_column("verdict", no_wrap=True)
    for column in ("finding", "evidence", "repair"):
        rendered.add_column(column)
    for check in checks:
        rendered.add_row(
            text(check.name),
            text(check.verdict.upper(), _VERDICT_STYLE[check.verdict]),
            text(check.finding),
            text(json.dumps(check.evidence, ensure_ascii=False)),
            text(check.repair or ""),
        )
    return rendered


def print_sections(sections: Sequence[Section], console: Console) -> None:
    """Draw every table, checks block and text of the sections.

    Figures and the item browser are drawn in the HTML report only.
    """
    for section in sections:
        for block in section.blocks:
            if isinstance(block, TableBlock):
                console.print(table(block))
            elif isinstance(block, ChecksBlock):
                console.print(checks_table(block.checks))
            elif isinstance(block, TextBlock):
                console.print(text(block.text))


def report_console(plain: bool) -> Console:
    """The console a report prints to: no colour or highlighting when ``plain``."""
    return wide_console(Console(no_color=plain, highlight=False, emoji=False))
