"""Option types the commands share."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, TypeVar

import click

from readout_audit.stats._validate import MAX_REPLICATES

SEED = click.IntRange(0, (1 << 63) - 1)
"""A seed option: a non-negative integer every generator takes (numpy, torch, random)."""
F = TypeVar("F", bound=Callable[..., Any])


def replicates_option(name: str, default: int, what: str) -> Callable[[F], F]:
    """A bootstrap or permutation count, refused before any work when its matrix could not fit."""
    return click.option(
        name,
        default=default,
        show_default=True,
        type=click.IntRange(100, MAX_REPLICATES),
        help=f"{what} (at most {MAX_REPLICATES:,}: memory grows with replicates × items, and a "
        "million already fixes a p-value's third decimal).",
    )


class FiniteFloat(click.FloatRange):
    """A float option in a range that also refuses nan and infinities.

    Click's range lets them through: nan compares false with every bound, so it would pass as a
    spend cap or a tolerance that never binds.
    """

    name = "finite float"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """The number, or a usage error naming a value that is not finite."""
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return number
