"""Where a kind's commands come from: hooks its module registers, built-in kind or plug-in alike.

A hook takes the ``readout`` group and adds commands to it (the shape of simonw/llm's
``register_commands``). The ``readout_audit.kinds`` entry points name each kind's module,
built-in ones included, so the group lists no kind.
"""

from __future__ import annotations

from collections.abc import Callable

import click

from readout_audit._cli._warn import warn
from readout_audit.kind import broken_plugins

CommandHook = Callable[[click.Group], None]

_HOOKS: list[CommandHook] = []


def register_commands(hook: CommandHook) -> CommandHook:
    """Register ``hook(cli)``, which adds commands to the ``readout`` group (a decorator).

    A plug-in module (``READOUT_AUDIT_PLUGINS`` or the ``readout_audit.kinds`` entry points)
    calls it when imported; ``readout audit NAME`` for a plug-in kind is ``AuditKind.command``.
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
        broken = broken_plugins()
        if not self._warned:
            self._warned = True
            warn(*broken)
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
