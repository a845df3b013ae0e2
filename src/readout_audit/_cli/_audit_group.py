"""``readout audit``: the group every kind's ``readout audit NAME`` command joins."""

from __future__ import annotations

import click

from readout_audit.kind import UnknownKindError, audit_kinds, get_kind


class AuditGroup(click.Group):
    """``readout audit NAME``: one subcommand per kind that has a command.

    A kind's module adds its command with a ``register_commands`` hook (the built-in ones) or
    gives its kind a builder (``AuditKind.command``, built only when asked for).
    """

    def list_commands(self, ctx: click.Context) -> list[str]:
        plugged = [kind.name for kind in audit_kinds() if kind.command is not None]
        return sorted({*super().list_commands(ctx), *plugged})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.commands:
            return self.commands[cmd_name]
        try:
            kind = get_kind(cmd_name)
        except UnknownKindError:
            return None
        return kind.command() if kind.command is not None else None


@click.group("audit", cls=AuditGroup)
def audit_group() -> None:
    """Run an audit protocol of the seed papers on a model."""
