"""A cue search's development scores, its two rankings, extension parents and the frozen set.

A bridge's score in a scaffold comes from its records alone: the questions it was judged on, the
distinct questions whose verdict accepted it (positives), and the mean displayed probability of
the accepting label over the records that display one (a served judge may show none).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence

from pydantic import BaseModel, ConfigDict

from readout_audit.judge.protocol import JudgeRecord
from readout_audit.judge.search._plan import Bridge, Programme, bridge_cell
from readout_audit.judge.search._proposals import first_word


class BridgeScore(BaseModel):
    """One bridge in one scaffold over one stage's questions."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    scaffold: str
    text: str
    cell: str
    origin: str
    token_length: int
    logprob: float | None
    planned: int
    """Requests planned (one per question)."""
    judged: int
    """Requests with a verdict."""
    positives: int
    """Distinct questions whose verdict accepted the candidate."""
    mean_score: float | None
    """Mean displayed probability of the accepting label (None when none is displayed)."""
    scored: int
    """Records that display that probability."""


def displayed_positive(record: JudgeRecord) -> float | None:
    """The accepting label's displayed probability, as returned (None when not shown)."""
    if record.label_probs is None:
        return None
    return record.label_probs.get(record.positive_label)


def score_bridges(
    records: Iterable[JudgeRecord], bridges: Sequence[Bridge], scaffold: str
) -> list[BridgeScore]:
    """Each bridge's score in ``scaffold`` from the records of its cell."""
    by_cell: dict[str, list[JudgeRecord]] = {}
    for record in records:
        by_cell.setdefault(record.cell, []).append(record)
    scores = []
    for bridge in bridges:
        cell = bridge_cell(scaffold, bridge.text)
        mine = by_cell.get(cell, [])
        shown = [p for p in map(displayed_positive, mine) if p is not None]
        scores.append(
            BridgeScore(
                scaffold=scaffold,
                text=bridge.text,
                cell=cell,
                origin=bridge.origin,
                token_length=len(bridge.token_ids),
                logprob=bridge.logprob,
                planned=len(mine),
                judged=sum(r.verdict is not None for r in mine),
                positives=len({r.source_id for r in mine if r.accepted}),
                mean_score=sum(shown) / len(shown) if shown else None,
                scored=len(shown),
            )
        )
    return scores


def _by_positives(score: BridgeScore) -> tuple[float, float, int, float, str]:
    """Positives, mean score, shorter token length, higher L_Q, text (the first search)."""
    logprob = -math.inf if score.logprob is None else score.logprob
    mean = score.mean_score or 0.0
    return (-score.positives, -mean, score.token_length, -logprob, score.text)


def _by_score(score: BridgeScore) -> tuple[float, int, int, str]:
    """Mean score, positives, shorter token length, text (the later search)."""
    return (-(score.mean_score or 0.0), -score.positives, score.token_length, score.text)


def rank_bridges(scores: Iterable[BridgeScore], programme: Programme) -> list[BridgeScore]:
    """The programme's development ranking (a missing mean score ranks as 0)."""
    key = _by_positives if programme.ranking == "positives" else _by_score
    return sorted(scores, key=key)


def extension_parents(ranked: Sequence[BridgeScore], programme: Programme) -> list[str]:
    """A scaffold's extension parents: the best-ranked not yet at the length limit, ≤ per stem."""
    stems: Counter[str] = Counter()
    chosen: list[str] = []
    for score in ranked:
        if len(chosen) == programme.parents:
            break
        stem = first_word(score.text)
        if score.token_length >= programme.max_tokens or stems[stem] >= programme.per_stem:
            continue
        stems[stem] += 1
        chosen.append(score.text)
    return chosen


def frozen_roles(rankings: dict[str, list[BridgeScore]], programme: Programme) -> dict[str, str]:
    """What confirmation freezes, in order, with each text's role; a text appears once.

    ``frozen``: the ``keep`` best of the ranking (``screen``: of its one scaffold; ``extend``:
    per scaffold), then the programme's ``baseline`` and ``control`` strings.
    """
    roles: dict[str, str] = {}
    for ranked in rankings.values():
        roles.update({s.text: "frozen" for s in ranked[: programme.keep]})
    for role, texts in (("baseline", programme.baselines), ("control", programme.controls)):
        roles.update({t: role for t in texts if t not in roles})
    return roles


def frozen_texts(rankings: dict[str, list[BridgeScore]], programme: Programme) -> list[str]:
    """The frozen texts in order (:func:`frozen_roles`)."""
    return list(frozen_roles(rankings, programme))
