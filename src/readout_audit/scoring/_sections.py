"""Report sections of a generic scoring run."""

from __future__ import annotations

from readout_audit.log import Run, ScoreRecord
from readout_audit.report import (
    MISSING,
    Block,
    Section,
    TableBlock,
    browser,
    class_figure,
    clip,
    fmt,
    mass_figure,
)
from readout_audit.scoring._summary import ScoreSummary

RECORD_ROWS = 50
"""Runs with at most this many records list every record."""

_ENDING_MARK = {"newline": "\\n", "space": "space", "none": "NONE"}


def _chosen(record: ScoreRecord) -> str:
    probs = record.option_probs
    if probs is None:
        return MISSING
    best = max(range(len(record.options)), key=probs.__getitem__)
    return f"{record.options[best]!r} {probs[best]:.2f}"


def records_table(records: list[ScoreRecord]) -> TableBlock:
    """One row per record: ending, option mass, argmax, first-token separability, choice, text."""
    columns = ["item", "variant", "end", "mass", "argmax (p)", "opt?", "1st tok", "chosen (p)"]
    rows = [
        [
            r.item_id,
            r.variant,
            _ENDING_MARK[r.ending],
            fmt(r.option_mass),
            f"{r.argmax_token!r} {r.argmax_prob:.2f}",
            "yes" if r.argmax_is_option else "NO",
            {True: "distinct", False: "SHARED", None: MISSING}[r.distinct_first_tokens],
            _chosen(r),
            clip(r.greedy.text, 36),
        ]
        for r in records
    ]
    return TableBlock(
        "Scored positions",
        [*columns, "greedy continuation"],
        rows,
        "end: what the rendered context ends with; mass: the options' share of the next-token "
        "probability; opt?: whether the argmax is an option's first token; 1st tok: whether the "
        "options' first tokens differ; chosen: the option with the highest renormalised "
        "likelihood.",
    )


def score_sections(run: Run[ScoreRecord], summary: ScoreSummary) -> list[Section]:
    """Generic scoring: the records (short runs), per-variant mass, boundary, argmax, accuracy."""
    rows = []
    for name, v in summary.variants.items():
        mass = v.option_mass
        rows.append(
            [
                name,
                str(v.n),
                fmt(mass.median) + (" COLLAPSE" if mass.collapse else ""),
                fmt(mass.min),
                f"{mass.n_below_floor}/{mass.n_measured}",
                fmt(v.argmax_is_option_rate, 2),
                str(v.n_boundary_not_preserved),
                str(v.n_shared_first_tokens),
                fmt(v.accuracy, 3),
            ]
        )
    columns = ["variant", "n", "median mass", "min mass", "<0.5", "argmax is option"]
    columns += ["boundary broken", "shared first tokens", "accuracy"]
    blocks: list[Block] = [records_table(run.records)] if len(run.records) <= RECORD_ROWS else []
    blocks += [
        TableBlock(
            f"Per variant ({summary.n_records} records)",
            columns,
            rows,
            "<0.5: items whose options hold under half the probability (below the floor).",
        ),
        mass_figure(run.records, lambda r: r.variant, "variant"),
        class_figure({k: v.argmax_classes for k, v in summary.variants.items()}, "variant"),
    ]
    return [Section("Scored positions", blocks), browser(run.records)]
