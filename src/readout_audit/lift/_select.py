"""What both cutters share: settings, per-paper counts, and the seeded pick of at most N cuts."""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from readout_audit._util import INT_MAX, Seed, option_hint
from readout_audit.lift._cut import Cut, CutKind, sha256_text
from readout_audit.lift._sources import TexPaper

REASONS = (
    "context",
    "graphics",
    "no_site",
    "target_short",
    "target_long",
    "target_overlap",
    "target_in_context",
    "too_few_cuts",
    "over_quota",
)
"""Why a display or block gave no cut, in the order the rules are applied: fewer characters
before it than ``min_context``, graphics markup, no site in the body's middle third, a target
shorter than ``min_target`` or longer than ``max_target``, a prose target overlapping the one
before, a target found verbatim in what the predictor reads, a paper with fewer qualifying
cuts than ``min_cuts`` (none of its cuts is kept), and the per-paper quota."""

TARGET_BOUNDS: dict[str, tuple[int, int]] = {"equation": (50, 400), "prose": (200, 2000)}
"""Default (min, max) target characters: 50-400 for equations (section 4), 200-2,000 for prose."""
PER_PAPER: dict[str, int] = {"equation": 10, "prose": 20}
"""Default cuts per paper: 10 equation cuts, 20 prose cuts (the paper's counts per paper)."""
MIN_CUTS = 10
"""The paper's admission rule: a paper enters only with at least ten qualifying cuts."""
KIND_DEFAULT: Any = None
"""A count left unset: the cut kind's own (``TARGET_BOUNDS``, ``PER_PAPER``) fills it in when
the settings are built, so a built ``CutSettings`` always holds numbers."""


class CutSettings(BaseModel):
    """How papers are cut; recorded in the cut file's manifest."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    kind: CutKind = "equation"
    """Equation suffixes (section 4) or prose/TeX blocks (section 7)."""
    seed: Seed = 0
    """Seeds the pick among a paper's qualifying cuts (with the paper's id)."""
    per_paper: int = Field(default=KIND_DEFAULT, ge=1, le=INT_MAX, strict=True)
    """At most this many cuts per paper (default 10 equation cuts, 20 prose cuts)."""
    every: bool = Field(default=False, json_schema_extra=option_hint(skip=True))
    """Keep every qualifying cut of an admitted paper, no quota: a training cut file for the
    SFT control, whose examples are all of a training paper's cuts."""
    min_cuts: int = Field(default=MIN_CUTS, ge=1, le=INT_MAX, strict=True)
    """Admit a paper only when it offers at least this many qualifying cuts (the paper's rule:
    ten); a paper with fewer gives none."""
    min_context: int = Field(default=10_000, ge=0, le=INT_MAX, strict=True)
    """Cleaned characters required before a cut, and the context's length."""
    min_target: int = Field(default=KIND_DEFAULT, ge=1, le=INT_MAX, strict=True)
    """Fewest target characters (default 50 for equations, 200 for prose)."""
    max_target: int = Field(default=KIND_DEFAULT, ge=1, le=INT_MAX, strict=True)
    """Most target characters (default 400 for equations; 2000 for prose, longer blocks cut)."""

    @model_validator(mode="before")
    @classmethod
    def _kind_defaults(cls, data: Any) -> Any:
        if isinstance(data, dict):
            kind = data.get("kind", "equation")
            low, high = TARGET_BOUNDS.get(kind, (1, 1))
            data = {**data}
            # None is "not given"; 0 is given, and refused by the bound (never the default)
            for name, default in (("min_target", low), ("max_target", high)):
                data[name] = default if data.get(name) is None else data[name]
            if data.get("per_paper") is None:
                data["per_paper"] = PER_PAPER.get(kind, 1)
        return data

    @model_validator(mode="after")
    def _ordered(self) -> CutSettings:
        if self.min_target > self.max_target:
            raise ValueError(f"min_target {self.min_target} exceeds max_target {self.max_target}")
        return self


class PaperStats(BaseModel):
    """One paper as the cutter saw it: its source, what it held, what was kept and why not."""

    model_config = ConfigDict(extra="forbid")

    paper: str
    source: str
    paper_sha256: str
    """SHA-256 of the cleaned text."""
    raw_sha256: str
    """SHA-256 of the source's bytes."""
    chars: int
    """Length of the cleaned text."""
    found: int
    """Displays (equation cuts) or blocks (prose cuts) found."""
    cuts: int
    admitted: bool = True
    """Whether the paper offered ``min_cuts`` qualifying cuts (else it gave none)."""
    rejected: dict[str, int]
    """Displays or blocks that gave no cut, by reason (every reason of :data:`REASONS`)."""
    notes: list[str] = Field(default_factory=list)
    """Inputs skipped, bytes that were not UTF-8."""


def seed_for(seed: int, paper: str) -> int:
    """A paper's own seed: the first 8 bytes of SHA-256 of ``"<seed>:<paper>"`` (stable)."""
    return int.from_bytes(hashlib.sha256(f"{seed}:{paper}".encode()).digest()[:8], "big")


def pick(cuts: list[Cut], settings: CutSettings) -> list[Cut]:
    """At most ``per_paper`` cuts: one drawn from each of that many contiguous source-order buckets.

    Buckets are as equal as possible (the first ``n % per_paper`` hold one more); with
    ``every``, all of them in source order.
    """
    ordered = sorted(cuts, key=lambda cut: cut.cut_offset)
    k = settings.per_paper
    if settings.every or len(ordered) <= k:
        return ordered
    rng = random.Random(seed_for(settings.seed, ordered[0].paper))
    size, extra = divmod(len(ordered), k)
    picked, start = [], 0
    for bucket in range(k):
        end = start + size + (bucket < extra)
        picked.append(ordered[start + rng.randrange(end - start)])
        start = end
    return picked


def new_cut(paper: TexPaper, kind: CutKind, key: str, **fields: Any) -> Cut:
    """A cut of ``paper`` with its id, hashes and the given offsets and strings."""
    return Cut(
        id=f"{paper.id}:{key}",
        kind=kind,
        paper=paper.id,
        key=key,
        source=paper.source,
        paper_sha256=paper.sha256,
        target_sha256=sha256_text(fields["target"]),
        **fields,
    )


def context_before(text: str, offset: int, settings: CutSettings) -> str:
    """The ``min_context`` characters before an offset, right-stripped."""
    return text[max(0, offset - settings.min_context) : offset].rstrip()


def finish(
    paper: TexPaper, found: int, cuts: list[Cut], rejected: Counter[str], settings: CutSettings
) -> tuple[list[Cut], PaperStats]:
    """Drop cuts whose target the predictor can read, pick the quota, and count."""
    visible = [
        cut for cut in cuts if cut.target not in cut.context and cut.target not in cut.prefix
    ]
    rejected["target_in_context"] += len(cuts) - len(visible)
    admitted = len(visible) >= settings.min_cuts
    if not admitted:
        rejected["too_few_cuts"] += len(visible)
        visible = []
    kept = pick(visible, settings)
    rejected["over_quota"] += len(visible) - len(kept)
    stats = PaperStats(
        paper=paper.id,
        source=paper.source,
        paper_sha256=paper.sha256,
        raw_sha256=paper.raw_sha256,
        chars=len(paper.text),
        found=found,
        cuts=len(kept),
        admitted=admitted,
        rejected={reason: rejected[reason] for reason in REASONS},
        notes=list(paper.notes),
    )
    return kept, stats
