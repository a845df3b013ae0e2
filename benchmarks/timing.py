"""Timing a GPU cannot fool: synchronised spans, warm-up on the shapes timed, best of N.

The device is synchronised at both ends of every timed span; each side runs once untimed on the
very items it is then timed on (so every batch shape, allocation and kernel choice is made before
the clock starts), then the sides alternate and each keeps its best round.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import torch


def synchronize(device: Any) -> None:
    """Wait for the device's queued work: a CUDA call returns before its kernels finish."""
    if str(device).startswith("cuda"):
        torch.cuda.synchronize()


class Span:
    """Seconds of one timed block (set when the block ends)."""

    seconds = float("nan")


@contextmanager
def clock(device: Any) -> Iterator[Span]:
    """Time a block with the device synchronised before and after it."""
    span = Span()
    synchronize(device)
    start = time.perf_counter()
    yield span
    synchronize(device)
    span.seconds = time.perf_counter() - start


def duel(
    sides: dict[str, Callable[[], tuple[Any, ...]]], rounds: int
) -> tuple[dict[str, float], dict[str, tuple[Any, ...]]]:
    """Each side's best seconds over ``rounds`` alternating rounds, and its last result.

    A side returns ``(seconds, ...)``. Each runs once first, untimed, on the same items: the
    warm-up covers the exact batch shapes timed, not a smaller sample of them.
    """
    for run in sides.values():
        run()
    best = dict.fromkeys(sides, float("inf"))
    last: dict[str, tuple[Any, ...]] = {}
    for _ in range(rounds):  # alternate, so drift hits both alike
        for name, run in sides.items():
            last[name] = run()
            best[name] = min(best[name], last[name][0])
    return best, last


def peak_gpu_mb() -> float | None:
    """The most GPU memory torch has held in this process, in MiB (None without CUDA)."""
    if not torch.cuda.is_available():
        return None
    return torch.cuda.max_memory_allocated() / 2**20
