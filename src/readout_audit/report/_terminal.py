"""A short terminal summary of a scoring run (rich tables)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table

from readout_audit.log._record import ScoreRecord

PLAIN: ContextVar[bool] = ContextVar("plain", default=False)
"""Set for output to logs and pipes: ASCII table borders (colour is the console's choice)."""


@contextmanager
def plain_tables(enabled: bool) -> Iterator[None]:
    """Within the block, tables get ASCII borders (for logs and pipes) when ``enabled``."""
    token = PLAIN.set(enabled)
    try:
        yield
    finally:
        PLAIN.reset(token)


def new_table(**kwargs: Any) -> Table:
    """A table in the report's style: heavy header, or plain ASCII under ``PLAIN``."""
    return Table(box=box.ASCII2 if PLAIN.get() else box.HEAVY_HEAD, **kwargs)


def _fmt_prob(value: float | None) -> str:
    if value is None:
        return "None"
    return f"{value:.4f}" if value >= 1e-3 else f"{value:.2e}"


def wide_console(console: Console) -> Console:
    """Logs and pipes get 160 columns, so table rows stay whole."""
    if console.width < 160 and not console.is_terminal:
        return Console(file=console.file, width=160)
    return console


def _clip(text: str, width: int) -> str:
    flat = text.replace("\n", "⏎")
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _chosen(record: ScoreRecord) -> str:
    if record.option_probs is None:
        return "-"
    best = max(range(len(record.options)), key=lambda i: record.option_probs[i])  # type: ignore[index]
    return f"{record.options[best]!r} {record.option_probs[best]:.2f}"


_ENDING_MARK = {"newline": "\\n", "space": "space", "none": "NONE"}


def records_table(records: Sequence[ScoreRecord]) -> Table:
    """One row per record: ending, option mass, argmax, first-token separability, choice, text."""
    table = new_table(title="Scored positions")
    table.add_column("item", no_wrap=True, overflow="ellipsis", max_width=24)
    for column in ("variant", "end", "mass", "argmax (p)", "opt?", "1st tok", "chosen (p)"):
        table.add_column(column, no_wrap=True)
    table.add_column("greedy continuation", no_wrap=True, overflow="ellipsis", max_width=36)
    for r in records:
        table.add_row(
            r.item_id,
            r.variant,
            _ENDING_MARK[r.ending],
            _fmt_prob(r.option_mass),
            f"{r.argmax_token!r} {r.argmax_prob:.2f}",
            "yes" if r.argmax_is_option else "NO",
            {True: "distinct", False: "SHARED", None: "n/a"}[r.distinct_first_tokens],
            _chosen(r),
            _clip(r.greedy.text, 36),
        )
    return table


def summary_table(summary: dict[str, Any]) -> Table:
    """Per-variant aggregates: median and minimum option mass, defects, argmax rate, accuracy."""
    table = new_table(title=f"Summary ({summary['n_records']} records)")
    for column in ("variant", "n", "median mass", "min mass", "<0.5", "boundary", "shared"):
        table.add_column(column, no_wrap=True)
    table.add_column("argmax is option", no_wrap=True)
    table.add_column("accuracy", no_wrap=True)
    for name, v in summary["variants"].items():
        mass = v["option_mass"]
        collapse = " COLLAPSE" if mass.get("collapse") else ""
        table.add_row(
            name,
            str(v["n"]),
            _fmt_prob(mass.get("median")) + collapse,
            _fmt_prob(mass.get("min")),
            f"{mass.get('n_below_floor', 0)}/{mass['n_measured']}",
            str(v["n_boundary_not_preserved"]),
            str(v["n_shared_first_tokens"]),
            f"{v['argmax_is_option_rate']:.2f}",
            "-" if v["accuracy"] is None else f"{v['accuracy']:.3f}",
        )
    return table


def print_run(
    records: Sequence[ScoreRecord], summary: dict[str, Any], console: Console | None = None
) -> None:
    """Print the per-record table (for short runs) and the summary table."""
    console = wide_console(console or Console())
    if len(records) <= 50:
        console.print(records_table(records))
    console.print(summary_table(summary))
    timing = summary.get("this_invocation")
    if timing and timing.get("items_per_s"):
        console.print(
            f"{timing['n_new_records']} new records in {timing['seconds']:.1f} s "
            f"({timing['items_per_s']:.2f} items/s, {timing['tokens_per_s']:.0f} tokens/s)"
        )


_VERDICT_STYLE = {"pass": "green", "warn": "yellow", "fail": "bold red"}


def variants_table(summary: dict[str, Any]) -> Table:
    """Per-variant option mass, letter rate and option-argmax rate of an options audit."""
    table = new_table(title=f"Prompt ladder ({summary['n_items']} items)")
    for column in (
        "variant",
        "n",
        "median mass",
        "min mass",
        "<0.5",
        "letter rate",
        "option argmax",
    ):
        table.add_column(column, no_wrap=True)
    table.add_column("continuation opens with", no_wrap=True)
    for name, v in summary["variants"].items():
        opens = ", ".join(f"{k} {n}" for k, n in sorted(v["continuation_classes"].items()))
        table.add_row(
            name,
            str(v["n"]),
            _fmt_prob(v["median_mass"]),
            _fmt_prob(v["min_mass"]),
            f"{v['below_floor']}/{v['n_mass_measured']}",
            f"{v['letter_rate']:.2f}",
            f"{v['option_argmax_rate']:.2f}",
            opens,
        )
    return table


def checks_table(checks: Sequence[dict[str, Any]]) -> Table:
    """The checks with their verdicts (a word as well as a colour) and recommended repairs."""
    table = new_table(title="Checks")
    table.add_column("check", no_wrap=True)
    table.add_column("verdict", no_wrap=True)
    table.add_column("finding")
    table.add_column("repair")
    for check in checks:
        verdict = check["verdict"]
        table.add_row(
            check["name"],
            f"[{_VERDICT_STYLE[verdict]}]{verdict.upper()}[/]",
            check["finding"],
            check.get("repair") or "",
        )
    return table


def print_options_audit(summary: dict[str, Any], console: Console | None = None) -> None:
    """Print the ladder summary and the checks of an options audit."""
    console = wide_console(console or Console())
    console.print(variants_table(summary))
    console.print(checks_table(summary["checks"]))
    if summary.get("downstream"):
        console.print(downstream_table(summary["downstream"]))


def downstream_table(downstream: dict[str, Any]) -> Table:
    """Forecast AUC and Brier against the reader's correctness, with bootstrap intervals."""
    table = new_table(
        title=f"Forecast against the note-only reader ({downstream['n']} items, "
        f"{downstream['n_reader_correct']} read correctly; Brier of a constant 0.5: 0.25)"
    )
    for column in ("metric", "position", "estimate", "95% interval"):
        table.add_column(column, no_wrap=True)
    for metric in ("auc", "brier"):
        values = downstream.get(metric)
        if not values:
            table.add_row(metric.upper(), "-", "undefined (one class)", "")
            continue
        for position, v in values.items():
            table.add_row(
                metric.upper(),
                position,
                f"{v['estimate']:.4f}",
                f"[{v['low']:.4f}, {v['high']:.4f}]",
            )
    return table


def print_ptrue_audit(summary: dict[str, Any], console: Console | None = None) -> None:
    """Print each P(True) readout's AUROC, PRR, declared-set mass and argmax classes."""
    console = wide_console(console or Console())
    table = new_table(
        title=f"P(True) readouts ({summary['n_items']} items, "
        f"accuracy {summary.get('accuracy', float('nan')):.3f})"
    )
    for column in ("readout", "AUROC", "95% interval", "PRR", "median mass", "argmax classes"):
        table.add_column(column, no_wrap=True)
    for name, r in summary["readouts"].items():
        ci = r["auroc_ci"]
        table.add_row(
            name,
            "-" if r["auroc"] is None else f"{r['auroc']:.3f}",
            "" if ci is None else f"[{ci[0]:.3f}, {ci[1]:.3f}]",
            "-" if r["prr"] is None else f"{r['prr']:.3f}",
            _fmt_prob(r["median_mass"]),
            ", ".join(f"{k} {n}" for k, n in sorted(r["argmax_classes"].items())),
        )
    console.print(table)
