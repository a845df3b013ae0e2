"""The ``readout`` group itself, light: each command's module is imported when it is named."""

from __future__ import annotations

import click

from readout_audit._cli._registry import PluginGroup
from readout_audit._version import __version__


@click.group(cls=PluginGroup)
@click.version_option(__version__, prog_name="readout")
def main() -> None:
    """Audit scores read off a language model's probabilities at a scored position."""
