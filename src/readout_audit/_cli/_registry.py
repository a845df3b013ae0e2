"""Where a kind's commands come from: hooks its module registers, built-in kind or plug-in alike.

A hook takes the ``readout`` group and adds commands to it (the shape of simonw/llm's
``register_commands``). The built-in kinds' command modules are this package's own, found
without installed metadata; a plug-in's are its ``readout_audit.commands`` entry points (or its
``READOUT_AUDIT_PLUGINS`` module), so the group lists no kind.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from importlib import metadata

import click

from readout_audit._cli._warn import warn
from readout_audit.kind import broken_plugins, load_plugin

CommandHook = Callable[[click.Group], None]
COMMAND_POINTS = "readout_audit.commands"
"""The entry-point group naming a plug-in's command modules (its kind: ``readout_audit.kinds``)."""
BUILT_IN = ("_audit", "_judge", "_lift", "_lmeval", "_recover", "_score")
"""The modules of this package holding the built-in kinds' commands."""

_HOOKS: list[CommandHook] = []


def register_commands(hook: CommandHook) -> CommandHook:
    """Register ``hook(cli)``, which adds commands to the ``readout`` group (a decorator).

    A plug-in module (``READOUT_AUDIT_PLUGINS`` or the ``readout_audit.kinds`` entry points)
    calls it when imported, as each built-in command module does.
    """
    _HOOKS.append(hook)
    return hook


class PluginGroup(click.Group):
    """A group whose commands are added by the registered hooks, each applied once.

    A plug-in that cannot be loaded is named in one warning line; the other kinds still work.
    """

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._applied: set[int] = set()
        self._warned = False

    def _apply_hooks(self) -> None:
        if not self._warned:
            self._warned = True
            for name in BUILT_IN:
                importlib.import_module(f"{__package__}.{name}")
            for entry in metadata.entry_points(group=COMMAND_POINTS):
                load_plugin(f"commands entry point {entry.name!r} ({entry.value})", entry.load)
            warn(*broken_plugins())
        for hook in list(_HOOKS):
            if id(hook) not in self._applied:
                self._applied.add(id(hook))
                hook(self)

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._apply_hooks()
        return super().list_commands(ctx)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        self._apply_hooks()
        return super().get_command(ctx, cmd_name)
