"""Read items from JSONL, one per line, with errors that name the line, item and field."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, TypeVar

from readout_audit._exceptions import InputError
from readout_audit._util import (
    loads_line,
    loads_strict,
    read_input_text,
    read_models,
    split_lines,
    validate_line,
)
from readout_audit.data._item import IdentifiedItem, Item

RecordT = TypeVar("RecordT", bound=IdentifiedItem)


def parse_as(
    model: type[RecordT], raw: Any, *, source: str = "<items>", line: int | None = None
) -> RecordT:
    """Validate one decoded JSON value as ``model``, raising a located ``InputError``."""
    item_id = raw.get("id") if isinstance(raw, dict) else None
    shown = str(item_id) if isinstance(item_id, str | int) else None
    item = validate_line(model, raw, source=source, line=line, item_id=shown)
    _checked(item, source, line)
    return item


def parse_item(raw: Any, *, source: str = "<items>", line: int | None = None) -> Item:
    """Validate one decoded JSON value as an :class:`Item`, raising a located ``InputError``."""
    return parse_as(Item, raw, source=source, line=line)


def _checked(item: IdentifiedItem, source: str, line: int | None) -> None:
    """Where the item came from, and its own cross-field rules (an option repeated, say)."""
    item._origin = (source, line) if line is not None else None
    problem = item.input_problem()
    if problem is not None:
        raise InputError(problem[1], source=source, line=line, item_id=item.id, field=problem[0])


ARRAY = (
    "is a JSON array, but items are JSON Lines: one JSON object per line, no enclosing [ ] "
    "(jq -c '.[]' FILE writes an array's elements that way)"
)


def _loads_item_line(text: str, *, source: str, line: int) -> Any:
    """One line's JSON value; an unclosed ``[`` says the file is one JSON array, not JSON Lines."""
    try:
        return loads_line(text, source=source, line=line)
    except InputError:
        if text.lstrip().startswith("["):
            raise InputError(ARRAY, source=source, line=line) from None
        raise


def parse_lines(
    model: type[RecordT], lines: Iterable[str], *, source: str = "<items>"
) -> list[RecordT]:
    """Parse JSONL text lines as ``model`` records; blank lines are skipped, ids must be unique."""
    values = (
        (number, _loads_item_line(text, source=source, line=number))
        for number, text in enumerate(lines, start=1)
        if text.strip()
    )
    items = read_models(
        values,
        model,
        source=source,
        key=lambda item: item.id,
        key_field="id",
        repeated=lambda _, first: f"duplicate id (first used on line {first})",
        check=lambda item, line: _checked(item, source, line),
    )
    if not items:
        raise InputError("no items found", source=source)
    return items


def parse_items(lines: Iterable[str], *, source: str = "<items>") -> list[Item]:
    """Parse JSONL text lines into items; blank lines are skipped, ids must be unique."""
    return parse_lines(Item, lines, source=source)


def read_json(path: str | Path) -> Any:
    """A whole JSON document from a UTF-8 input file, decoded strictly (see ``loads_strict``)."""
    return loads_strict(read_input_text(Path(path)), source=str(path))


def read_lines(path: str | Path) -> list[str]:
    """An input file's lines, split on newlines only (a raw U+2028 inside a string is text)."""
    return split_lines(read_input_text(Path(path)))


def load_as(model: type[RecordT], path: str | Path) -> list[RecordT]:
    """Load and validate every line of a JSONL file as ``model`` before any model work starts."""
    return parse_lines(model, read_lines(path), source=str(path))


def load_items(path: str | Path) -> list[Item]:
    """Load and validate every item of a JSONL file before any model work starts."""
    return load_as(Item, path)
