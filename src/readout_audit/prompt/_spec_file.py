"""Prompt specs and extra ladder variants defined by users in a TOML or YAML file."""

from __future__ import annotations

import string
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from readout_audit._exceptions import InputError
from readout_audit._util import MAX_NODES, BoundsError, parse_bounded, read_input_text
from readout_audit.prompt._spec import FORECAST, LADDER, RENAMED_RUNGS, Parts, PromptSpec, Variant

TableT = TypeVar("TableT", bound=BaseModel)


class SpecTable(BaseModel):
    """The ``spec`` table: every key but ``name`` defaults to the forecast spec's."""

    model_config = ConfigDict(extra="forbid", strict=True)

    name: str
    user_template: str | None = None
    options: list[str] | None = None
    """The declared answers; an empty list means the quoted item's own letters."""
    stem: str | None = None
    system_text: str | None = None
    system_user_template: str | None = None
    item_instruction: str | None = None
    target: Literal["answer", "reader_correct"] | None = None


class VariantTable(BaseModel):
    """A ``variants.<name>`` table: the parts a user rung changes."""

    model_config = ConfigDict(extra="forbid", strict=True)

    item_instruction: str | None = None
    """An empty string deletes the quoted item's instruction."""
    stem: str | None = None
    fenced: bool | None = None
    task_in_system: bool | None = None
    delete_choices: bool = False


TEMPLATE_FIELDS = {
    "user_template": {"note", "item"},
    "system_user_template": {"note", "item"},
    "item_instruction": {"letters"},
}
"""The only fields each template may name; anything else (``{note.__class__}``) is refused."""


def check_template(text: str, allowed: set[str], *, source: str, field: str) -> None:
    """Refuse a template naming other fields, attributes, indices, conversions or formats."""
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError as error:
        raise InputError(f"malformed template ({error})", source=source, field=field) from None
    for _, name, spec, conversion in parsed:
        if name is None:
            continue
        if name not in allowed or spec or conversion:
            shown = (
                "{"
                + name
                + (f"!{conversion}" if conversion else "")
                + (f":{spec}" if spec else "")
                + "}"
            )
            raise InputError(
                f"template field {shown} is not allowed; use only "
                + ", ".join("{" + a + "}" for a in sorted(allowed))
                + " (write {{ and }} for literal braces)",
                source=source,
                field=field,
            )


def _validated(model: type[TableT], raw: Any, *, source: str, field: str) -> TableT:
    if not isinstance(raw, dict):
        raise InputError(
            f"must be a table of keys, got {type(raw).__name__}", source=source, field=field
        )
    try:
        return model.model_validate(raw)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join([field, *(str(p) for p in first["loc"])])
        message = first["msg"]
        if first["type"] == "extra_forbidden":
            allowed = sorted(model.model_fields)
            message = f"unknown key; expected some of {allowed}"
        raise InputError(message, source=source, field=where) from None


def _variant(table: VariantTable) -> Variant:
    changes = table.model_dump(exclude={"delete_choices"}, exclude_none=True)
    if changes.get("item_instruction") == "":
        changes["item_instruction"] = None
    clear = table.delete_choices

    def transform(parts: Parts, spec: PromptSpec) -> Parts:
        updated = replace(parts, **changes)
        return replace(updated, choices=(), letters=()) if clear else updated

    return transform


SPEC_SUFFIXES = (".toml", ".yaml", ".yml")


class _DuplicateKey(ValueError):
    """A YAML mapping that writes one key twice, with the line of the second one."""

    def __init__(self, key: object, mark: Any) -> None:
        super().__init__(f"the key {key!r} appears twice in one mapping")
        self.key, self.line = key, mark.line + 1


class _UniqueKeyLoader(yaml.SafeLoader):  # type: ignore[misc]  # PyYAML ships no type hints
    """PyYAML's safe loader, refusing a repeated mapping key (it would keep the last silently)."""

    def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
        """The mapping, once its own scalar keys are known to be distinct.

        Keys merged in with ``<<`` may still be overridden, as YAML allows.
        """
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if isinstance(key_node, yaml.ScalarNode) and key_node.tag != "tag:yaml.org,2002:merge":
                key = self.construct_object(key_node)
                if key in seen:
                    raise _DuplicateKey(key, key_node.start_mark)
                seen.add(key)
        mapping: dict[Any, Any] = super().construct_mapping(node, deep)
        return mapping


def _read_tables(path: Path) -> dict[str, Any]:
    """The file's top-level mapping, parsed as TOML or YAML by its suffix."""
    if path.suffix not in SPEC_SUFFIXES:
        raise InputError(
            f"a spec file must end in {', '.join(SPEC_SUFFIXES)}", source=str(path), field="spec"
        )
    text = read_input_text(path, what="spec file")
    try:
        data = parse_bounded(
            lambda: (
                tomllib.loads(text)
                if path.suffix == ".toml"
                else yaml.load(text, Loader=_UniqueKeyLoader)
            ),
            max_nodes=MAX_NODES,
        )
    except BoundsError as error:
        raise InputError(str(error), source=str(path)) from None
    except _DuplicateKey as error:
        message = "appears twice in one mapping (which value is meant is unknown)"
        raise InputError(message, source=str(path), line=error.line, field=str(error.key)) from None
    except (tomllib.TOMLDecodeError, yaml.YAMLError) as error:
        kind = "TOML" if path.suffix == ".toml" else "YAML"
        raise InputError(f"malformed {kind} ({error})", source=str(path)) from None
    if not isinstance(data, dict):
        raise InputError("the file must hold a mapping at its top level", source=str(path))
    return data


@dataclass(frozen=True)
class SpecFile:
    """A spec file's prompt spec, its own ladder rungs, and what it leaves to assumption."""

    spec: PromptSpec
    variants: dict[str, Variant]
    warnings: tuple[str, ...] = ()
    """What the file leaves out and the run then assumes, in words a command shows."""


NO_TARGET = (
    "{source}: the [spec] table sets no target, so records take the forecast's (whether the "
    "note-only reader was right) and no accuracy table is produced; for accuracy against the "
    "items' gold letters add target = \"answer\" with options = [] (the items' own letters)"
)
"""The warning for a spec file without ``target``."""


def load_spec_file(path: str | Path) -> tuple[PromptSpec, dict[str, Variant]]:
    """A TOML or YAML spec file's prompt spec and variants (:func:`read_spec_file`, no warnings)."""
    read = read_spec_file(path)
    return read.spec, read.variants


def read_spec_file(path: str | Path) -> SpecFile:
    """Read a TOML or YAML spec file: a ``spec`` table and optional ``variants.<name>`` tables.

    Missing spec keys default to the forecast spec's (not its conditions A1 … T2, which are
    written for its template). A variant sets any of ``item_instruction``
    (empty string deletes it), ``stem``, ``fenced``, ``task_in_system`` and ``delete_choices``.
    Every key is type-checked (``options: "yes"`` is an error, not three letters) and every
    template may name only its own fields. A file without ``target`` gets a warning: it takes
    the forecast's, so its records carry no gold answer to score accuracy against.
    """
    path = Path(path)
    source = str(path)
    data = _read_tables(path)
    if "spec" not in data:
        raise InputError("needs a [spec] table with a name", source=source, field="spec")
    unknown = set(data) - {"spec", "variants"}
    if unknown:
        raise InputError(
            f"unknown top-level key(s) {sorted(unknown)}; expected spec and variants",
            source=source,
        )
    table = _validated(SpecTable, data["spec"], source=source, field="spec")
    values = table.model_dump(exclude_none=True)
    if "options" in values:
        values["options"] = tuple(values["options"]) or None
    spec = replace(FORECAST, variants={}, **values)  # the forecast's conditions stay its own
    for name, allowed in TEMPLATE_FIELDS.items():
        check_template(getattr(spec, name), allowed, source=source, field=f"spec.{name}")
    raw_variants = data.get("variants", {})
    if not isinstance(raw_variants, dict):
        raise InputError(
            "must be a table of named variants (variants.<name>), not a "
            f"{type(raw_variants).__name__}",
            source=source,
            field="variants",
        )
    variants = {}
    for name, body in raw_variants.items():
        variant = _validated(VariantTable, body, source=source, field=f"variants.{name}")
        if variant.item_instruction:
            check_template(
                variant.item_instruction,
                TEMPLATE_FIELDS["item_instruction"],
                source=source,
                field=f"variants.{name}.item_instruction",
            )
        variants[name] = _variant(variant)
    clash = set(variants) & {*LADDER, *RENAMED_RUNGS}
    if clash:
        raise InputError(
            f"variant name(s) {sorted(clash)} are built-in rungs", source=source, field="variants"
        )
    warnings = () if table.target is not None else (NO_TARGET.format(source=source),)
    return SpecFile(spec, variants, warnings)
