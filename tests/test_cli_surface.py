"""Every command's options, defaults, choices and ranges, against a copy kept in the fixtures.

A refactor of how options are declared (settings fields, generated options) must leave what a
user types unchanged; help wording may improve, so help text is not compared. After a deliberate
change to the surface, write the copy again: ``python tests/test_cli_surface.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from readout_audit._cli import main

SURFACE = Path(__file__).parent / "fixtures" / "cli_surface.json"


def _type(kind: click.ParamType) -> dict[str, Any]:
    """A click type's description, an element type a list type checks each value by included."""
    info = kind.to_info_dict()
    for name, value in sorted(vars(kind).items()):
        if isinstance(value, click.ParamType):
            info[name] = _type(value)
        elif name == "shape":
            info[name] = value
    return info


def _param(param: click.Parameter) -> dict[str, Any]:
    info = param.to_info_dict()
    for unused in ("help", "name"):  # wording, and the callback's keyword, are not the surface
        info.pop(unused, None)
    info["type"] = _type(param.type)
    return {k: v for k, v in info.items() if k == "default" or v not in (None, False, [], {})}


def surface(group: click.Command = main, path: str = "readout") -> dict[str, Any]:
    """Each command's path → its parameters as a user meets them."""
    found = {path: [_param(p) for p in group.params]}
    if isinstance(group, click.Group):
        context = click.Context(group)
        for name in group.list_commands(context):
            command = group.get_command(context, name)
            assert command is not None
            if getattr(command.callback, "__module__", "").startswith("readout_audit"):
                found |= surface(command, f"{path} {name}")  # not a test's plug-in
    return json.loads(json.dumps(found, default=str))


def by_name(params: list[dict[str, Any]]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A command's options keyed by their names, and its arguments in their order.

    The order --help lists the options in is not the surface; the arguments' order is.
    """
    options = {"/".join(p["opts"]): p for p in params if p["param_type_name"] == "option"}
    return options, [p for p in params if p["param_type_name"] != "option"]


def test_every_commands_options_defaults_choices_and_ranges_are_unchanged():
    kept = json.loads(SURFACE.read_text(encoding="utf-8"))
    now = surface()
    assert sorted(now) == sorted(kept)
    for command, params in kept.items():
        assert by_name(now[command]) == by_name(params), command


def write() -> None:
    """The copy: a command per entry, a parameter per line."""
    commands = [
        json.dumps(name) + ": [\n" + ",\n".join(json.dumps(p, sort_keys=True) for p in params)
        for name, params in sorted(surface().items())
    ]
    SURFACE.write_text("{\n" + "\n],\n".join(commands) + "\n]\n}\n", encoding="utf-8")


if __name__ == "__main__":
    write()
