"""The terminal renderer: report sections drawn as rich tables, every string as plain text."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from readout_audit._util import terminal_safe
from readout_audit.log import Check
from readout_audit.report._blocks import (
    ChecksBlock,
    Section,
    TableBlock,
    TextBlock,
    evidence_text,
)
from readout_audit.report._fit import Layout, layouts, least_width, natural_width

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


def _layout_table(block: TableBlock, cells: list[list[str]], layout: Layout, part: str) -> Table:
    """The columns of one layout as a rich table; ``part`` ("2/3") when the table was split."""
    rendered = new_table(f"{block.title} ({part})" if part else block.title)
    for i, width in zip(layout.columns, layout.widths, strict=True):
        wraps = layout.fold or block.columns[i] in block.wrap
        rendered.add_column(text(block.columns[i]), no_wrap=not wraps, overflow="fold", width=width)
    for row in cells:
        rendered.add_row(*(_cell(block.columns[i], row[i]) for i in layout.columns))
    return rendered


def _cell(column: str, value: str) -> Text:
    """A cell's text; a verdict gets its colour besides its word."""
    return Text(value, style=_VERDICT_STYLE.get(value.lower(), "") if column == "verdict" else "")


def tables(block: TableBlock, width: int) -> list[Table | Text]:
    """A table block as rich tables within ``width`` cells, cutting no number or id.

    Its ``wrap`` columns may wrap; the others keep their whole line. A table too wide even so
    is split into tables of fewer columns, each repeating the first (see ``_fit``).
    """
    cells = [[terminal_safe(cell) for cell in row] for row in block.rows]
    columns = [
        [terminal_safe(name), *(row[i] for row in cells)] for i, name in enumerate(block.columns)
    ]
    natural = [natural_width(column) for column in columns]
    least = [
        least_width(column, name in block.wrap)
        for column, name in zip(columns, block.columns, strict=True)
    ]
    parts = layouts(natural, least, width)
    rendered = [
        _layout_table(block, cells, layout, f"{n}/{len(parts)}" if len(parts) > 1 else "")
        for n, layout in enumerate(parts, 1)
    ]
    if block.note and len(rendered) == 1:
        rendered[0].caption = text(block.note)
    # a split table's note goes below its last part, at the terminal's width
    note = [text(block.note)] if block.note and len(rendered) > 1 else []
    return [*rendered, *note]


CHECK_COLUMNS = ["check", "verdict", "finding", "evidence", "repair"]


def checks_block(checks: Sequence[Check]) -> TableBlock:
    """The checks with their verdicts (a word as well as a colour), evidence and repairs.

    The evidence is short text (4 significant digits); ``summary.json`` keeps it whole.
    """
    rows = [
        [c.name, c.verdict.upper(), c.finding, evidence_text(c.evidence), c.repair or ""]
        for c in checks
    ]
    return TableBlock("Checks", CHECK_COLUMNS, rows, wrap=("finding", "evidence", "repair"))


def check_text(check: Check) -> Text:
    """One check as a paragraph: verdict, name, finding, evidence in brackets, repair."""
    repair = f"; repair: {check.repair}" if check.repair else ""
    said = f" {check.name}: {check.finding} [{evidence_text(check.evidence)}]{repair}"
    return Text.assemble(text(check.verdict.upper(), _VERDICT_STYLE[check.verdict]), text(said))


def _counted(names: Counter[str]) -> list[str]:
    return [name if n == 1 else f"{name} ×{n}" for name, n in names.items()]


def print_checks(checks: Sequence[Check], console: Console, short: bool) -> None:
    """The checks as a table.

    ``short``: the failing and warning ones as a paragraph each, the passing ones counted by
    name in one line.
    """
    if not short:
        for part in tables(checks_block(checks), console.width):
            console.print(part)
        return
    console.print(text("Checks", "bold"))
    for check in checks:
        if check.verdict != "pass":
            console.print(check_text(check))
    # a check run per task or variant ("option_mass mmlu_x") is counted under its own name
    passed = Counter(c.name.split(" ", 1)[0] for c in checks if c.verdict == "pass")
    if passed:
        console.print(
            Text.assemble(
                text("PASS", _VERDICT_STYLE["pass"]),
                text(f" ({passed.total()}): {', '.join(_counted(passed))}"),
            )
        )


def print_sections(sections: Sequence[Section], console: Console, short: bool = False) -> list[str]:
    """Draw every table, checks block and text of the sections.

    Figures and the item browser are drawn in the HTML report only. ``short`` (the report a
    run prints when it is written) is shorter: a detail table, and a table repeated in a section
    for another case (a confusion matrix per readout), are named, not drawn; the failing and
    warning checks in full and the passing ones by name. Returns the titles of the tables
    left out.
    """
    hidden: list[str] = []
    for section in sections:
        drawn: list[list[str]] = []
        for block in section.blocks:
            if isinstance(block, TableBlock):
                if short and (block.detail or block.columns in drawn):  # detail, or a repeat
                    hidden.append(block.title)
                    continue
                drawn.append(block.columns)
                for part in tables(block, console.width):
                    console.print(part)
            elif isinstance(block, ChecksBlock):
                print_checks(block.checks, console, short)
            elif isinstance(block, TextBlock):
                console.print(text(block.text))
    return hidden


def report_console(plain: bool) -> Console:
    """The console a report prints to: no colour or highlighting when ``plain``."""
    return wide_console(Console(no_color=plain, highlight=False, emoji=False))
