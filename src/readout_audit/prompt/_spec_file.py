"""Prompt specs and extra ladder variants defined by users in a TOML or YAML file."""

from __future__ import annotations

import tomllib
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import yaml

from readout_audit._exceptions import InputError
from readout_audit.prompt._spec import FORECAST, LADDER, Parts, PromptSpec, Variant

_SPEC_FIELDS = {f.name for f in fields(PromptSpec)}
_VARIANT_FIELDS = {"item_instruction", "stem", "fenced", "task_in_system", "delete_choices"}


def _variant(name: str, table: dict[str, Any], source: str) -> Variant:
    unknown = set(table) - _VARIANT_FIELDS
    if unknown:
        raise InputError(
            f"unknown key(s) {sorted(unknown)}; expected some of {sorted(_VARIANT_FIELDS)}",
            source=source,
            field=f"variants.{name}",
        )
    changes = {k: v for k, v in table.items() if k != "delete_choices"}
    if changes.get("item_instruction") == "":
        changes["item_instruction"] = None
    clear = bool(table.get("delete_choices"))

    def transform(parts: Parts, spec: PromptSpec) -> Parts:
        updated = replace(parts, **changes)
        return replace(updated, choices=(), letters=()) if clear else updated

    return transform


SPEC_SUFFIXES = (".toml", ".yaml", ".yml")


def _read_tables(path: Path) -> dict[str, Any]:
    """The file's top-level mapping, parsed as TOML or YAML by its suffix."""
    if path.suffix not in SPEC_SUFFIXES:
        raise InputError(
            f"a spec file must end in {', '.join(SPEC_SUFFIXES)}", source=str(path), field="spec"
        )
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError("spec file not found", source=str(path)) from None
    try:
        data = tomllib.loads(text) if path.suffix == ".toml" else yaml.safe_load(text)
    except (tomllib.TOMLDecodeError, yaml.YAMLError) as error:
        kind = "TOML" if path.suffix == ".toml" else "YAML"
        raise InputError(f"malformed {kind} ({error})", source=str(path)) from None
    if not isinstance(data, dict):
        raise InputError("the file must hold a mapping at its top level", source=str(path))
    return data


def load_spec_file(path: str | Path) -> tuple[PromptSpec, dict[str, Variant]]:
    """Read a TOML or YAML spec file: a ``spec`` table and optional ``variants.<name>`` tables.

    Missing spec keys default to the forecast spec's. A variant sets any of ``item_instruction``
    (empty string deletes it), ``stem``, ``fenced``, ``task_in_system`` and ``delete_choices``.
    """
    path = Path(path)
    data = _read_tables(path)
    table = data.get("spec")
    if not isinstance(table, dict) or "name" not in table:
        raise InputError("needs a [spec] table with a name", source=str(path), field="spec")
    unknown = set(table) - _SPEC_FIELDS
    if unknown:
        raise InputError(f"unknown key(s) {sorted(unknown)}", source=str(path), field="spec")
    if "options" in table:
        table["options"] = tuple(table["options"]) if table["options"] else None
    spec = replace(FORECAST, **table)
    variants = {
        name: _variant(name, body, str(path)) for name, body in data.get("variants", {}).items()
    }
    clash = set(variants) & set(LADDER)
    if clash:
        raise InputError(
            f"variant name(s) {sorted(clash)} are built-in rungs",
            source=str(path),
            field="variants",
        )
    return spec, variants
