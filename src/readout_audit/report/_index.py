"""The index page across runs: the runs table, each row linking to its run's full report.

One self-contained page (inline CSS, no script, no network) written where the user names it;
each run's report is written beside it, in ``<index name>_reports/<n>-<run name>.html``, and
linked by a relative address, so the folder can be moved or served as it is.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from readout_audit._util import write_text_atomic
from readout_audit._version import __version__
from readout_audit.report._html import _environment, render_html
from readout_audit.report._runs import RunRow, runs_block

TEMPLATE = "index.html.j2"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def _file_name(run_dir: str | Path) -> str:
    """A run directory's name as a file name: letters, digits, ``.``, ``_`` and ``-`` only."""
    name = Path(os.path.abspath(run_dir)).name
    return _UNSAFE.sub("_", name).strip("._") or "run"


def index_report_paths(out: Path, run_dirs: Sequence[str | Path]) -> list[Path]:
    """Where the index at ``out`` puts each run's report: numbered, in the runs' order."""
    folder = out.parent / f"{out.stem}_reports"
    return [folder / f"{n}-{_file_name(d)}.html" for n, d in enumerate(run_dirs, 1)]


def render_index(rows: Sequence[RunRow], links: Sequence[str]) -> str:
    """The index page: the runs table, row ``i`` linking to ``links[i]``."""
    context = {
        "title": f"readout-audit: {len(rows)} runs",
        "table": runs_block(rows),
        "links": list(links),
        "version": __version__,
    }
    return _environment().get_template(TEMPLATE).render(**context)


def write_index(rows: Sequence[RunRow], out: str | Path) -> list[Path]:
    """Write every run's report, then the index linking to them; the files written, index last.

    Each file is written whole or not at all.
    """
    out = Path(out)
    reports = index_report_paths(out, [row.run.directory for row in rows])
    for row, report in zip(rows, reports, strict=True):
        report.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(report, render_html(row.run))
    links = [report.relative_to(out.parent).as_posix() for report in reports]
    write_text_atomic(out, render_index(rows, links))
    return [*reports, out]
