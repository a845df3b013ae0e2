"""Likelihood lift (seed 001): forecasts of hidden TeX continuations scored by a fixed scorer."""

from readout_audit.lift._cut import Cut, CutKind

__all__ = ["Cut", "CutKind"]
