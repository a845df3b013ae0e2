"""Report sections of a lift run; the terminal and HTML renderers draw the same data.

Toy check, control ladder, forecast lift with its advantages and adjacent contrasts, scoring
rules, target windows, and examples side by side (the true target and each forecast after
the same visible text).
"""

from __future__ import annotations

from readout_audit.lift._conditions import CONTEXT, EMPTY, SFT
from readout_audit.lift._lift_stats import Contrast
from readout_audit.lift._record import LiftRecord
from readout_audit.lift._report_analyses import (
    distribution_section,
    effort_section,
    hardest_section,
    plus_minus,
    recovery_table,
)
from readout_audit.lift._summary import LiftSummary, condition_rank, versus
from readout_audit.log import Run
from readout_audit.report import MISSING, Block, FigureBlock, Section, TableBlock, plot

CUT_MARK = " ⟦cut⟧ "


def _p(value: float | None) -> str:
    if value is None:
        return MISSING
    return "<0.001" if value < 1e-3 else f"{value:.3f}"


def _spread(c: Contrast) -> tuple[float, float, float]:
    """(mean, low, high) for a forest plot; a single paper's mean has no interval."""
    if c.low is None or c.high is None:
        return (c.mean, c.mean, c.mean)
    return (c.mean, c.low, c.high)


def _contrast_cells(c: Contrast) -> list[str]:
    if c.se is None or c.low is None or c.high is None:
        spread = [MISSING, MISSING]
    else:
        spread = [f"{c.se:.3f}", f"[{c.low:+.3f}, {c.high:+.3f}]"]
    return [
        f"{c.mean:+.3f}",
        *spread,
        f"{c.positive:.3f}",
        MISSING if c.median is None else f"{c.median:+.3f}",
        _p(c.p_value),
        str(c.n_cuts),
        str(c.n_papers),
    ]


CONTRAST_COLUMNS = ["mean", "SE", "± 2 SE", "frac. +", "median", "p (normal)", "cuts", "papers"]


def _toy_section(summary: LiftSummary) -> Section:
    rows = [
        [r.case, r.condition, f"{r.raw:.3f}", f"{r.clip2:.3f}", f"{r.vs_empty:+.3f}"]
        for r in summary.toy
    ]
    table = TableBlock(
        "Toy cases (appendix A): the true target after each forecast",
        ["case", "condition", "raw", "clipLL_2", "vs. empty"],
        rows,
        note="The exact forecast should score near the maximum (0) and beat the empty scaffold "
        "and the context-only condition; the paper's 8B scorers give about −0.01.",
    )
    recovery = recovery_table(summary)
    return Section("Toy check", [table] if recovery is None else [table, recovery])


def _sft_note(summary: LiftSummary) -> str | None:
    """Where the SFT rung was read: the held-out papers' cuts only."""
    row = next((r for r in summary.ladder if r.condition == SFT), None)
    if row is None:
        return None
    dropped = (
        f" ({summary.sft_dropped} held-out cuts dropped: a training example holds their target)"
        if summary.sft_dropped
        else ""
    )
    return (
        f"{SFT}: the context-only fine-tuned scorer, read on the {row.vs_reference.n_cuts} cuts "
        f"of {row.vs_reference.n_papers} papers held out from its training{dropped}; each row "
        "is paired with the empty scaffold on its own cuts."
    )


def _ladder_section(summary: LiftSummary) -> Section:
    rows = [
        [
            r.condition,
            f"{r.mean:.3f}",
            *_contrast_cells(r.vs_reference)[:3],
            str(r.vs_reference.n_cuts),
        ]
        for r in summary.ladder
    ]
    blocks: list[Block] = [
        TableBlock(
            f"Control ladder ({summary.rule}, paired against the empty scaffold)",
            ["condition", "mean", "vs. empty", "SE", "± 2 SE", "cuts"],
            rows,
            note=_sft_note(summary),
        ),
        FigureBlock(
            "Control ladder",
            plot(
                "intervals",
                {r.condition: _spread(r.vs_reference) for r in summary.ladder},
                "clipLL_2 lift over the empty scaffold (± 2 paper-clustered SE)",
                True,
            ),
        ),
    ]
    if summary.over_controls:
        blocks.append(
            TableBlock(
                "Lift of each condition over each control",
                ["contrast", *CONTRAST_COLUMNS],
                [[f"{a.a} − {a.b}", *_contrast_cells(a.contrast)] for a in summary.over_controls],
            )
        )
    return Section("Control ladder", blocks)


def _forecast_section(summary: LiftSummary) -> Section:
    lift = TableBlock(
        f"Forecast lift over the same-budget recent context ({CONTEXT}), {summary.rule}",
        ["setting", *CONTRAST_COLUMNS, "clipLL_2 ≥ −0.10"],
        [
            [t.setting, *_contrast_cells(t.lift), f"{t.near_maximum.fraction:.3f}"]
            for t in summary.settings
        ],
    )
    advantages = TableBlock(
        "Paired forecast advantages",
        ["contrast", *CONTRAST_COLUMNS],
        [
            [f"{a.a} − {a.b}", *_contrast_cells(a.contrast)]
            for t in summary.settings
            for a in t.advantages
        ],
    )
    blocks: list[Block] = [lift, advantages]
    if summary.adjacent:
        blocks.append(
            TableBlock(
                "Adjacent predictor settings (paired by cut)",
                ["contrast", *CONTRAST_COLUMNS],
                [[f"{a.a} − {a.b}", *_contrast_cells(a.contrast)] for a in summary.adjacent],
            )
        )
    return Section("Forecast lift", blocks)


def _rules_section(summary: LiftSummary) -> Section:
    rules = [r.rule for r in summary.settings[0].rules]
    cells = {(t.setting, r.rule): plus_minus(r.lift) for t in summary.settings for r in t.rules}
    table = TableBlock(
        "Forecast lift over recent context under each scoring rule (mean ± SE)",
        ["rule", *(t.setting for t in summary.settings)],
        [[rule, *(cells[(t.setting, rule)] for t in summary.settings)] for rule in rules],
        note="raw: mean log-probability; clipN: max(λ, −N); sqrt: −√(−λ); log1p: −log(1 − λ).",
    )
    return Section("Scoring rules", [table])


def _windows_section(summary: LiftSummary) -> Section:
    windows = [w.window for w in summary.settings[0].windows]
    cells = {(t.setting, w.window): plus_minus(w.lift) for t in summary.settings for w in t.windows}
    curves = {
        t.setting: [(w.window, w.lift.mean, w.lift.se or 0.0) for w in t.windows]
        for t in summary.settings
    }
    return Section(
        "Target windows",
        [
            TableBlock(
                "Forecast lift on the first N target tokens (mean ± SE)",
                ["setting", *(str(w) for w in windows)],
                [[t.setting, *(cells[(t.setting, w)] for w in windows)] for t in summary.settings],
            ),
            FigureBlock(
                "Lift by target window",
                plot("window_curves", curves, "Lift by scored target window"),
            ),
        ],
    )


def _example_scores(cut_id: str, scores: dict[str, float]) -> TableBlock:
    """Appendix C's score table: each condition's clipLL_2, against empty and recent context."""

    def shown(name: str, reference: str) -> str:
        difference = versus(scores, name, reference)
        return MISSING if difference is None else f"{difference:+.3f}"

    return TableBlock(
        f"{cut_id}: scores",
        ["condition", "clipLL_2", "vs. empty", f"vs. {CONTEXT}"],
        [
            [name, f"{value:.3f}", shown(name, EMPTY), shown(name, CONTEXT)]
            for name, value in sorted(scores.items(), key=lambda item: condition_rank(item[0]))
        ],
    )


def _examples_section(summary: LiftSummary) -> Section:
    blocks: list[Block] = []
    for example in summary.examples:
        tail = "…" + example.visible_tail[-80:]
        rows = [["paper", tail + CUT_MARK + example.target]]
        rows += [
            [f"{setting} ({example.lifts[setting]:+.3f})", tail + CUT_MARK + z]
            for setting, z in example.forecasts.items()
        ]
        blocks.append(
            TableBlock(
                f"{example.cut_id} ({example.paper})",
                ["text", "continuation"],
                rows,
                wrap=("continuation",),
            )
        )
        if example.scores:
            blocks.append(_example_scores(example.cut_id, example.scores))
    return Section("Examples (a seeded sample; lift of each forecast over recent context)", blocks)


def lift_sections(run: Run[LiftRecord], summary: LiftSummary) -> list[Section]:
    """The lift report's sections, those with data."""
    sections = []
    if summary.toy:
        sections.append(_toy_section(summary))
    if summary.ladder:
        sections.append(_ladder_section(summary))
    if summary.settings:
        sections += [_forecast_section(summary), _rules_section(summary), _windows_section(summary)]
    if summary.distributions:
        sections.append(distribution_section(summary))
    sections += [
        found for found in (effort_section(summary), hardest_section(summary)) if found is not None
    ]
    if summary.examples:
        sections.append(_examples_section(summary))
    return sections
