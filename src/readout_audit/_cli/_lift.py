"""``readout lift``: cut TeX papers, write forecasts, score them and report the lift."""

from __future__ import annotations

import click


@click.group("lift")
def lift_group() -> None:
    """Likelihood lift of forecasts of hidden TeX continuations (cut, predict, score, report)."""
