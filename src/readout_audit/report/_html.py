"""The self-contained HTML report: inline CSS and SVG, one inline search script, no network.

The page is whole without script; the script only shows the item browser's search box and hides
the entries that do not match it. The page's content security policy allows that script alone
(by its hash) and nothing from the network.
"""

from __future__ import annotations

import base64
import hashlib
import json
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
import markupsafe

from readout_audit._util import terminal_safe, write_text_atomic
from readout_audit._version import __version__
from readout_audit.kind import get_kind
from readout_audit.log import Run, read_run
from readout_audit.report._report import report_sections, state_text

TEMPLATE = "report.html.j2"
SEARCH_SCRIPT = markupsafe.Markup(
    """
for (const bar of document.querySelectorAll("p.search")) {
  const box = bar.querySelector("input");
  const entries = bar.closest("section").querySelectorAll("details.item");
  bar.hidden = false;
  box.addEventListener("input", () => {
    const terms = box.value.toLowerCase().split(/\\s+/).filter(Boolean);
    let shown = 0;
    for (const entry of entries) {
      const text = Array.from(entry.querySelectorAll(".searched"), e => e.textContent).join("\\n");
      entry.hidden = !terms.every(term => text.toLowerCase().includes(term));
      shown += !entry.hidden;
    }
    bar.querySelector("output").value = `${shown} of ${entries.length} shown`;
  });
}
"""
)
"""Shows each item browser's search box and hides the entries without every term typed in it
(case-insensitive, in the entry's item id, variant or rendered prompt)."""
SEARCH_HASH = base64.b64encode(hashlib.sha256(SEARCH_SCRIPT.encode("utf-8")).digest()).decode()


def _plain_text(value: Any) -> Any:
    """Every interpolated string without escape sequences or control characters.

    As in the terminal; autoescaping then makes it inert. Our own SVG (marked safe) passes.
    """
    if isinstance(value, str) and not isinstance(value, markupsafe.Markup):
        return terminal_safe(value)
    return value


def whole_cell(cell: Any) -> bool:
    """Whether a table cell is one word (a number, an id, a token) to keep on one line.

    Such a cell never breaks mid-value (``0.333`` over two lines); text with spaces wraps.
    """
    return isinstance(cell, str) and bool(cell) and not any(c.isspace() for c in cell)


def _environment() -> jinja2.Environment:
    folder = resources.files("readout_audit.report") / "templates"
    environment = jinja2.Environment(
        loader=jinja2.FunctionLoader(lambda name: (folder / name).read_text(encoding="utf-8")),
        autoescape=True,  # every item and model text is untrusted
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=_plain_text,
    )
    # JSON as readable text; autoescaping then makes it safe to show
    environment.filters["json"] = lambda value: json.dumps(value, ensure_ascii=False)
    environment.tests["whole"] = whole_cell
    return environment


def render_html(run: Run[Any]) -> str:
    """The report of a run as one HTML document."""
    sections = report_sections(run)
    context: dict[str, Any] = {
        "title": f"readout-audit report: {get_kind(run.manifest.kind).title}, "
        f"run {run.directory.name}",
        "kind": run.manifest.kind,
        "model": run.manifest.model.get("spec"),
        "n_records": len(run.records),
        "state": state_text(run),
        "sections": sections,
        "version": __version__,
        "script": SEARCH_SCRIPT,
        "script_hash": SEARCH_HASH,
    }
    return _environment().get_template(TEMPLATE).render(**context)


def write_html(run_dir: str | Path, out: str | Path) -> Path:
    """Write the HTML report of the run in ``run_dir`` to ``out``, whole or not at all."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(out, render_html(read_run(run_dir)))
    return out
