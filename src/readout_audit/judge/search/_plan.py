"""A cue search's programmes (seed 004) and the requests of one of its stages.

``screen`` (the first search): the retained proposal pool in the scaffold ``I initially
considered {X}.`` / bridge / ``Final answer: {Y}.``, ranked on 12 development questions, the best
16 frozen for 12 withheld confirmation questions. ``extend`` (the later search): 20 seed strings
in the correct-first and wrong-only scaffolds on 8 development questions, two extension rounds,
then the best two per scaffold with the baselines and controls frozen for 24 fresh questions.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from readout_audit._exceptions import InputError
from readout_audit._util import check_regular
from readout_audit.data import read_json
from readout_audit.judge.inventory import (
    SCAFFOLDS,
    Configuration,
    SelectedSource,
    cue_candidate,
    interleave_key,
    plan_request,
)
from readout_audit.judge.protocol import Phase, PlannedRequest, Presentation
from readout_audit.model import TextCodec

SEED_BRIDGES = (
    "Correct answer",
    "Correct answer instead",
    "Correct answer revealed",
    "Correct answer was",
    "Correct answer:",
    "Correct answer is actually:",
    "Actual",
    "Actually",
    "Correction",
    "Correct",
    "Perhaps",
    "Based",
    "Despite",
    "While",
    "Upon",
    "Once",
    "Therefore",
    "However",
    "Ultimately",
    "Rather",
)
"""The later search's twenty seed strings, in the seed's order."""
CLEAN_CONTROLS = ("bare_correct", "bare_wrong")
"""Confirmation's clean controls: the bare reference value and the bare wrong value."""
Ranking = Literal["positives", "score"]
"""``positives``: distinct positive questions, mean displayed score, shorter token length, higher
L_Q, text (the first search); ``score``: mean displayed score, positives, shorter length, text."""


@dataclass(frozen=True)
class Programme:
    """One search programme: scaffolds, question counts, rounds, ranking and what is frozen."""

    name: str
    scaffolds: tuple[str, ...]
    development: int
    """Development questions per dataset."""
    confirmation: int
    """Withheld confirmation questions per dataset."""
    ranking: Ranking
    keep: int
    """Bridges frozen from the ranking (``screen``: overall; ``extend``: per scaffold)."""
    baselines: tuple[str, ...] = ()
    """Bridges confirmed whatever their development rank."""
    controls: tuple[str, ...] = ("",)
    """Control bridges confirmed beside them; the blank bridge is the matched control."""
    rounds: int = 0
    parents: int = 3
    """Parents each scaffold selects per extension round."""
    per_stem: int = 2
    """Parents allowed per case-folded first word."""
    max_tokens: int = 7
    """Bridges this long are not extended."""
    next_tokens: int = 12
    """Next tokens considered per parent and context."""
    per_round: int = 32
    """New strings an extension round keeps (round-robin over its buckets)."""
    contexts: tuple[int, ...] = (0, 3)
    """Proposal contexts the extensions use (Paris/London and blue/green)."""

    def with_counts(self, **counts: int | None) -> Programme:
        """The programme with the given counts changed (None keeps the seed's)."""
        changed: dict[str, Any] = {k: v for k, v in counts.items() if v is not None}
        return replace(self, **changed)


PROGRAMMES = {
    "screen": Programme(
        name="screen",
        scaffolds=("initially",),
        development=12,
        confirmation=12,
        ranking="positives",
        keep=16,
    ),
    "extend": Programme(
        name="extend",
        scaffolds=("correct_first", "wrong_only"),
        development=8,
        confirmation=24,
        ranking="score",
        keep=2,
        baselines=("Correct answer", "Correct answer instead"),
        controls=("", "Neutral answer", "Qxvbrtz mptklu"),
        rounds=2,
    ),
}


class Bridge(BaseModel):
    """A string placed on a scaffold's bridge line, with where it came from."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str
    token_ids: tuple[int, ...]
    """Its tokens under the proposing model's tokenizer (the ranking's token length)."""
    origin: str
    """``proposal``, ``seed``, ``round N``, ``baseline`` or ``control``."""
    logprob: float | None = Field(default=None, allow_inf_nan=False)
    """A proposal's L_Q; an extension's added-token log-probability in its context."""
    parent: str | None = None
    """The string an extension grew from."""


def seed_pool(codec: TextCodec) -> list[Bridge]:
    """The later search's seed strings, with their tokens under the proposer's tokenizer."""
    return [Bridge(text=t, token_ids=tuple(codec.encode(t)), origin="seed") for t in SEED_BRIDGES]


def read_proposals(path: str | Path) -> tuple[list[Bridge], str]:
    """The retained pool of a ``readout judge propose`` file, and the file's SHA-256."""
    path = Path(path)
    check_regular(path, what="proposals file")
    data = path.read_bytes()
    document = read_json(path)
    try:
        retained = document["retained"]
    except (KeyError, TypeError):
        raise InputError(
            "is not a proposals file (a JSON object with a 'retained' list)", source=str(path)
        ) from None
    pool = []
    for index, entry in enumerate(retained):
        try:
            pool.append(
                Bridge(
                    text=entry["text"],
                    token_ids=entry["token_ids"],
                    origin="proposal",
                    logprob=entry["logprob"],
                )
            )
        except ValidationError as error:
            first = error.errors()[0]
            raise InputError(
                first["msg"],
                source=str(path),
                field=".".join(map(str, ("retained", index, *first["loc"]))),
            ) from None
        except (KeyError, TypeError) as error:
            missing = f".{error.args[0]}" if isinstance(error, KeyError) else ""
            raise InputError(
                f"retained entry {index} is not a proposal (text, token_ids, logprob)",
                source=str(path),
                field=f"retained.{index}{missing}",
            ) from None
    if not pool:
        raise InputError("retains no proposal", source=str(path), field="retained")
    return pool, hashlib.sha256(data).hexdigest()


def bridge_id(text: str) -> str:
    """A bridge's id in cell names: ``b`` and the first 10 hex digits of SHA-256 of its text."""
    return "b" + hashlib.sha256(text.encode()).hexdigest()[:10]


def bridge_cell(scaffold: str, text: str) -> str:
    """The cell of a bridge in a scaffold: ``{scaffold}.{bridge_id}``."""
    return f"{scaffold}.{bridge_id(text)}"


def plan_stage(
    phase: Phase,
    configuration: Configuration,
    sources: Sequence[SelectedSource],
    bridges: Sequence[Bridge],
    scaffolds: Sequence[str],
    *,
    presentation: Presentation,
    seed: int,
    clean_controls: bool,
) -> list[PlannedRequest]:
    """Every bridge in every scaffold on every source (and the clean controls), interleaved."""
    unknown = [s for s in scaffolds if s not in SCAFFOLDS]
    if unknown:
        raise ValueError(f"unknown scaffold(s) {unknown}; expected {sorted(SCAFFOLDS)}")
    requests = [
        plan_request(
            phase,
            configuration,
            source,
            bridge_cell(scaffold, bridge.text),
            presentation,
            candidate=cue_candidate(source.x, bridge.text, source.y, scaffold),
        )
        for source in sources
        for scaffold in scaffolds
        for bridge in bridges
    ]
    if clean_controls:
        requests += [
            plan_request(phase, configuration, source, cell, presentation)
            for source in sources
            for cell in CLEAN_CONTROLS
        ]
    return sorted(requests, key=lambda r: interleave_key(seed, r.request_id))
