"""Report sections of the lm-eval audit: lm-eval's accuracy beside the readout audit of it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from readout_audit import report as cell
from readout_audit.lmeval._record import LMEvalRecord
from readout_audit.log import Run
from readout_audit.report import Block, Section, TableBlock, browser, class_figure, mass_figure

if TYPE_CHECKING:
    from readout_audit.lmeval._summary import LMEvalSummary, TaskAudit

COLUMNS = ["task", "docs", "acc", "95% interval", "acc_norm", "by option mass", "median mass"]
COLUMNS += ["<0.5", "acc ≥0.5 / <0.5", "shared 1st token", "moved whitespace"]
REPAIRS = {"stem": "answer stem", "whitespace_kept": "after the whitespace"}


def _below(row: TaskAudit) -> str:
    """Documents below the floor out of those whose mass is read, as the mass check counts."""
    if row.share_below_floor is None:
        return "–"
    return f"{round(row.share_below_floor * row.n_mass_measured)}/{row.n_mass_measured}"


def _row(row: TaskAudit) -> list[str]:
    return [
        row.name,
        str(row.n_docs),
        cell.estimate(row.acc),
        cell.interval(row.acc),
        cell.estimate(row.acc_norm),
        cell.estimate(row.acc_by_option_mass),
        f"{cell.fmt(row.median_mass)} of {row.n_mass_measured}",
        _below(row),
        f"{cell.fmt(row.acc_above_floor, 2)} / {cell.fmt(row.acc_below_floor, 2)}",
        str(row.n_shared_first_tokens),
        str(row.n_moved_whitespace),
    ]


def _repair_rows(rows: list[TaskAudit]) -> list[list[str]]:
    return [
        [
            row.name,
            REPAIRS.get(name, name),
            str(repair.n_docs),
            cell.estimate(row.acc),
            cell.estimate(repair.acc),
            cell.interval(repair.acc),
            cell.fmt(row.median_mass),
            cell.fmt(repair.median_mass),
            cell.fmt(repair.share_below_floor, 2),
        ]
        for row in rows
        for name, repair in row.repairs.items()
    ]


def _advice_rows(rows: list[TaskAudit]) -> list[list[str]]:
    return [
        [
            row.name,
            advice.knob,
            advice.change,
            advice.acc_affected,
            f"{cell.fmt(row.median_mass)} → {cell.fmt(advice.median_mass_after)}",
            f"{cell.estimate(row.acc)} → {cell.fmt(advice.acc_after)}",
            advice.measure or "measured in this run",
        ]
        for row in rows
        for advice in row.advice
    ]


def _doubled_stems(rows: list[TaskAudit]) -> str:
    """Which tasks' contexts already end in the stem (not read with it twice), or nothing."""
    found = [f"{row.name} ({row.n_stem_in_context})" for row in rows if row.n_stem_in_context]
    if not found:
        return ""
    return (
        " The answer stem was not read where the context already ends in it (documents): "
        + ", ".join(found)
        + "."
    )


def _reproduction_rows(summary: LMEvalSummary) -> list[list[str]]:
    rows = []
    for row in summary.tasks:
        found = row.reproduction
        if found is None:
            continue
        rows.append(
            [
                row.name,
                str(found.n_compared),
                "yes" if found.reproduced else "NO",
                cell.fmt(found.max_abs_diff, 6),
                cell.fmt(found.tolerance, 6),
                str(found.n_beyond_tolerance),
                ", ".join(found.decision_changes[:8]) or "none",
                cell.fmt(found.logged_acc),
            ]
        )
    return rows


def lm_eval_sections(run: Run[LMEvalRecord], summary: LMEvalSummary) -> list[Section]:
    """Reproduction of a logged run (first), lm-eval's metrics per task and group, the browser."""
    blocks: list[Block] = [
        _audit_table(summary),
        *_advice_table(summary.tasks),
        *_repair_table([*summary.tasks, *summary.groups]),
    ]
    return [
        *_reproduction_section(summary),
        Section(
            "lm-eval tasks",
            [
                *blocks,
                mass_figure(run.records, lambda r: r.task, "task"),
                class_figure({k: v.argmax_classes for k, v in summary.variants.items()}, "variant"),
            ],
        ),
        browser(run.records),
    ]


def _reproduction_section(summary: LMEvalSummary) -> list[Section]:
    """Whether each logged task was reproduced from its log-likelihoods; none without a log."""
    reproduced = _reproduction_rows(summary)
    if not reproduced:
        return []
    return [
        Section(
            "Logged run reproduced?",
            [
                TableBlock(
                    "Re-scored against the logged log-likelihoods",
                    [
                        "task",
                        "docs",
                        "reproduced",
                        "largest |Δ|",
                        "tolerance",
                        "beyond",
                        "decision changes",
                        "logged acc",
                    ],
                    reproduced,
                    "A task that is not reproduced was scored by another model, revision, "
                    "dtype or lm-eval version than this one: the audit below describes this "
                    "model, not the logged run.",
                    wrap=("decision changes",),
                )
            ],
        )
    ]


def _audit_table(summary: LMEvalSummary) -> TableBlock:
    """lm-eval's accuracy beside the readout audit, per task and then per group."""
    rows = [_row(t) for t in summary.tasks] + [_row(g) for g in summary.groups]
    note = (
        "acc and acc_norm: lm-eval's formulas on the full-option log-likelihoods (bootstrap over "
        "documents; a group's over its tasks); by option mass: the option whose first token is "
        "most probable at lm-eval's position; median mass of N and <0.5 (k/N): over the N "
        "documents whose continuations' first tokens differ, the only ones whose mass separates "
        "the options (shared 1st token counts the others), with acc on each side of that floor; "
        "moved "
        "whitespace: documents whose context ended in whitespace that lm-eval scores as part of "
        "every continuation."
    )
    return TableBlock(
        "lm-eval's accuracy and the readout audit",
        COLUMNS,
        rows,
        note + _doubled_stems(summary.tasks),
    )


def _advice_table(tasks: list[TaskAudit]) -> list[TableBlock]:
    """The settings to change per task; none where no task needs one."""
    advice = _advice_rows(tasks)
    if not advice:
        return []
    return [
        TableBlock(
            "What to change",
            ["task", "knob", "change", "acc affected", "median mass", "acc", "measure"],
            advice,
            "Per task, the lm-eval settings to change where documents fall below the 0.5 "
            "floor or their choices share a first token: first those this run measured (by "
            "the median mass they reach), then those it could not; acc affected: documents "
            "whose acc decision changes.",
            wrap=("change", "measure"),
        )
    ]


def _repair_table(rows: list[TaskAudit]) -> list[TableBlock]:
    """What each measured repair changes per task or group; none where none was measured."""
    repairs = _repair_rows(rows)
    if not repairs:
        return []
    return [
        TableBlock(
            "What a repair changes",
            [
                "task",
                "repair",
                "docs",
                "acc",
                "acc repaired",
                "95% interval",
                "mass",
                "mass repaired",
                "<0.5 repaired",
            ],
            repairs,
            "answer stem: the stem after lm-eval's context, a space before each continuation; "
            "after the whitespace: read after the context's trailing whitespace, which "
            "lm-eval scores as part of the continuations (documents that end in it only).",
        )
    ]
