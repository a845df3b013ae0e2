"""The table across runs: one row per run with its kind, counts, state, verdicts and headline.

The headline numbers are each kind's own (``AuditKind.headline``, from the run's summary); a
name several kinds share (``accuracy``) is one column, and a run without it shows ``–``.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from readout_audit.kind import get_kind
from readout_audit.log import CSV_LINE_END, Run, RunState, Verdict, csv_text
from readout_audit.report._blocks import MISSING, TableBlock, fmt
from readout_audit.report._report import run_summary

VERDICTS: tuple[Verdict, ...] = ("pass", "warn", "fail")
COLUMNS = ["run", "kind", "model", "items", "records", "state", *(v.upper() for v in VERDICTS)]
"""The columns every run has, before the headline numbers."""
NOTE = (
    "items: distinct item ids; PASS/WARN/FAIL: the summary's checks by verdict; median mass, "
    "below floor and accuracy: an options or lm-eval run's production rung (the prompt as used), "
    "another run's lowest median option mass of its variants and its share of measured records "
    "under the 0.5 floor over all of them; acc and acc_norm TASK: lm-eval's per task; F1 and "
    "AUROC ranges: the highest readout's minus the lowest's"
)


@dataclass(frozen=True)
class RunRow:
    """One run as the table shows it (the run itself kept for its report)."""

    run: Run[Any]
    kind: str
    model: str | None
    items: int
    """Distinct item ids among the records."""
    records: int
    state: RunState
    verdicts: dict[Verdict, int]
    """The summary's checks counted by verdict."""
    headline: dict[str, float | None]
    """The kind's headline numbers, from the summary."""

    @property
    def name(self) -> str:
        """The run directory as it was given."""
        return str(self.run.directory)

    def values(self, headline: Sequence[str]) -> list[Any]:
        """The row's values under :data:`COLUMNS` and then the ``headline`` names."""
        counts = [self.verdicts[v] for v in VERDICTS]
        fixed = [self.name, self.kind, self.model, self.items, self.records, self.state, *counts]
        return [*fixed, *(self.headline.get(name) for name in headline)]


def run_row(run: Run[Any]) -> RunRow:
    """The run's row: the summary on disk, or for an unfinished run the one its records give."""
    summary = run_summary(run)
    return RunRow(
        run=run,
        kind=run.manifest.kind,
        model=run.manifest.model.get("spec"),
        items=len({r.item_id for r in run.records}),
        records=len(run.records),
        state=run.state,
        verdicts={v: sum(c.verdict == v for c in summary.checks) for v in VERDICTS},
        headline=get_kind(run.manifest.kind).headline(summary),
    )


def headline_names(rows: Sequence[RunRow]) -> list[str]:
    """Every headline name of the rows, in the order they first appear."""
    return list(dict.fromkeys(name for row in rows for name in row.headline))


def _cell(value: Any) -> str:
    if value is None:
        return MISSING
    return fmt(value) if isinstance(value, float) else str(value)


def runs_block(rows: Sequence[RunRow]) -> TableBlock:
    """The rows as a table block: the terminal and the index page draw it."""
    names = headline_names(rows)
    return TableBlock(
        title="Runs",
        columns=[*COLUMNS, *names],
        rows=[[_cell(value) for value in row.values(names)] for row in rows],
        note=NOTE,
        wrap=tuple(names),
    )


def _csv_cell(value: Any) -> Any:
    """A CSV cell: empty when missing, text a spreadsheet shows rather than runs."""
    if value is None:
        return ""
    return csv_text(value) if isinstance(value, str) else value


def runs_csv(rows: Sequence[RunRow]) -> str:
    """The rows as CSV text: a header, then full-precision numbers, empty where missing.

    A run or model name a spreadsheet would take for a formula gets a leading ``'``.
    """
    names = headline_names(rows)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator=CSV_LINE_END)
    writer.writerow([*COLUMNS, *names])
    for row in rows:
        writer.writerow([_csv_cell(v) for v in row.values(names)])
    return buffer.getvalue()
