"""Cut files: one ``Cut`` per JSON line, with ``<file>.manifest.json`` saying how they were made."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from readout_audit._exceptions import InputError
from readout_audit._util._input import check_regular
from readout_audit._util._jsonl import (
    dumps_line,
    iter_values,
    write_json_atomic,
    write_lines_atomic,
)
from readout_audit._util._models import read_models
from readout_audit._util._text import terminal_safe
from readout_audit._version import __version__
from readout_audit.lift._cut import Cut, sha256_text
from readout_audit.lift._equation_cuts import cut_equations
from readout_audit.lift._prose_cuts import cut_prose
from readout_audit.lift._select import REASONS, CutSettings, PaperStats
from readout_audit.lift._sources import TexPaper
from readout_audit.log import stage_manifest_path


class CutManifest(BaseModel):
    """How a cut file was made: version, command, settings, and every paper read with its counts."""

    model_config = ConfigDict(extra="forbid")

    version: str = __version__
    command: list[str] = Field(default_factory=lambda: list(sys.argv))
    settings: CutSettings
    papers: list[PaperStats]


def cut_papers(
    papers: Sequence[TexPaper], settings: CutSettings | None = None
) -> tuple[list[Cut], CutManifest]:
    """Every paper's cuts of ``settings.kind``, in paper order, and the manifest counting them."""
    settings = settings or CutSettings()
    cutter = cut_equations if settings.kind == "equation" else cut_prose
    cuts: list[Cut] = []
    stats: list[PaperStats] = []
    for paper in papers:
        kept, paper_stats = cutter(paper, settings)
        cuts += kept
        stats.append(paper_stats)
    return cuts, CutManifest(settings=settings, papers=stats)


def write_cuts(path: Path, cuts: Sequence[Cut], manifest: CutManifest) -> None:
    """Write the cuts and their manifest, each whole or not at all (temporary files renamed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomic(stage_manifest_path(path), manifest.model_dump(mode="json"))
    write_lines_atomic(path, (dumps_line(cut.model_dump(mode="json")) for cut in cuts))


def read_cuts(path: str | Path) -> list[Cut]:
    """The cuts of a cut file, each validated; a bad line or a repeated id names file and line."""
    path = Path(path)
    check_regular(path, what="cut file")

    def matches(cut: Cut, line: int) -> None:
        if sha256_text(cut.target) != cut.target_sha256:
            raise InputError(
                "does not match the target", source=str(path), line=line, field="target_sha256"
            )

    return read_models(
        iter_values(path),
        Cut,
        source=str(path),
        key=lambda cut: cut.id,
        key_field="id",
        repeated=lambda key, first: f"cut id {key!r} repeats line {first}",
        check=matches,
    )


def cut_table(manifest: CutManifest) -> str:
    """A plain-text table: per paper what was found, the cuts kept and the rejections by reason.

    Paper ids and notes come from file names and contents, so they are shown terminal-safe.
    """
    found = "displays" if manifest.settings.kind == "equation" else "blocks"
    reasons = [r for r in REASONS if any(p.rejected.get(r) for p in manifest.papers)]
    header = ["paper", found, "cuts", *reasons]
    rows = [
        [terminal_safe(p.paper), str(p.found), str(p.cuts), *(str(p.rejected[r]) for r in reasons)]
        for p in manifest.papers
    ]
    rows.append(["total", *(str(sum(int(row[i]) for row in rows)) for i in range(1, len(header)))])
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(
            cell.ljust(w) if i == 0 else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        )
        for row in [header, *rows]
    ]
    notes = [terminal_safe(f"{p.paper}: {note}") for p in manifest.papers for note in p.notes]
    admitted = sum(p.admitted for p in manifest.papers)
    rule = (
        f"admitted {admitted} of {len(manifest.papers)} papers "
        f"(each with at least {manifest.settings.min_cuts} qualifying cuts)"
    )
    return "\n".join([*lines, rule, *notes])
