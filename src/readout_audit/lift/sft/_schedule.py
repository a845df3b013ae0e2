"""The learning rate of each step: a linear warm-up from 0, then constant, cosine or linear decay.

Step k (0-based) of n, with w = ⌈warmup · n⌉ warm-up steps, is taken at the peak rate times
k / w while k < w, then 1 (constant), ½ (1 + cos(π p)) (cosine) or 1 − p (linear) with
p = (k − w) / (n − w): the schedules transformers' Trainer uses, so a step's rate depends only
on its number and a resumed run needs no scheduler state.
"""

from __future__ import annotations

import math

from readout_audit.lift.sft._manifest import SftConfig


def warmup_steps(config: SftConfig) -> int:
    """⌈warmup · steps⌉: the steps whose rate climbs from 0 to the peak."""
    return math.ceil(config.warmup * config.total_steps)


def learning_rate(step: int, config: SftConfig) -> float:
    """The rate of 0-based step ``step``."""
    warm, total = warmup_steps(config), config.total_steps
    if step < warm:
        return config.learning_rate * step / warm
    progress = (step - warm) / max(1, total - warm)
    if config.schedule == "cosine":
        factor = 0.5 * (1.0 + math.cos(math.pi * progress))
    elif config.schedule == "linear":
        factor = max(0.0, 1.0 - progress)
    else:
        factor = 1.0
    return config.learning_rate * factor
