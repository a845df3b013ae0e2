"""The reference switch's slope check (seed 004, Appendix I): one affine map in both worlds?

With control log-ratio margin m and cue effect D = m' − m, a shared map m' = k·m + b gives
D = (k − 1)·m + b in both worlds, so each world's within-world OLS slope of D on m and the
slope joining the two worlds' means, (D̄_Y − D̄_X) / (m̄_Y − m̄_X), agree in the noiseless
model. The contrasts (within − between) get paired source-bootstrap intervals (5,000 draws,
sources resampled jointly across the worlds); a post-hoc diagnostic, not a test. A slope whose
margins have no spread (every margin of a world equal, or equal world means) is undefined, as
scipy's ``linregress`` refuses it: decided exactly, since centring equal floats leaves ~1e-17
residues that turn the division into slopes of ~1e15; draws without spread are left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict

SLOPE_DRAWS = 5_000
Slope = Literal["within_x", "within_y", "between"]
SLOPES: tuple[Slope, ...] = ("within_x", "within_y", "between")


class SlopeCheck(BaseModel):
    """Within-world and between-world slopes of D on m, and the two contrasts' intervals."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    n: int
    """Sources with a finite margin and effect in both worlds."""
    within_x: float | None
    within_y: float | None
    between: float | None
    contrast_x: float | None
    """within_x − between."""
    contrast_x_low: float | None
    contrast_x_high: float | None
    contrast_y: float | None
    contrast_y_low: float | None
    contrast_y_high: float | None
    no_spread: tuple[Slope, ...] = ()
    """Slopes undefined because their control margins have no spread; their contrasts too."""


def _spread(m: np.ndarray) -> np.ndarray:
    """Per row of m shaped (..., 2, n): whether X, Y and the two world means differ, exactly."""
    within = np.ptp(m, axis=-1) != 0
    means = m.mean(axis=-1)
    return np.stack([within[..., 0], within[..., 1], means[..., 1] != means[..., 0]], axis=-1)


def _slopes(m: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Per row of (m, d) shaped (..., 2, n): within X, within Y, between; NaN without spread."""
    centred = m - m.mean(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        within = (centred * d).sum(axis=-1) / (centred**2).sum(axis=-1)
        means_m, means_d = m.mean(axis=-1), d.mean(axis=-1)
        between = (means_d[..., 1] - means_d[..., 0]) / (means_m[..., 1] - means_m[..., 0])
    found = np.stack([within[..., 0], within[..., 1], between], axis=-1)
    return np.where(_spread(m) & np.isfinite(found), found, np.nan)


def slope_check(
    margins: tuple[Sequence[float | None], Sequence[float | None]],
    effects: tuple[Sequence[float | None], Sequence[float | None]],
    *,
    n_boot: int = SLOPE_DRAWS,
    seed: int = 0,
) -> SlopeCheck:
    """The slopes and contrasts from per-source (m_X, m_Y) and (D_X, D_Y), complete sources only."""
    rows = [
        values
        for values in zip(*margins, *effects, strict=True)
        if all(v is not None and np.isfinite(v) for v in values)
    ]
    empty = SlopeCheck(
        n=len(rows),
        within_x=None,
        within_y=None,
        between=None,
        contrast_x=None,
        contrast_x_low=None,
        contrast_x_high=None,
        contrast_y=None,
        contrast_y_low=None,
        contrast_y_high=None,
    )
    if len(rows) < 3:
        return empty
    table = np.asarray(rows, dtype=np.float64)  # n × (m_X, m_Y, D_X, D_Y)
    m, d = table[:, :2].T, table[:, 2:].T
    within_x, within_y, between = _slopes(m, d).tolist()
    draws = np.random.default_rng(seed).integers(0, len(rows), size=(n_boot, len(rows)))
    boot = _slopes(m[:, draws].transpose(1, 0, 2), d[:, draws].transpose(1, 0, 2))
    contrasts = boot[:, :2] - boot[:, 2:]

    def finite(value: float) -> float | None:
        return None if np.isnan(value) else float(value)

    def bounds(k: int) -> tuple[float | None, float | None]:
        kept = contrasts[:, k][~np.isnan(contrasts[:, k])]
        if kept.size == 0:
            return None, None
        low, high = np.quantile(kept, [0.025, 0.975])
        return float(low), float(high)

    (x_low, x_high), (y_low, y_high) = bounds(0), bounds(1)
    return empty.model_copy(
        update={
            "within_x": finite(within_x),
            "within_y": finite(within_y),
            "between": finite(between),
            "contrast_x": finite(within_x - between),
            "contrast_x_low": x_low,
            "contrast_x_high": x_high,
            "contrast_y": finite(within_y - between),
            "contrast_y_low": y_low,
            "contrast_y_high": y_high,
            "no_spread": tuple(name for name, ok in zip(SLOPES, _spread(m), strict=True) if not ok),
        }
    )
