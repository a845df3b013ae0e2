"""The secondary family (seed 004): R: against R within each presentation, exact McNemar.

Over the sources whose R and R: requests both returned a verdict in one presentation, forward
discordances are cue-only acceptances (R: accepted, R not) and reverse ones control-only; the
exact two-sided conditional McNemar p is min(1, 2 P(X ≤ min(b, c))), X ~ Bin(b + c, ½). One
test per configuration and presentation, Holm-adjusted in their own family; a configuration
whose preflight failed keeps p = 1 in its slots.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from readout_audit.judge.analysis._gates import Qualification
from readout_audit.judge.analysis._panel import JudgePanel
from readout_audit.judge.protocol import PRESENTATIONS, Presentation
from readout_audit.stats import holm, mcnemar_exact


class SecondaryResult(BaseModel):
    """One within-presentation R:/R comparison of one configuration."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    configuration: str
    presentation: Presentation
    n_pairs: int
    """Sources with a verdict on both R and R:."""
    cue_accepted: int
    """R: acceptances among the pairs."""
    control_accepted: int
    """R acceptances among the pairs."""
    forward: int
    """Cue-only acceptances (R: accepted, R not)."""
    reverse: int
    """Control-only acceptances (R accepted, R: not)."""
    skipped: bool
    p_raw: float
    p_holm: float

    @property
    def excess(self) -> float | None:
        """(forward − reverse) / pairs: the pooled paired acceptance difference."""
        return (self.forward - self.reverse) / self.n_pairs if self.n_pairs else None


def discordances(
    panel: JudgePanel, configuration: str, presentation: Presentation
) -> tuple[int, int, int, int, int]:
    """(pairs, R: accepted, R accepted, forward, reverse) over a presentation's paired sources."""
    pairs = []
    for source in panel.sources("confirmation", configuration):
        cue, control = (
            panel.get("confirmation", configuration, source.source_id, cell, presentation)
            for cell in ("random_colon", "random")
        )
        if cue is None or control is None:
            continue
        if cue.accepted is not None and control.accepted is not None:
            pairs.append((cue.accepted, control.accepted))
    return (
        len(pairs),
        sum(a for a, _ in pairs),
        sum(b for _, b in pairs),
        sum(a and not b for a, b in pairs),
        sum(b and not a for a, b in pairs),
    )


def secondary_family(
    panel: JudgePanel, family: Sequence[str], qualification: Sequence[Qualification]
) -> list[SecondaryResult]:
    """Every configuration × presentation McNemar test, Holm-adjusted together."""
    skipped = {q.configuration: q.skipped for q in qualification}
    rows = []
    for configuration in family:
        for presentation in PRESENTATIONS:
            n, cue, control, forward, reverse = discordances(panel, configuration, presentation)
            rows.append(
                {
                    "configuration": configuration,
                    "presentation": presentation,
                    "n_pairs": n,
                    "cue_accepted": cue,
                    "control_accepted": control,
                    "forward": forward,
                    "reverse": reverse,
                    "skipped": skipped[configuration],
                    "p_raw": 1.0 if skipped[configuration] else mcnemar_exact(forward, reverse),
                }
            )
    adjusted = holm([r["p_raw"] for r in rows]).tolist() if rows else []
    return [
        SecondaryResult.model_validate({**r, "p_holm": float(p)})
        for r, p in zip(rows, adjusted, strict=True)
    ]
