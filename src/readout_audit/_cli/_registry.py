"""Where ``readout``'s commands come from: hooks registered by the built-in modules and plug-ins.

A hook takes the ``readout`` group and adds commands to it (the shape of simonw/llm's
``register_commands``). The built-in command modules register theirs exactly as a plug-in
module does, so the group itself lists nothing.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

import click

from readout_audit.log import load_plugins

CommandHook = Callable[[click.Group], None]

BUILT_IN = (
    "readout_audit._cli._score",
    "readout_audit._cli._audit",
    "readout_audit._cli._recover",
    "readout_audit._cli._lmeval",
    "readout_audit._cli._report",
    "readout_audit._cli._export",
    "readout_audit._cli._conformance",
    "readout_audit._cli._ledger",
    "readout_audit._cli._lift",
    "readout_audit._cli._judge",
)
"""The modules that register the built-in commands when imported."""

_HOOKS: list[CommandHook] = []


def register_commands(hook: CommandHook) -> CommandHook:
    """Register ``hook(cli)``, which adds commands to the ``readout`` group (a decorator).

    A plug-in module (``READOUT_AUDIT_PLUGINS`` or the ``readout_audit.kinds`` entry points)
    calls it when imported; ``readout audit NAME`` for a plug-in kind is ``AuditKind.command``.
    """
    _HOOKS.append(hook)
    return hook


class PluginGroup(click.Group):
    """A group whose commands are added by the registered hooks, each applied once."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._applied: set[int] = set()

    def _apply_hooks(self) -> None:
        for module in BUILT_IN:
            importlib.import_module(module)
        load_plugins()
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
