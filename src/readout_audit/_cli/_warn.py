"""Warnings about what a command assumes, shown on stderr as ``warning: ...`` before it runs."""

from __future__ import annotations

import click

from readout_audit._util import terminal_safe


def warn(*messages: str | None) -> None:
    """Show each message as one ``warning:`` line on stderr; None is nothing to say."""
    for message in messages:
        if message is not None:
            click.echo(f"warning: {terminal_safe(message)}", err=True)
