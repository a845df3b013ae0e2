"""Table layout for a terminal of any width: numbers and ids are never cut.

A table wider than the terminal first narrows its prose columns (they wrap, words longer than
:data:`WORD_FLOOR` fold); if it is still too wide, its columns are split over several tables that
each repeat the first (key) column, as a wide data frame prints. Only a single cell wider than
the terminal itself folds onto a second line; nothing is ever shortened to an ellipsis.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.cells import cell_len

WORD_FLOOR = 24
"""The narrowest a prose column gets: its longest word, up to this many cells."""
PROSE_FLOOR = 10
"""A prose column keeps at least this many cells (or its whole text, if shorter)."""


def _lines(texts: Sequence[str]) -> list[str]:
    return [line for text in texts for line in text.splitlines() or [""]]


def natural_width(texts: Sequence[str]) -> int:
    """The cells the longest line of the texts takes."""
    return max((cell_len(line) for line in _lines(texts)), default=0)


def least_width(texts: Sequence[str], wraps: bool) -> int:
    """The narrowest a column can be without cutting a number or an id.

    A column that does not wrap (numbers, ids) keeps its longest line; a prose column may wrap
    down to its longest word (capped at :data:`WORD_FLOOR`; longer words fold).
    """
    full = natural_width(texts)
    if not wraps:
        return full
    words = [cell_len(word) for line in _lines(texts) for word in line.split()]
    return min(full, max(PROSE_FLOOR, min(max(words, default=0), WORD_FLOOR)))


def table_width(widths: Sequence[int]) -> int:
    """A boxed table's width for these column widths: one cell of padding each side, borders."""
    return sum(widths) + 3 * len(widths) + 1


@dataclass(frozen=True)
class Layout:
    """Which columns one printed table holds, and the width each gets (None: its natural one)."""

    columns: list[int]
    widths: list[int | None]
    fold: bool = False
    """Too wide even at the least widths: every cell may fold onto further lines."""


def _narrowed(columns: list[int], natural: list[int], least: list[int], room: int) -> Layout:
    """Columns that fit in ``room`` at their least widths, the spare shared out by need."""
    spare = room - table_width([least[i] for i in columns])
    need = [natural[i] - least[i] for i in columns]
    total = sum(need)
    widths: list[int | None] = []
    for i, extra in zip(columns, need, strict=True):
        widths.append(least[i] + (spare * extra // total if total else 0))
    return Layout(columns, widths)


def layouts(natural: list[int], least: list[int], room: int) -> list[Layout]:
    """The tables the columns print as in ``room`` cells: one if they fit, else several.

    Every table after the split repeats column 0, the row's key.
    """
    every = list(range(len(natural)))
    if table_width(natural) <= room:
        return [Layout(every, [None] * len(every))]
    if table_width(least) <= room:
        return [_narrowed(every, natural, least, room)]
    groups: list[list[int]] = []
    for i in every[1:]:
        if groups and table_width([least[j] for j in [0, *groups[-1], i]]) <= room:
            groups[-1].append(i)
        else:
            groups.append([i])
    result = []
    for group in groups:
        columns = [0, *group]
        if table_width([least[j] for j in columns]) <= room:
            result.append(_narrowed(columns, natural, least, room))
        else:  # one cell wider than the terminal: it folds, the others keep their width
            result.append(Layout(columns, [None] * len(columns), fold=True))
    return result
