"""Held-out cuts a training example already holds: clean by content, not only by paper id.

Papers repeat one another (a shared equation, a quoted definition), so a held-out cut's target
may sit verbatim in a training paper's example. A held-out cut whose target, or any
``SPAN``-character span of it, appears in a training example's text (prompt then target, what
the scorer read) is named here; the SFT rung does not read it and the manifest counts it.
"""

from __future__ import annotations

from collections.abc import Sequence

from readout_audit.lift._cut import Cut
from readout_audit.lift.sft._examples import SftExample

SPAN = 50
"""Characters of a target that, found in a training example, make its cut overlap."""


def held_out_overlap(held_out: Sequence[Cut], examples: Sequence[SftExample]) -> dict[str, str]:
    """Held-out cut id → ``target`` (its whole target is in an example) or ``span`` (a part)."""
    texts = list(dict.fromkeys(e.prompt + e.target for e in examples))
    found: dict[str, str] = {}
    spans: dict[str, list[str]] = {}
    for cut in held_out:
        if any(cut.target in text for text in texts):
            found[cut.id] = "target"
            continue
        for start in range(len(cut.target) - SPAN + 1):
            spans.setdefault(cut.target[start : start + SPAN], []).append(cut.id)
    for text in texts if spans else ():
        for start in range(len(text) - SPAN + 1):
            for cut_id in spans.get(text[start : start + SPAN], ()):
                found.setdefault(cut_id, "span")
    return {cut.id: found[cut.id] for cut in held_out if cut.id in found}
