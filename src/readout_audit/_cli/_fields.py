"""Click options generated from typed settings: the field is the one declaration.

A command decorated with ``settings_options(Model)`` takes one option per field of ``Model``
(a nested settings model's fields flattened beside them): the option's type and bounds from
the field's annotation and constraints, its default from the field's, its help from the
field's docstring. ``settings_from(Model, given)`` builds the model back from what click
parsed, a bad value named by its option. A notebook builds the same model by hand.
"""

from __future__ import annotations

import re
import string
import types
import typing
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, Literal, TypeVar

import annotated_types
import click
from pydantic import TypeAdapter, ValidationError
from pydantic.fields import FieldInfo

from readout_audit._cli._served import with_options
from readout_audit._cli._types import FiniteFloat, Listed
from readout_audit._util import HINT_KEY, OptionHint, terminal_safe, validation_problem

F = TypeVar("F", bound=Callable[..., Any])
M = TypeVar("M")

__all__ = ["settings_from", "settings_options"]


def settings_options(
    model: type[Any],
    *,
    skip: tuple[str, ...] = (),
    types_: Mapping[str, click.ParamType[Any, Any]] | None = None,
    aliases: Mapping[str, str] | None = None,
) -> Callable[[F], F]:
    """A decorator adding an option per field of ``model`` (minus ``skip``), in field order.

    ``model`` is a pydantic model or a pydantic dataclass.

    ``types_`` gives a field a click type of the CLI's own (a prompt spec read from its file);
    ``aliases`` a second spelling of its option (lm-eval's ``--num_fewshot``).
    """
    given_types, given_aliases = dict(types_ or {}), dict(aliases or {})
    options = [
        _option(name, info, given_types.get(name), given_aliases.get(name))
        for name, info in _fields(model)
        if name not in skip
    ]
    return lambda command: with_options(command, options)


def settings_from(model: type[M], given: Mapping[str, Any], **fixed: Any) -> M:
    """``model`` from the parsed options in ``given`` (and ``fixed`` values the command sets).

    A value the model refuses is a usage error naming its option, before anything is read.
    """
    try:
        return TypeAdapter(model).validate_python(_values(model, given, fixed))
    except ValidationError as error:
        field, message = validation_problem(error)
        name = (field or "").split(".")[-1]
        flags = {n: _flag(n, i) for n, i in _fields(model)}
        where = flags.get(name, f"--{name.replace('_', '-')}") if name else ""
        text = f"{where}: {message}" if where else message  # may quote what was given
        raise click.UsageError(terminal_safe(text)) from None


def _values(model: type[Any], given: Mapping[str, Any], fixed: Mapping[str, Any]) -> dict[str, Any]:
    """The field values of ``model`` (its nested models' built from the same options)."""
    values: dict[str, Any] = {}
    for name, info in _model_fields(model).items():
        nested = _nested(info)
        if name in fixed:
            values[name] = fixed[name]
        elif nested is not None:
            values[name] = _values(nested, given, fixed)
        elif given.get(_dest(name, info)) is not None:  # None: not given, the field's default
            values[name] = given[_dest(name, info)]
    return values


def _hint(info: FieldInfo) -> OptionHint:
    extra = info.json_schema_extra
    found = extra.get(HINT_KEY) if isinstance(extra, dict) else None
    return typing.cast(OptionHint, found if isinstance(found, dict) else {})


def _nested(info: FieldInfo) -> type[Any] | None:
    """The settings class a field holds whole (a model or a pydantic dataclass), if any."""
    annotation = info.annotation
    if isinstance(annotation, type) and hasattr(annotation, "__pydantic_fields__"):
        return annotation
    return None


def _model_fields(model: type[Any]) -> dict[str, FieldInfo]:
    """The fields of a pydantic model or a pydantic dataclass."""
    return typing.cast(dict[str, FieldInfo], model.__pydantic_fields__)


def _fields(model: type[Any]) -> Iterator[tuple[str, FieldInfo]]:
    """``model``'s fields a command sets, a nested settings model's flattened in its place."""
    for name, info in _model_fields(model).items():
        nested = _nested(info)
        if _hint(info).get("skip"):
            continue
        if nested is not None:
            yield from _fields(nested)
        else:
            yield name, info


def _dest(name: str, info: FieldInfo) -> str:
    return _hint(info).get("dest") or name


def _flag(name: str, info: FieldInfo) -> str:
    return _hint(info).get("flag") or "--" + name.replace("_", "-")


def _unwrap(annotation: Any) -> tuple[Any, bool]:
    """The annotation without ``| None``, and whether None was allowed."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0], True
    return annotation, False


def _bounds(info: FieldInfo) -> dict[str, Any]:
    """The field's numeric constraints as a click range's arguments."""
    bounds: dict[str, Any] = {}
    for item in info.metadata:
        if isinstance(item, annotated_types.Ge):
            bounds["min"] = item.ge
        elif isinstance(item, annotated_types.Gt):
            bounds.update(min=item.gt, min_open=True)
        elif isinstance(item, annotated_types.Le):
            bounds["max"] = item.le
        elif isinstance(item, annotated_types.Lt):
            bounds.update(max=item.lt, max_open=True)
    return bounds


def _type(annotation: Any, info: FieldInfo, hint: OptionHint) -> click.ParamType[Any, Any]:
    """The click type of a field's (unwrapped) annotation, its bounds included."""
    if typing.get_origin(annotation) is Literal:
        return click.Choice([str(a) for a in typing.get_args(annotation)])
    if annotation is int:
        bounds = _bounds(info)
        if bounds.pop("min_open", False):
            bounds["min"] += 1
        if bounds.pop("max_open", False):
            bounds["max"] -= 1
        return click.IntRange(**bounds)
    if annotation is float:
        return FiniteFloat(**_bounds(info))
    if annotation is Path:
        kind = hint.get("path")
        return click.Path(path_type=Path, file_okay=kind != "dir", dir_okay=kind != "file")
    if annotation is str:
        return click.STRING
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) is tuple and len(set(args)) == 1 and Ellipsis not in args:
        # a fixed count of one type (a pair of settings): comma-separated, exactly that many
        return Listed(args[0], shape=",".join(string.ascii_uppercase[: len(args)]))
    raise TypeError(f"no option type for {annotation!r}")


def _plain(docstring: str) -> str:
    """A field's docstring as help text: reST literals shown plain, lines joined."""
    return " ".join(re.sub(r"``(.*?)``", r"\1", docstring).split())


def _option(
    name: str,
    info: FieldInfo,
    given_type: click.ParamType[Any, Any] | None,
    alias: str | None = None,
) -> Callable[[F], F]:
    """The click option of one field."""
    hint = _hint(info)
    flag = _flag(name, info)
    annotation, optional = _unwrap(info.annotation)
    required = info.is_required()
    default = None if required else info.get_default(call_default_factory=True)
    kwargs: dict[str, Any] = {
        "help": None if info.description is None else _plain(info.description),
        "required": required,
        "metavar": hint.get("metavar"),
        "show_default": not hint.get("no_default_shown") and default not in (None, ()),
    }
    decls = [flag, *([alias] if alias else []), _dest(name, info)]
    if annotation is bool and given_type is None:
        if default is False and not optional:
            kwargs.update(is_flag=True, show_default=False)
        else:
            decls = [f"{flag}/--no-{flag.removeprefix('--')}", _dest(name, info)]
    elif typing.get_origin(annotation) is tuple and (given_type is None or hint.get("repeat")):
        element = typing.get_args(annotation)[0]
        if hint.get("repeat"):
            kwargs.update(multiple=True, type=given_type or _type(element, info, hint))
        else:
            kwargs["type"] = Listed(element)
            default = ",".join(map(str, default)) if default else None
    elif typing.get_origin(annotation) is dict and hint.get("repeat"):
        # a mapping given as repeated KEY=VALUE texts, which the model's validator reads
        kwargs.update(multiple=True, type=given_type or click.STRING, show_default=False)
        default = None
    else:
        kwargs["type"] = given_type or _type(annotation, info, hint)
    kwargs["default"] = default
    return click.option(*decls, **kwargs)
