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
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

import annotated_types
import click
from pydantic import Strict, TypeAdapter, ValidationError
from pydantic.fields import FieldInfo

from readout_audit._cli._types import BoundedInt, FiniteFloat, GivenPath, Listed
from readout_audit._util import (
    HINT_KEY,
    OneOf,
    OptionHint,
    terminal_safe,
    validation_problem,
)

F = TypeVar("F", bound=Callable[..., Any])
M = TypeVar("M")

__all__ = [
    "SETTINGS",
    "field_option",
    "option_keywords",
    "refuse_shared_names",
    "settings_from",
    "settings_options",
    "with_options",
]

SETTINGS = "settings_models"
"""The attribute of a command's callback listing the settings models its options come from."""
DECLARED = "settings_declared"
"""The attribute of a command's callback mapping each settings model to its options' keywords:
a field ``skip`` left out is never filled from another model's option of the same name."""


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
    ``aliases`` a second spelling of its option (lm-eval's ``--num_fewshot``). An integer field
    (or element) without an upper bound or ``strict=True`` is a TypeError here, at import.
    """
    given_types, given_aliases = dict(types_ or {}), dict(aliases or {})
    fields = [(name, info) for name, info, _ in _fields(model) if name not in skip]
    options = [
        _option(name, info, given_types.get(name), given_aliases.get(name)) for name, info in fields
    ]
    declared = frozenset(_dest(name, info) for name, info in fields)

    def decorate(command: F) -> F:
        setattr(command, SETTINGS, (*getattr(command, SETTINGS, ()), model))
        setattr(command, DECLARED, {**getattr(command, DECLARED, {}), model: declared})
        decorated = with_options(command, options)
        refuse_shared_names(decorated.__click_params__)  # type: ignore[attr-defined]
        return decorated

    return decorate


def field_option(model: type[Any], name: str) -> Callable[[F], F]:
    """The option of ``model``'s field ``name`` alone, for a command that takes no other."""
    return _option(name, _model_fields(model)[name], None)


def option_keywords(
    model: type[Any], read_by: Literal["local", "served"] | None = None
) -> frozenset[str]:
    """The keywords of ``model``'s options; with ``read_by``, those only that kind of model reads.

    Which kind reads a field is its ``read_by`` hint, a nested model's holding for its fields.
    """
    return frozenset(
        _dest(name, info) for name, info, reader in _fields(model) if read_by in (None, reader)
    )


def with_options(command: F, options: Sequence[Callable[[Any], Any]]) -> F:
    """``command`` with click options applied so that they list in the given order."""
    for option in reversed(options):
        command = option(command)
    return command


def refuse_shared_names(params: Sequence[click.Parameter]) -> None:
    """A TypeError when two options share a name or a keyword: one value would fill two fields.

    Nested settings flatten into one namespace; a second model declaring ``allow_download``
    beside another's would silently take the other's value.
    """
    seen: set[str] = set()
    for param in params:
        names = {*param.opts, *param.secondary_opts, f"keyword {param.name}"}
        shared = sorted(names & seen)
        if shared:
            raise TypeError(f"{', '.join(shared)} declared by two options of one command")
        seen |= names


def settings_from(model: type[M], given: Mapping[str, Any], **fixed: Any) -> M:
    """``model`` from the parsed options in ``given`` (and ``fixed`` values the command sets).

    A value the model refuses is a usage error naming its option, before anything is read.
    """
    context = click.get_current_context(silent=True)
    callback = None if context is None else context.command.callback
    declared = getattr(callback, DECLARED, {}).get(model)
    try:
        return TypeAdapter(model).validate_python(_values(model, given, fixed, declared))
    except ValidationError as error:
        _, message = validation_problem(error)
        where = _option_at(model, tuple(error.errors()[0]["loc"]))
        text = f"{where}: {message}" if where else message  # may quote what was given
        raise click.UsageError(terminal_safe(text)) from None


def _option_at(model: type[Any], location: tuple[int | str, ...]) -> str:
    """The option a validation error's location names, with the key it names inside the value.

    ``panel.halueval`` is ``--panel halueval`` (a key is never taken for another option); a
    nested settings model's own problem names no option, its message names them.
    """
    fields = _model_fields(model)
    for depth, part in enumerate(location):
        if not isinstance(part, str) or part not in fields:
            return ""
        info = fields[part]
        nested = _nested(info)
        if nested is None:
            keys = [key for key in location[depth + 1 :] if isinstance(key, str)]
            return " ".join([_flag(part, info), *keys])
        fields = _model_fields(nested)
    return ""


def _values(
    model: type[Any],
    given: Mapping[str, Any],
    fixed: Mapping[str, Any],
    declared: frozenset[str] | None = None,
) -> dict[str, Any]:
    """The field values of ``model`` (its nested models' built from the same options).

    ``declared``: the keywords of the options the command declared for ``model`` (None: any
    in ``given``); a field it skipped is the command's to set in ``fixed``, a nested model no
    command sets (``ModelChoice.served``) too.
    """
    values: dict[str, Any] = {}
    for name, info in _model_fields(model).items():
        nested, dest = _nested(info), _dest(name, info)
        if name in fixed:
            values[name] = fixed[name]
        elif nested is not None and not _hint(info).get("skip"):
            values[name] = _values(nested, given, fixed, declared)
        elif (declared is None or dest in declared) and given.get(dest) is not None:
            values[name] = given[dest]  # None: not given, the field's default
    return values


def _hint(info: FieldInfo) -> OptionHint:
    extra = info.json_schema_extra
    found = extra.get(HINT_KEY) if isinstance(extra, dict) else None
    return typing.cast(OptionHint, found if isinstance(found, dict) else {})


def _nested(info: FieldInfo) -> type[Any] | None:
    """The settings class a field holds whole (a model or a pydantic dataclass, or None), if any."""
    annotation, _ = _unwrap(info.annotation)
    if isinstance(annotation, type) and hasattr(annotation, "__pydantic_fields__"):
        return annotation
    return None


def _model_fields(model: type[Any]) -> dict[str, FieldInfo]:
    """The fields of a pydantic model or a pydantic dataclass."""
    return typing.cast(dict[str, FieldInfo], model.__pydantic_fields__)


def _fields(
    model: type[Any], read_by: str | None = None
) -> Iterator[tuple[str, FieldInfo, str | None]]:
    """``model``'s fields a command sets, a nested settings model's flattened in its place.

    Each comes with the one kind of model that reads it (None: either), ``read_by`` by default.
    """
    for name, info in _model_fields(model).items():
        hint, nested = _hint(info), _nested(info)
        reader = hint.get("read_by", read_by)
        if hint.get("skip"):
            continue
        if nested is not None:
            yield from _fields(nested, reader)
        else:
            yield name, info, reader


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


def _constrained(annotation: Any) -> tuple[Any, list[Any]]:
    """An annotation without ``Annotated``, and the constraints ``Annotated`` gave it."""
    if typing.get_origin(annotation) is not Annotated:
        return annotation, []
    base, *extra = typing.get_args(annotation)
    return base, [m for e in extra for m in (e.metadata if isinstance(e, FieldInfo) else [e])]


def _bounds(metadata: list[Any]) -> dict[str, Any]:
    """Numeric constraints as a click range's arguments."""
    bounds: dict[str, Any] = {}
    for item in metadata:
        if isinstance(item, annotated_types.Ge):
            bounds["min"] = item.ge
        elif isinstance(item, annotated_types.Gt):
            bounds.update(min=item.gt, min_open=True)
        elif isinstance(item, annotated_types.Le):
            bounds["max"] = item.le
        elif isinstance(item, annotated_types.Lt):
            bounds.update(max=item.lt, max_open=True)
    return bounds


def _int_bounds(metadata: list[Any], name: str) -> dict[str, Any]:
    """An integer's bounds, closed; a TypeError when it has no upper one or is not strict.

    Unbounded, a huge value would be stored where its reader refuses it; not strict, True
    would pass as 1.
    """
    bounds = _bounds(metadata)
    if "max" not in bounds or not any(isinstance(m, Strict) and m.strict for m in metadata):
        raise TypeError(f"{name}: an integer setting needs an upper bound (le=) and strict=True")
    if bounds.pop("min_open", False):
        bounds["min"] += 1
    if bounds.pop("max_open", False):
        bounds["max"] -= 1
    return bounds


def _type(
    annotation: Any, metadata: list[Any], hint: OptionHint, name: str
) -> click.ParamType[Any, Any]:
    """The click type of a field's (unwrapped) annotation, its bounds and choices included."""
    annotation, more = _constrained(annotation)
    metadata = [*metadata, *more]
    allowed = next((m for m in metadata if isinstance(m, OneOf)), None)
    if allowed is not None:
        return click.Choice(allowed.choices())
    if typing.get_origin(annotation) is Literal:
        return click.Choice([str(a) for a in typing.get_args(annotation)])
    if annotation is int:
        return BoundedInt(**_int_bounds(metadata, name))
    if annotation is float:
        return FiniteFloat(**_bounds(metadata))
    if annotation is Path:
        kind = hint.get("path")
        return GivenPath(path_type=Path, file_okay=kind != "dir", dir_okay=kind != "file")
    if annotation is str:
        return click.STRING
    if typing.get_origin(annotation) is tuple:
        return _listed(annotation, hint, name)
    raise TypeError(f"no option type for {annotation!r}")


def _listed(annotation: Any, hint: OptionHint, name: str) -> Listed:
    """A tuple of one type as comma-separated values, each bounded as its element is.

    A fixed count (a pair of settings) takes exactly that many.
    """
    args = typing.get_args(annotation)
    element, metadata = _constrained(args[0])
    if len(set(args) - {Ellipsis}) != 1 or element not in (int, float, str):
        raise TypeError(f"no option type for {annotation!r}")
    bounds = _int_bounds(metadata, name) if element is int else _bounds(metadata)
    if Ellipsis in args:
        return Listed(element, **bounds)
    shape = hint.get("metavar") or ",".join(string.ascii_uppercase[: len(args)])
    return Listed(element, shape, **bounds)


def _given(given: click.ParamType[Any, Any], name: str) -> click.ParamType[Any, Any]:
    """A command's own type for a field, refused (TypeError) if it is an unbounded integer."""
    if isinstance(given, click.IntRange) and (
        not isinstance(given, BoundedInt) or given.max is None
    ):
        raise TypeError(f"{name}: an integer option needs an upper bound (BoundedInt)")
    return given  # a Listed of integers is bounded: it cannot be made without a max


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
        element, metadata = _constrained(typing.get_args(annotation)[0])
        if hint.get("repeat"):
            own = given_type and _given(given_type, name)
            kwargs.update(multiple=True, type=own or _type(element, metadata, hint, name))
        else:
            kwargs["type"] = _listed(annotation, hint, name)
            default = ",".join(map(str, default)) if default else None
    elif typing.get_origin(annotation) is dict and hint.get("repeat"):
        # a mapping given as repeated KEY=VALUE texts, which the model's validator reads
        kwargs.update(multiple=True, type=given_type or click.STRING, show_default=False)
        default = None
    else:
        own = given_type and _given(given_type, name)
        kwargs["type"] = own or _type(annotation, info.metadata, hint, name)
    kwargs["default"] = default
    return click.option(*decls, **kwargs)
