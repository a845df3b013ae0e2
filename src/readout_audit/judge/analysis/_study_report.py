"""Report sections of the robustness studies: decomposition, repeat panel, pilot, switch."""

from __future__ import annotations

from collections.abc import Sequence

from readout_audit.judge.analysis._contrasts import ContrastTest, StudyCellCount, StudyGate
from readout_audit.judge.analysis._decomposition import DecompositionAnalysis
from readout_audit.judge.analysis._pilot import PilotAnalysis
from readout_audit.judge.analysis._repeat import RepeatAnalysis
from readout_audit.judge.analysis._slopes import SlopeCheck
from readout_audit.judge.analysis._switch import SwitchAnalysis, SwitchComparison
from readout_audit.report import MISSING, Section, TableBlock, fmt


def pp(value: float | None) -> str:
    """A proportion (or D-scale value) in signed percentage points."""
    return MISSING if value is None else f"{100 * value:+.2f}"


def yes(value: bool | None) -> str:
    """yes, no, or the missing mark."""
    return MISSING if value is None else ("yes" if value else "no")


def gate_mark(qualified: bool | None) -> str:
    """A test's standing from its configuration's gates: qualified, unqualified, or not run."""
    if qualified is None:
        return "not run"
    return "passed" if qualified else "failed: unqualified"


def _scaled(value: float | None, reading: str) -> str:
    return pp(value) if reading == "accepted" else fmt(value)


GATES_NOTE = (
    " Gates: whether the configuration passed every clean control; a test on one that failed "
    "is unqualified, and one not run keeps p = 1."
)


def family_table(
    title: str, tests: Sequence[ContrastTest], note: str, *, gated: bool = True
) -> TableBlock:
    """One family: estimate, interval, discordances, bounds, method, raw and Holm p, gates.

    ``gated``: the study has clean-control gates (the decomposition has none).
    """
    columns = [
        "test",
        "estimate [95%]",
        "complete / planned",
        "B/C",
        "panel bounds",
        "method",
        "p",
        "Holm p",
    ]
    rows = [
        [
            t.slot,
            f"{_scaled(t.estimate, t.reading)} "
            f"[{_scaled(t.low, t.reading)}, {_scaled(t.high, t.reading)}]",
            f"{sum(t.n_complete.values())}/{sum(t.n_planned.values())}",
            MISSING if t.forward is None else f"{t.forward}/{t.reverse}",
            MISSING
            if t.bounds is None
            else f"[{_scaled(t.bounds[0], t.reading)}, {_scaled(t.bounds[1], t.reading)}]",
            t.method,
            fmt(t.p_raw),
            fmt(t.p_holm),
            *([gate_mark(t.qualified)] if gated else []),
        ]
        for t in tests
    ]
    if gated:
        return TableBlock(title, [*columns, "gates"], rows, note=note + GATES_NOTE)
    return TableBlock(title, columns, rows, note=note)


def _gates_table(gates: Sequence[StudyGate]) -> TableBlock:
    return TableBlock(
        "Clean gates (missing verdicts count against them)",
        ["configuration", "control", "right / planned", "required", "passed"],
        [
            [g.configuration, g.cell, f"{g.right}/{g.planned}", str(g.required), yes(g.passed)]
            for g in gates
        ],
    )


def _cells_table(title: str, cells: Sequence[StudyCellCount]) -> TableBlock:
    return TableBlock(
        title,
        ["configuration", "cell", "accepted / answered", "planned", "mean positive score"],
        [
            [
                c.configuration,
                c.cell,
                f"{c.accepted}/{c.observed}",
                str(c.planned),
                fmt(c.mean_score),
            ]
            for c in cells
        ],
        note="Cell p.b: earlier line p (x the reference value, z a constructed wrong one), "
        "bridge b, and a wrong final value: every cue candidate's required verdict is negative.",
    )


UNITS = "Verdict contrasts in percentage points, score contrasts on the probability scale."


def decomposition_section(found: DecompositionAnalysis) -> Section:
    """Both families, the acceptance table, the witnesses."""
    witnesses = TableBlock(
        "Witnesses (the first source by id of each kind)",
        ["judge", "kind", "source", "displayed positive scores"],
        [
            [w.judge, w.kind, w.source, ", ".join(f"{c} {fmt(p)}" for c, p in w.scores.items())]
            for w in found.witnesses
        ],
    )
    return Section(
        "Decomposition study",
        [
            family_table(
                "Primary family: I_HALL(Actual) and the reference-field change",
                found.primary,
                "Centred source bootstrap (49,999 draws within datasets, equal weights; the "
                "Hoeffding fallback when every sample is constant), Holm over the family. " + UNITS,
                gated=False,
            ),
            family_table(
                "Secondary family: seventeen cue and formatting contrasts",
                found.secondary,
                "Same test; Holm over the seventeen contrasts of every judge.",
                gated=False,
            ),
            _cells_table("Acceptance per contract and cell", found.cells),
            witnesses,
        ],
    )


def _passes_table(found: RepeatAnalysis) -> TableBlock:
    """Each configuration and cell's acceptances and answers per pass."""
    return TableBlock(
        "Acceptances per pass",
        ["configuration", "cell", "accepted per pass", "answered per pass", "planned"],
        [
            [
                p.configuration,
                p.cell,
                ", ".join(map(str, p.accepted)),
                ", ".join(map(str, p.observed)),
                str(p.planned),
            ]
            for p in found.passes
        ],
    )


def _patterns_table(found: RepeatAnalysis) -> TableBlock:
    """How often each three-pass verdict pattern of R: with X occurs."""
    return TableBlock(
        "Three-pass patterns of R: with X (T: accepted, F: rejected, ?: no verdict)",
        ["configuration", "patterns"],
        [[c, ", ".join(f"{k} {v}" for k, v in rows.items())] for c, rows in found.patterns.items()],
    )


def _agreement_table(found: RepeatAnalysis) -> TableBlock:
    """Agreement between calls of identical bodies, fixtures included."""
    return TableBlock(
        "Within-request agreement (identical bodies, later minus first call)",
        [
            "configuration",
            "cell",
            "groups",
            "same verdict",
            "same probabilities",
            "mean |change|",
            "mean change",
            "up / tie / down",
        ],
        [
            [
                a.configuration,
                a.cell,
                str(a.groups),
                str(a.same_verdict),
                str(a.same_probs),
                fmt(a.mean_abs_change),
                fmt(a.mean_change),
                f"{a.increases}/{a.ties}/{a.decreases}",
            ]
            for a in [*found.agreement, *found.fixtures]
        ],
        note="Fixture rows: the first source's clean controls at the opening and the closing of "
        "the stream.",
    )


def _counts(*counts: int | None) -> str:
    """Counts joined by slashes, or the missing mark where a summary predates them."""
    return MISSING if None in counts else "/".join(str(c) for c in counts)


def _shift_table(found: RepeatAnalysis) -> TableBlock:
    """The paired first-pass score shift of R: over R with X."""
    return TableBlock(
        "Paired score shift of R: over R with X (first pass)",
        [
            "configuration",
            "pairs",
            "weighted mean [95%]",
            "pooled",
            "median",
            "up / tie / down",
            "up among rejected both",
            "controls at 0",
            "above 0: up / tie / down",
            "mean gap change",
        ],
        [
            [
                s.configuration,
                str(s.pairs),
                f"{fmt(s.mean)} [{fmt(s.low)}, {fmt(s.high)}]",
                fmt(s.pooled),
                fmt(s.median),
                f"{s.rises}/{s.ties}/{s.falls}",
                f"{s.rises_rejected_both}/{s.rejected_both}",
                str(s.control_at_zero),
                _counts(s.rises_above_floor, s.ties_above_floor, s.falls_above_floor),
                fmt(s.mean_gap_change),
            ]
            for s in found.shift
        ],
        note="Planned-share dataset weights; the interval is pointwise and unadjusted "
        "(secondary). Above 0: the pairs whose control displays a score above zero. "
        "Gap g = p_c − max(p_i, p_n).",
    )


def repeat_section(found: RepeatAnalysis) -> Section:
    """Gates, families, per-pass counts, patterns, agreement and the score shift."""
    return Section(
        "Repeat panel",
        [
            _gates_table(found.gates),
            family_table(
                "Primary family: punctuation excess and prefix-by-punctuation interaction",
                found.primary,
                "Exact McNemar on pooled first-pass discordances; the interaction by the centred "
                "stratified bootstrap. Holm over every configuration. " + UNITS,
            ),
            family_table(
                "Secondary family (exact McNemar)", found.secondary, "Holm over the family."
            ),
            _passes_table(found),
            _patterns_table(found),
            _agreement_table(found),
            _shift_table(found),
        ],
    )


def pilot_section(found: PilotAnalysis) -> Section:
    """Gates, T, its cell means, acceptances and the descriptive McNemar test."""
    means = TableBlock(
        "Cell means of displayed p(correct) over complete blocks (they reconstruct T)",
        ["configuration", "cell", "mean", "complete blocks"],
        [
            [
                m.configuration,
                m.cell,
                fmt(m.mean),
                ", ".join(f"{d} {n}" for d, n in m.blocks.items()),
            ]
            for m in found.cell_means
        ],
    )
    return Section(
        "Formatting pilot",
        [
            _gates_table(found.gates),
            family_table(
                "Primary family: T = [(R: − R) − (colon − blank)]_X − [same]_Z",
                found.primary,
                "Displayed p(correct), final value wrong in all eight cells; centred source "
                "bootstrap with equal dataset weights, Holm over the configurations.",
            ),
            means,
            _cells_table("Acceptance per cell", found.cells),
            family_table(
                "Descriptive: R: against R with X (exact McNemar, outside the family)",
                found.descriptive,
                "Not adjusted.",
            ),
        ],
    )


def _switch_gates_table(switch: SwitchAnalysis) -> TableBlock:
    """The clean controls: a bare final value under each reference."""
    return TableBlock(
        "Clean controls (a bare final value under each reference)",
        ["configuration", "cell", "right / planned", "required", "passed"],
        [
            [g.configuration, g.cell, f"{g.right}/{g.planned}", str(g.required), yes(g.passed)]
            for g in switch.gates
        ],
        note="Cell final_v@w: the final value v (x or y) where the reference assigns w's value.",
    )


def _directional_table(switch: SwitchAnalysis) -> TableBlock:
    """The directional family with S, per configuration and comparison."""
    return TableBlock(
        "Directional tests: the cue raises q_c under reference X and lowers it under Y",
        [
            "configuration",
            "comparison",
            "mean d_X (pp)",
            "mean d_Y (pp)",
            "both directions",
            "p (X up)",
            "p (Y down)",
            "IUT p",
            "Holm p",
            "gates",
            "S (nats) [95%]",
        ],
        [
            [
                c.configuration,
                c.comparison,
                pp(c.mean_d_x),
                pp(c.mean_d_y),
                f"{c.both_directions}/{c.test.n}" if c.test.n else "not run",
                fmt(c.test.p_increase),
                fmt(c.test.p_decrease),
                fmt(c.test.p_raw),
                fmt(c.test.p_holm),
                gate_mark(c.qualified),
                f"{fmt(c.log_ratio.estimate)} [{fmt(c.log_ratio.low)}, {fmt(c.log_ratio.high)}]",
            ]
            for c in switch.comparisons
        ],
        note="q_c = p_c / (p_c + p_i); d per source: cue minus control, averaged over both "
        "passes. Exact one-sided sign flips over the sources, their maximum (intersection-union), "
        "Holm over every configuration x comparison of the inventory; a comparison with an "
        "unresolved source, or of a configuration not run, has p = 1. Gates: a test of a "
        "configuration that failed a clean control is unqualified. S: half the difference of the "
        "log(p_c / p_i) effects across the two worlds "
        "(sources where every score is finite), 20,000-draw source bootstrap.",
    )


NO_SPREAD = "undefined (no spread in the control margin)"


def _slopes_row(c: SwitchComparison, slopes: SlopeCheck) -> list[str]:
    """One comparison's slope check; a slope without spread in m, and its contrast, say so."""
    flat = set(slopes.no_spread)

    def cell(text: str, *needs: str) -> str:
        return NO_SPREAD if flat.intersection(needs) else text

    return [
        c.configuration,
        c.comparison,
        str(slopes.n),
        cell(fmt(slopes.within_x), "within_x"),
        cell(fmt(slopes.within_y), "within_y"),
        cell(fmt(slopes.between), "between"),
        cell(
            f"{fmt(slopes.contrast_x)} [{fmt(slopes.contrast_x_low)}, "
            f"{fmt(slopes.contrast_x_high)}]",
            "within_x",
            "between",
        ),
        cell(
            f"{fmt(slopes.contrast_y)} [{fmt(slopes.contrast_y_low)}, "
            f"{fmt(slopes.contrast_y_high)}]",
            "within_y",
            "between",
        ),
    ]


def _slopes_table(switch: SwitchAnalysis) -> TableBlock:
    """The post-hoc slope check of each comparison that has one."""
    return TableBlock(
        "Slope check (post-hoc): does one affine map of the control margin explain both worlds?",
        [
            "configuration",
            "comparison",
            "sources",
            "within X",
            "within Y",
            "between",
            "X − between [95%]",
            "Y − between [95%]",
        ],
        [_slopes_row(c, c.slopes) for c in switch.comparisons if c.slopes is not None],
        note="m: the control's log(p_c / p_i), D: the cue's log-ratio effect, both averaged over "
        "the passes; OLS slopes of D on m within each world and the slope joining the world "
        "means; 5,000 paired source-bootstrap draws. A slope is undefined where m has no spread "
        "(every margin of a world equal, or equal world means), as scipy's linregress refuses "
        "it; bootstrap draws without spread are left out of the intervals.",
    )


def _accepted_table(switch: SwitchAnalysis) -> TableBlock:
    """Acceptances per cue cell and configuration."""
    names = list(switch.accepted)
    cells = sorted({cell for row in switch.accepted.values() for cell in row})
    return TableBlock(
        "Accepted (verdict correct) per cue cell",
        ["cell", *names],
        [[cell, *(str(switch.accepted[n].get(cell, 0)) for n in names)] for cell in cells],
        note="Under reference X every cue candidate is incorrect (an acceptance is a false "
        "positive); under Y every one is correct.",
    )


def switch_section(switch: SwitchAnalysis) -> Section:
    """Clean controls, the directional family with S, the slope check, acceptances."""
    return Section(
        "Reference switch",
        [
            _switch_gates_table(switch),
            _directional_table(switch),
            _slopes_table(switch),
            _accepted_table(switch),
        ],
    )
