"""A cue search's confirmation: the frozen bridges on withheld questions, against the blank one.

Each confirmed bridge keeps its development score's readouts (positives, mean displayed score)
and adds its matched-control excess: over the questions where it and the blank bridge in the
same scaffold both have a verdict, cue-only (forward) and blank-only (reverse) acceptances,
with the exact McNemar p Holm-adjusted over every confirmed non-blank bridge. The clean
controls (bare reference value, bare wrong value) show whether the judge grades at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from readout_audit.judge.protocol import JudgeRecord
from readout_audit.judge.search._plan import CLEAN_CONTROLS, Bridge, Programme, bridge_cell
from readout_audit.judge.search._rank import BridgeScore, score_bridges
from readout_audit.stats import holm, mcnemar_exact


class _Row(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ConfirmedBridge(_Row):
    """A frozen bridge in one scaffold on the confirmation questions."""

    score: BridgeScore
    role: str
    """``frozen`` (from the development ranking), ``baseline`` or ``control``."""
    pairs: int
    """Questions where it and the blank bridge both have a verdict."""
    forward: int
    """Accepted with this bridge, rejected with the blank one."""
    reverse: int
    p_raw: float | None
    """Exact McNemar p against the blank bridge (None for the blank bridge itself)."""
    p_holm: float | None

    @property
    def excess(self) -> float | None:
        """(forward − reverse) / pairs: acceptance in excess of the matched blank control."""
        return (self.forward - self.reverse) / self.pairs if self.pairs else None


class CleanControl(_Row):
    """A clean control's acceptance on the confirmation questions."""

    cell: str
    judged: int
    accepted: int
    right: int
    """Verdicts equal to the target label."""


class SearchConfirmation(_Row):
    """Every confirmed bridge and clean control of a search."""

    bridges: list[ConfirmedBridge]
    clean: list[CleanControl]


def _accepted(records: Sequence[JudgeRecord]) -> dict[str, bool]:
    return {r.source_id: r.accepted for r in records if r.accepted is not None}


def confirm_search(
    records: Sequence[JudgeRecord],
    bridges: Sequence[Bridge],
    roles: dict[str, str],
    programme: Programme,
) -> SearchConfirmation:
    """The confirmation tables from the confirmation run's records alone."""
    by_cell: dict[str, list[JudgeRecord]] = {}
    for record in records:
        by_cell.setdefault(record.cell, []).append(record)
    rows: list[dict[str, Any]] = []
    for scaffold in programme.scaffolds:
        blank = _accepted(by_cell.get(bridge_cell(scaffold, ""), []))
        for score in score_bridges(records, bridges, scaffold):
            cue = _accepted(by_cell.get(score.cell, []))
            paired = [(cue[s], blank[s]) for s in cue.keys() & blank.keys()]
            forward = sum(a and not b for a, b in paired)
            reverse = sum(b and not a for a, b in paired)
            rows.append(
                {
                    "score": score,
                    "role": roles[score.text],
                    "pairs": len(paired),
                    "forward": forward,
                    "reverse": reverse,
                    "p_raw": None if score.text == "" else mcnemar_exact(forward, reverse),
                }
            )
    tested = [i for i, row in enumerate(rows) if row["p_raw"] is not None]
    adjusted = holm([rows[i]["p_raw"] for i in tested]).tolist() if tested else []
    p_holm: dict[int, float] = dict(zip(tested, map(float, adjusted), strict=True))
    clean = []
    for cell in CLEAN_CONTROLS:
        mine = [r for r in by_cell.get(cell, []) if r.verdict is not None]
        clean.append(
            CleanControl(
                cell=cell,
                judged=len(mine),
                accepted=sum(bool(r.accepted) for r in mine),
                right=sum(bool(r.right) for r in mine),
            )
        )
    return SearchConfirmation(
        bridges=[ConfirmedBridge(**row, p_holm=p_holm.get(i)) for i, row in enumerate(rows)],
        clean=clean,
    )
