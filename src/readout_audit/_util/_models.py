"""JSON lines read as pydantic models: one loader, errors naming file, line, item and field.

Items, cut files, forecast files and judge inventories are all read by :func:`read_models`:
each line validated as the model, its key unique within the file.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from readout_audit._exceptions import InputError

M = TypeVar("M", bound=BaseModel)


def field_path(location: tuple[int | str, ...]) -> str:
    """A pydantic error location as a field path: ``messages[1].role``."""
    path = ""
    for part in location:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path


def validation_problem(error: ValidationError) -> tuple[str | None, str]:
    """The first problem of a validation error: (field path or None, message in plain words)."""
    first = error.errors()[0]
    field = field_path(tuple(first["loc"])) or None
    message = str(first["msg"]).removeprefix("Value error, ")
    if first["type"] == "missing":
        message = "is required"
    elif first["type"] == "extra_forbidden":
        message = "is not a known field"
    elif first["type"] == "literal_error" and field and field.endswith(".role"):
        message = f"unknown role {first['input']!r}; expected system, user or assistant"
    return field, message


def validate_line(
    model: type[M], raw: Any, *, source: str, line: int | None, item_id: str | None = None
) -> M:
    """One decoded JSON value as ``model``, or an ``InputError`` naming where it failed."""
    if not isinstance(raw, dict):
        raise InputError(
            f"expected a JSON object, got {type(raw).__name__}", source=source, line=line
        )
    try:
        return model.model_validate(raw)
    except ValidationError as error:
        field, message = validation_problem(error)
        raise InputError(message, source=source, line=line, item_id=item_id, field=field) from None


def _repeats(key: Hashable, first: int) -> str:
    return f"repeats line {first}"


def read_models(
    values: Iterable[tuple[int, Any]],
    model: type[M],
    *,
    source: str,
    key: Callable[[M], Hashable],
    key_field: str | None = None,
    repeated: Callable[[Hashable, int], str] = _repeats,
    prepare: Callable[[Any, int], Any] | None = None,
    check: Callable[[M, int], None] | None = None,
) -> list[M]:
    """Every (line, value) validated as ``model``, keys unique; errors name source and line.

    ``prepare(value, line)`` fills defaults before validation, ``check(model, line)`` adds the
    caller's own rules, ``repeated(key, first line)`` words a repeated key's error (which names
    the field ``key_field`` when the key is one field's).
    """
    found: list[M] = []
    first: dict[Hashable, int] = {}
    for line, value in values:
        raw = prepare(value, line) if prepare is not None else value
        item_id = raw.get("id") if isinstance(raw, dict) else None
        shown = str(item_id) if isinstance(item_id, str | int) else None
        parsed = validate_line(model, raw, source=source, line=line, item_id=shown)
        if check is not None:
            check(parsed, line)
        name = key(parsed)
        if name in first:
            raise InputError(
                repeated(name, first[name]),
                source=source,
                line=line,
                item_id=name if isinstance(name, str) else None,
                field=key_field,
            )
        first[name] = line
        found.append(parsed)
    return found
