"""``readout audit``: the group every kind's ``readout audit NAME`` command joins."""

from __future__ import annotations

import click


@click.group("audit")
def audit_group() -> None:
    """Run an audit protocol of the seed papers on a model."""
