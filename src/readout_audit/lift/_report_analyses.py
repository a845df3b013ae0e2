"""The lift report's analysis sections: Table 2, Figure 2, Table 7 and section 9's slice.

Each draws one summary field: the recovery-point probabilities of the toy cases, per-cut
distributions, token use beside lift, and the hardest-slice contrasts.
"""

from __future__ import annotations

from readout_audit.lift._conditions import FORECAST
from readout_audit.lift._lift_stats import Contrast
from readout_audit.lift._summary import LiftSummary
from readout_audit.lift._toy import ORDER
from readout_audit.report import MISSING, Block, FigureBlock, Section, TableBlock, plot


def plus_minus(c: Contrast) -> str:
    """Mean ± SE (the mean alone from a single paper)."""
    return f"{c.mean:+.3f}" if c.se is None else f"{c.mean:+.3f} ± {c.se:.3f}"


def recovery_table(summary: LiftSummary) -> TableBlock | None:
    """Table 2: P(true token) at each toy case's recovery point, per forecast in the scaffold."""
    columns = [c for c in ORDER if c != "context"]
    cells = {(r.case, r.condition): r.recovery for r in summary.toy}
    if all(value is None for value in cells.values()):
        return None
    cases = list(dict.fromkeys(r.case for r in summary.toy))
    rows = [
        [case, *(MISSING if (p := cells.get((case, c))) is None else f"{p:.3f}" for c in columns)]
        for case in cases
    ]
    return TableBlock(
        "Probability of the true next token at the recovery point (appendix A, Table 2)",
        ["case", *columns],
        rows,
        note="The recovery point: where the target reaches the symbol the reordered forecast "
        "put first (B after X + A +). The paper's 8B scorers give 0.86-0.99 after the reordered "
        "forecast.",
    )


def distribution_section(summary: LiftSummary) -> Section:
    """Figure 2: per-cut lift distributions per setting; each condition's score spread."""
    lifts = [t.distribution for t in summary.settings if t.distribution is not None]
    blocks: list[Block] = []
    if lifts:
        blocks += [
            TableBlock(
                "Per-cut forecast lift over recent context (Figure 2)",
                ["setting", "cuts", "mean", "q10", "q25", "median", "q75", "q90"],
                [
                    [d.name, str(d.n_cuts), f"{d.mean:+.3f}"]
                    + [f"{d.quantiles[q]:+.3f}" for q in ("q10", "q25", "q50", "q75", "q90")]
                    for d in lifts
                ],
            ),
            FigureBlock(
                "Per-cut lift distributions",
                plot(
                    "ecdf_curves",
                    {d.name: d.values for d in lifts},
                    "Empirical CDF of per-cut lift (dashed: medians)",
                    "forecast − same-budget recent context (clipLL_2)",
                ),
            ),
        ]
    blocks.append(
        TableBlock(
            f"Per-cut scores of each condition ({summary.rule})",
            ["condition", "cuts", "mean", "q25", "median", "q75", "min", "max"],
            [
                [d.name, str(d.n_cuts), f"{d.mean:.3f}"]
                + [f"{d.quantiles[q]:.3f}" for q in ("q25", "q50", "q75")]
                + [f"{d.minimum:.3f}", f"{d.maximum:.3f}"]
                for d in summary.distributions
            ],
        )
    )
    return Section("Distributions", blocks)


def effort_section(summary: LiftSummary) -> Section | None:
    """Table 7 and Figure 1's bottom right: token use per setting beside its lift."""
    rows = [t.effort for t in summary.settings if t.effort is not None]
    if not any(r.output_tokens is not None or r.reasoning_tokens is not None for r in rows):
        return None

    def tokens(value: float | None) -> str:
        return MISSING if value is None else f"{value:.1f}"

    blocks: list[Block] = [
        TableBlock(
            "Predictor token use (Table 7)",
            ["setting", "reasoning tokens", "output tokens", "cuts reporting", "lift"],
            [
                [
                    r.setting,
                    tokens(r.reasoning_tokens),
                    tokens(r.output_tokens),
                    f"{r.reported}/{r.lift.n_cuts}",
                    plus_minus(r.lift),
                ]
                for r in rows
            ],
            note="Means over the cuts each lift uses; reasoning tokens as the predictor reports "
            "them (an API's count, or a local model's thinking block).",
        )
    ]
    points = {
        r.setting: (r.reasoning_tokens, r.lift.mean, r.lift.se or 0.0)
        for r in rows
        if r.reasoning_tokens is not None
    }
    if points:
        blocks.append(
            FigureBlock(
                "Lift against reasoning tokens",
                plot("lift_vs_tokens", points, "Lift against mean hidden reasoning tokens"),
            )
        )
    return Section("Token use", blocks)


def hardest_section(summary: LiftSummary) -> Section | None:
    """Section 9: the setting contrasts on every cut and on the selector's hardest fifth."""
    found = summary.hardest
    if found is None:
        return None
    selector = found.selector.removeprefix(FORECAST)
    rows = [
        [
            f"{c.a.removeprefix(FORECAST)} − {c.b.removeprefix(FORECAST)}"
            + (" (selected on)" if c.selected_on else ""),
            plus_minus(c.full),
            plus_minus(c.hardest),
            f"{c.hardest.positive:.3f}",
            str(c.hardest.n_cuts),
        ]
        for c in found.contrasts
    ]
    table = TableBlock(
        f"Setting contrasts on the {found.n_cuts} cuts where {selector} lifts least "
        f"(lowest {found.fraction:.0%}, lift ≤ {found.threshold:+.3f})",
        ["contrast", "all cuts", "hardest cuts", "frac. + (hardest)", "cuts"],
        rows,
        note="A post-hoc heuristic (the paper's section 9): contrasts that involve the "
        "selecting setting are biased by the selection itself.",
    )
    return Section("Hardest cuts", [table])
