"""``--limit`` and ``--plain``, spelled once for every command that takes them.

``--limit N`` keeps the first N of what a command reads (its help says of what); ``--plain``
draws a command's tables with ASCII borders and no colour, for logs and pipes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from readout_audit._cli._types import BoundedInt
from readout_audit._util import INT_MAX

plain_option = click.option(
    "--plain", is_flag=True, help="No colour, ASCII borders: for logs and pipes."
)
"""``--plain`` for every command that draws tables."""


def limit_option(what: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--limit N``: only the first N of ``what`` the command reads (e.g. "items")."""
    return click.option(
        "--limit", type=BoundedInt(1, max=INT_MAX), help=f"Only the first N {what}."
    )
