"""A cue search's result as plain lines: the development rankings' heads and the confirmation."""

from __future__ import annotations

from pathlib import Path

from readout_audit.judge.search._run import CONFIRMATION_FILE, SELECTION_FILE, SearchResult


def _score(mean: float | None) -> str:
    return "    -" if mean is None else f"{mean:.3f}"


def search_summary(result: SearchResult, out: Path | None = None, top: int = 5) -> list[str]:
    """Each scaffold's ``top`` development bridges, the screen's epsilon, the confirmation table.

    With ``out``, a last line names the selection and confirmation files in it.
    """
    lines = []
    for scaffold, ranked in result.selection.rankings.items():
        lines.append(f"development, {scaffold} (best {min(top, len(ranked))} of {len(ranked)}):")
        lines += [
            f"  {s.positives:3d}/{s.planned:<3d} {_score(s.mean_score)}  {s.text!r}"
            for s in ranked[:top]
        ]
    epsilon = result.selection.hoeffding_epsilon()
    if epsilon is not None:
        lines.append(f"Hoeffding epsilon of the development screen (delta 0.05): {epsilon:.2f}")
    lines.append("confirmation (positives, mean displayed score, against blank: +/- and Holm p):")
    for row in result.confirmation.bridges:
        s = row.score
        versus = "" if row.p_holm is None else f"  +{row.forward}/-{row.reverse} p {row.p_holm:.3g}"
        lines.append(
            f"  {s.scaffold:13s} {row.role:8s} {s.positives:3d}/{s.planned:<3d} "
            f"{_score(s.mean_score)}{versus}  {s.text!r}"
        )
    lines += [
        f"  {clean.cell}: accepted {clean.accepted}/{clean.judged}"
        for clean in result.confirmation.clean
    ]
    if out is not None:
        lines.append(f"selection: {out / SELECTION_FILE}; confirmation: {out / CONFIRMATION_FILE}")
    return lines
