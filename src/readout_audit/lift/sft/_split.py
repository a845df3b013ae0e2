"""Papers split into disjoint training and held-out sets (seed 001's SFT control).

Each paper's place is the SHA-256 of compact JSON ``[seed, "sft-split", paper]``; the first
⌈fraction · n⌉ papers in that order are held out. The split depends only on the seed and the
set of paper ids, so the same cut file and seed give the same split on any machine.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict

from readout_audit._exceptions import InputError


class PaperSplit(BaseModel):
    """Training and held-out paper ids (sorted), and how they were drawn."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seed: int
    held_out_fraction: float
    train: list[str]
    held_out: list[str]


def _place(seed: int, paper: str) -> str:
    key = json.dumps([seed, "sft-split", paper], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(key.encode()).hexdigest()


def split_papers(papers: Iterable[str], *, held_out: float = 0.5, seed: int = 0) -> PaperSplit:
    """Hold out ⌈``held_out`` · n⌉ of the papers (at least one in each set)."""
    found = sorted(set(papers))
    if not 0 < held_out < 1:
        raise InputError(f"must be between 0 and 1, got {held_out}", field="held_out")
    if len(found) < 2:
        raise InputError(f"a split needs at least two papers, got {len(found)}", field="papers")
    n_held = min(len(found) - 1, max(1, math.ceil(held_out * len(found))))
    ordered = sorted(found, key=lambda paper: _place(seed, paper))
    return PaperSplit(
        seed=seed,
        held_out_fraction=held_out,
        train=sorted(ordered[n_held:]),
        held_out=sorted(ordered[:n_held]),
    )
