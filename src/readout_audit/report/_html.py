"""The self-contained HTML report: inline CSS and SVG, no script, no network access."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2

from readout_audit import __version__
from readout_audit._exceptions import RunDirectoryError
from readout_audit.log._run import Run, read_run
from readout_audit.report._blocks import Section
from readout_audit.report._sections import SECTIONS, checks_section, manifest_section
from readout_audit.report._summary import run_summary

TEMPLATE = "report.html.j2"


def _environment() -> jinja2.Environment:
    folder = resources.files("readout_audit.report") / "templates"
    environment = jinja2.Environment(
        loader=jinja2.FunctionLoader(lambda name: (folder / name).read_text(encoding="utf-8")),
        autoescape=True,  # every item and model text is untrusted
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    # JSON as readable text; autoescaping then makes it safe to show
    environment.filters["json"] = lambda value: json.dumps(value, ensure_ascii=False)
    return environment


def report_sections(run: Run) -> list[Section]:
    """The decision first (checks, then the kind's sections), then the manifest to redo it."""
    kind = run.manifest.kind
    if kind not in SECTIONS:
        raise RunDirectoryError(f"no report for runs of kind {kind!r}")
    summary = run_summary(run)
    checks = checks_section(summary)
    sections = [checks] if checks is not None else []
    return [*sections, *SECTIONS[kind](run, summary), manifest_section(run)]


def render_html(run: Run) -> str:
    """The report of a run as one HTML document."""
    sections = report_sections(run)
    context: dict[str, Any] = {
        "title": f"readout-audit report: {run.manifest.kind} run {run.directory.name}",
        "kind": run.manifest.kind,
        "model": run.manifest.model.get("spec"),
        "n_records": len(run.records),
        "finished": run.summary is not None,
        "sections": sections,
        "version": __version__,
    }
    return _environment().get_template(TEMPLATE).render(**context)


def write_html(run_dir: str | Path, out: str | Path) -> Path:
    """Write the HTML report of the run in ``run_dir`` to ``out``."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render_html(read_run(run_dir)), encoding="utf-8")
    return out
