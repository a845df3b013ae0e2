"""Report sections of a judge run; the terminal and HTML renderers draw the same data.

Gates and qualification, the primary interaction with its family, the secondary McNemar family,
acceptance per cell, duplicate requests, displayed scores and label mass.
"""

from __future__ import annotations

from readout_audit.judge.analysis._gates import CellCount
from readout_audit.judge.analysis._primary import PrimaryResult
from readout_audit.judge.analysis._study_report import pp, yes
from readout_audit.judge.analysis._summary import JudgeSummary
from readout_audit.judge.protocol import CONTROL_CELLS, FIXTURE_CELLS, JudgeRecord
from readout_audit.log import Run
from readout_audit.report import MISSING, Block, FigureBlock, Section, TableBlock, fmt, plot


def _share(accepted: int, observed: int, planned: int) -> str:
    """``a/n``, with the planned count when some requests have no verdict."""
    return f"{accepted}/{observed}" + (f" of {planned}" if observed < planned else "")


def _gate_cell(count: CellCount) -> str:
    needed = "" if count.required is None else f" (≥ {count.required})"
    return f"{count.right}/{count.planned}{needed}"


def _gates_section(summary: JudgeSummary) -> Section:
    blocks: list[Block] = []
    for phase in ("preflight", "confirmation"):
        gates = [g for g in summary.gates if g.phase == phase]
        if not gates:
            continue
        fixtures = list(FIXTURE_CELLS) if phase == "preflight" else []
        rows = [
            [
                g.configuration,
                g.presentation,
                *(_gate_cell(c) for c in g.controls),
                *(_gate_cell(c) for c in g.fixtures if c.cell in fixtures),
                str(g.n_unparsed),
                "pass" if g.passed else "FAIL",
            ]
            for g in gates
        ]
        blocks.append(
            TableBlock(
                f"Control gates, {phase} (right / planned; missing verdicts count against)",
                ["configuration", "presentation", *CONTROL_CELLS, *fixtures, "no verdict", "gate"],
                rows,
                note="Needed: ⌊95% n⌋ right on the first three controls, ⌊90% n⌋ on revision"
                + (
                    "; preflight also needs every response parsed; fixtures do not gate."
                    if fixtures
                    else "."
                ),
            )
        )
    blocks.append(
        TableBlock(
            "Qualification (both presentations)",
            ["configuration", "preflight", "confirmation", "skipped (p = 1)", "competent"],
            [
                [
                    q.configuration,
                    yes(q.preflight),
                    yes(q.confirmation),
                    yes(q.skipped),
                    yes(q.competent),
                ]
                for q in summary.qualification
            ],
        )
    )
    return Section("Gates and qualification", blocks)


def _complete(result: PrimaryResult) -> str:
    return ", ".join(
        f"{d} {result.test.n_complete.get(d, 0)}/{n}" for d, n in result.n_planned.items()
    )


def _primary_section(summary: JudgeSummary) -> Section:
    rows = []
    for r in summary.primary:
        t = r.test
        bounds = MISSING if r.bounds is None else f"[{pp(r.bounds[0])}, {pp(r.bounds[1])}]"
        interval = MISSING if t.low is None else f"[{pp(t.low)}, {pp(t.high)}] {t.method}"
        rows.append(
            [
                r.configuration,
                _complete(r),
                pp(t.estimate),
                pp(t.pooled),
                interval,
                fmt(r.p_raw),
                fmt(r.p_holm),
                bounds,
                yes(r.competent),
                yes(r.success),
            ]
        )
    weights = {k: v for r in summary.primary for k, v in r.test.weights.items()}
    table = TableBlock(
        "D = [V(sorted, R:) − V(sorted, R)] − [V(insertion, R:) − V(insertion, R)], in pp",
        [
            "configuration",
            "complete / planned",
            "θ̂ (weighted)",
            "pooled mean",
            "95% interval",
            "p",
            "Holm p",
            "planned-panel bounds",
            "competent",
            "success",
        ],
        rows,
        note=f"θ̂ = Σ w_d mean_d D with weights {weights}; p: two-sided null-centred source "
        f"bootstrap ({summary.settings.n_boot} draws within datasets, per-configuration seeds "
        f"{ {r.configuration: r.seed for r in summary.primary} }), or the Hoeffding fallback "
        f"when every dataset's sample is constant; Holm over the {len(summary.primary)} "
        "configurations of the inventory (p = 1 for a skipped one and for one this run holds "
        "no records of); success = Holm p < "
        f"{summary.settings.alpha} and competent. Bounds: the full planned panel with every "
        "unresolved indicator at 0 and at 1.",
    )
    spread = {
        r.configuration: (r.test.estimate, r.test.low, r.test.high)
        for r in summary.primary
        if r.test.estimate is not None and r.test.low is not None and r.test.high is not None
    }
    blocks: list[Block] = [table]
    if spread:
        blocks.append(
            FigureBlock(
                "Primary interaction",
                plot("intervals", spread, "θ̂ with its 95% interval (D scale)", True),
            )
        )
    return Section("Primary interaction", blocks)


def _secondary_section(summary: JudgeSummary) -> Section:
    rows = [
        [
            s.configuration,
            s.presentation,
            str(s.n_pairs),
            str(s.cue_accepted),
            str(s.control_accepted),
            f"{s.forward}/{s.reverse}",
            pp(s.excess),
            fmt(s.p_raw),
            fmt(s.p_holm),
        ]
        for s in summary.secondary
    ]
    table = TableBlock(
        "R: against R within each presentation (paired discordances)",
        [
            "configuration",
            "presentation",
            "pairs",
            "R: accepted",
            "R accepted",
            "forward/reverse",
            "excess (pp)",
            "exact McNemar p",
            "Holm p",
        ],
        rows,
        note=f"Forward: R: accepted and R not; reverse: the opposite. Holm over the "
        f"{len(summary.secondary)} tests of this family (separate from the primary family).",
    )
    return Section("Secondary family", [table])


def _acceptance_section(summary: JudgeSummary) -> Section:
    blocks: list[Block] = []
    keys = dict.fromkeys((a.phase, a.configuration) for a in summary.acceptance)
    for phase, configuration in keys:
        mine = [
            a for a in summary.acceptance if (a.phase, a.configuration) == (phase, configuration)
        ]
        groups = list(dict.fromkeys(a.group for a in mine))
        cells = {(a.cell, a.presentation, a.group): a for a in mine}
        lines = list(dict.fromkeys((a.cell, a.presentation) for a in mine))
        rows = [
            [
                cell,
                presentation,
                *(
                    _share(c.accepted, c.observed, c.planned)
                    if (c := cells.get((cell, presentation, g))) is not None
                    else MISSING
                    for g in groups
                ),
            ]
            for cell, presentation in lines
        ]
        blocks.append(
            TableBlock(
                f"{configuration}, {phase}: accepted / with a verdict",
                ["cell", "presentation", *groups],
                rows,
            )
        )
    return Section("Acceptance per cell", blocks)


def _duplicates_section(summary: JudgeSummary) -> Section:
    rows = [
        [
            d.configuration,
            d.presentation,
            d.cell,
            f"{d.primary_accepted}/{d.primary_observed}",
            f"{d.repeat_accepted}/{d.repeat_observed}",
            str(d.n_pairs),
            str(d.accepted_both),
            str(d.changed),
        ]
        for d in summary.duplicates
    ]
    table = TableBlock(
        "Primary and identical-body repeat requests",
        [
            "configuration",
            "presentation",
            "cell",
            "primary accepted",
            "repeat accepted",
            "pairs",
            "accepted in both",
            "sources that changed",
        ],
        rows,
        note="Repeats are nested within sources: no extra sample size and no test family.",
    )
    return Section("Duplicate requests", [table])


def _scores_section(summary: JudgeSummary) -> Section:
    interaction = TableBlock(
        "Displayed-score interaction (the four signed terms of D on p(positive label))",
        ["configuration", "complete", "weighted mean", "pooled mean"],
        [
            [
                s.configuration,
                ", ".join(f"{k} {n}" for k, n in s.n_complete.items()),
                fmt(s.weighted_mean),
                fmt(s.pooled_mean),
            ]
            for s in summary.score_interactions
            if s.pooled_mean is not None
        ],
    )
    changes = TableBlock(
        "R: − R per source within a presentation",
        [
            "configuration",
            "presentation",
            "reading",
            "pairs",
            "undefined",
            "weighted mean",
            "pooled mean",
            "median",
            "up / down / tie",
        ],
        [
            [
                c.configuration,
                c.presentation,
                c.quantity,
                str(c.n),
                str(c.n_undefined),
                fmt(c.weighted_mean),
                fmt(c.pooled_mean),
                fmt(c.median),
                f"{c.n_up} / {c.n_down} / {c.n_tie}",
            ]
            for c in summary.paired_changes
            if c.n
        ],
        note="p_c = p(positive label); q_c = p_c / (p_c + p_i); log_ratio = log(p_c / p_i) where "
        "both are positive; gap = p_c − the strongest other label. Descriptive only; "
        "configurations that return no probabilities are left out.",
    )
    blocks: list[Block] = [interaction, changes]
    if summary.crossings:
        thresholds = summary.crossings[0].thresholds
        blocks.append(
            TableBlock(
                "Threshold crossings of p_c from R to R: (up / down, weighted share of sources)",
                [
                    "configuration",
                    "presentation",
                    "pairs",
                    *(f"t={t:g}" for t in thresholds),
                    "area = mean shift",
                ],
                [
                    [
                        c.configuration,
                        c.presentation,
                        str(c.n),
                        *(f"{u:.3f} / {d:.3f}" for u, d in zip(c.up, c.down, strict=True)),
                        f"{c.area:+.4f}",
                    ]
                    for c in summary.crossings
                ],
            )
        )
    return Section("Displayed scores", blocks)


def _mass_section(run: Run[JudgeRecord], summary: JudgeSummary) -> Section:
    rows = [
        [
            m.configuration,
            str(m.n_measured),
            fmt(m.median),
            fmt(m.min),
            f"{m.n_below_floor} ({m.share_below:.1%})",
        ]
        for m in summary.label_mass
        if m.n_measured
    ]
    masses: dict[str, list[float]] = {}
    for r in run.records:
        if r.label_mass is not None:
            masses.setdefault(r.configuration, []).append(r.label_mass)
    floor = summary.label_mass[0].floor
    return Section(
        "Label mass (local judges)",
        [
            TableBlock(
                f"Next-token mass on the labels' first tokens (floor {floor})",
                ["configuration", "measured", "median", "min", "below the floor"],
                rows,
            ),
            FigureBlock("Label mass", plot("mass_distribution", masses, "Label mass per record")),
        ],
    )


def table_sections(run: Run[JudgeRecord], summary: JudgeSummary) -> list[Section]:
    """The sections of the summary's own tables (a study's section aside), those with data."""
    sections = [_gates_section(summary)] if summary.gates else []
    if summary.primary:
        sections += [_primary_section(summary), _secondary_section(summary)]
    if summary.acceptance:
        sections.append(_acceptance_section(summary))
    if summary.duplicates:
        sections.append(_duplicates_section(summary))
    if any(c.n for c in summary.paired_changes):
        sections.append(_scores_section(summary))
    if any(m.n_measured for m in summary.label_mass):
        sections.append(_mass_section(run, summary))
    return sections
