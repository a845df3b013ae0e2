"""Cut files, written as a stage: what ``readout lift cut`` leaves beside each cut file.

FILE                  one ``Cut`` a JSON line, appended and flushed in the papers' order
FILE.manifest.json    the stage's manifest: the cut settings and the papers read (``config``)
FILE.papers.json      each paper's counts (found, kept, rejected by reason), written once
FILE.lock             held by the one process writing FILE

A rerun with the same settings and papers resumes an interrupted cutting (a last line cut by
the interruption is dropped, the missing cuts appended); other settings or papers are refused,
listing the differences. A cut file of an earlier version (its manifest not a stage's) is still
read; writing into one needs ``--force``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from readout_audit._exceptions import InputError, RunDirectoryError
from readout_audit._util import check_regular, iter_values, read_models, terminal_safe
from readout_audit.lift._cut import Cut, sha256_text
from readout_audit.lift._equation_cuts import cut_equations
from readout_audit.lift._prose_cuts import cut_prose
from readout_audit.lift._select import REASONS, CutSettings, PaperStats
from readout_audit.lift._sources import TexPaper
from readout_audit.log import Manifest, StageFile, read_stage, stage_manifest_path, write_once

CUT_KIND = "lift-cut"
"""The ``kind`` of a cut file's stage manifest."""
PAPERS_SUFFIX = ".papers.json"


def papers_path(path: Path) -> Path:
    """Where a cut file's per-paper counts are: ``<file>.papers.json`` beside it."""
    return path.with_name(path.name + PAPERS_SUFFIX)


def cut_papers(
    papers: Sequence[TexPaper], settings: CutSettings | None = None
) -> tuple[list[Cut], list[PaperStats]]:
    """Every paper's cuts of ``settings.kind``, in paper order, and each paper's counts."""
    settings = settings or CutSettings()
    cutter = cut_equations if settings.kind == "equation" else cut_prose
    cuts: list[Cut] = []
    stats: list[PaperStats] = []
    for paper in papers:
        kept, paper_stats = cutter(paper, settings)
        cuts += kept
        stats.append(paper_stats)
    return cuts, stats


def cut_manifest(settings: CutSettings, papers: Sequence[PaperStats]) -> Manifest:
    """The stage manifest of a cut file: the settings and each paper read (id, hashes)."""
    read = [{"paper": p.paper, "source": p.source, "raw_sha256": p.raw_sha256} for p in papers]
    config = {"settings": settings.model_dump(mode="json"), "papers": read}
    return Manifest.create(CUT_KIND, None, config, {"seed": settings.seed})


def cut_stage_manifest(path: Path) -> Manifest | None:
    """The stage manifest beside a cut file, or None (none there, or an earlier version's)."""
    sidecar = stage_manifest_path(path)
    if not sidecar.is_file():
        return None
    try:
        raw = json.loads(sidecar.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError):
        raw = None
    if not isinstance(raw, dict) or "invocations" not in raw:
        return None  # not a stage's: an earlier version's cut manifest, or not ours
    manifest = read_stage(path).manifest
    if manifest.kind != CUT_KIND:
        raise RunDirectoryError(f"{sidecar} is a {manifest.kind} manifest, not a cut file's")
    return manifest


def write_cuts(
    path: Path,
    cuts: Sequence[Cut],
    settings: CutSettings,
    papers: Sequence[PaperStats],
    *,
    overwrite: bool = False,
) -> None:
    """Write (or finish) the cut file stage at ``path``, holding its lock.

    The cuts already there must be the first of ``cuts``; the rest are appended, the papers'
    counts written once, and the invocation marked finished. ``overwrite``: a cut file already
    there (of any settings, or an earlier version's) is deleted first.
    """
    if overwrite:
        for old in (path, stage_manifest_path(path), papers_path(path)):
            old.unlink(missing_ok=True)
    manifest = cut_manifest(settings, papers)
    with StageFile(path, manifest, Cut, lambda cut: cut.id, what="cuts") as file:
        written = list(file.done.values())
        if written != list(cuts[: len(written)]):
            raise RunDirectoryError(
                f"{path} holds other cuts than these papers and settings give; use a new output"
            )
        write_once(papers_path(path), {"papers": [p.model_dump(mode="json") for p in papers]})
        for cut in cuts[len(written) :]:
            file.append(cut)
        file.finish_invocation(planned=len(cuts))


def read_cuts(path: str | Path) -> list[Cut]:
    """The cuts of a cut file, each validated; a bad line or a repeated id names file and line.

    A cut file whose stage has not finished (an interrupted ``readout lift cut``) is refused.
    """
    path = Path(path)
    check_regular(path, what="cut file")
    manifest = cut_stage_manifest(path)
    if manifest is not None and manifest.invocations[-1].finished is None:
        raise InputError(
            "is an unfinished cut file: run the same readout lift cut again to finish it",
            source=str(path),
        )

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


def cut_table(settings: CutSettings, papers: Sequence[PaperStats]) -> str:
    """A plain-text table: per paper what was found, the cuts kept and the rejections by reason.

    Paper ids and notes come from file names and contents, so they are shown terminal-safe.
    """
    found = "displays" if settings.kind == "equation" else "blocks"
    reasons = [r for r in REASONS if any(p.rejected.get(r) for p in papers)]
    header = ["paper", found, "cuts", *reasons]
    rows = [
        [terminal_safe(p.paper), str(p.found), str(p.cuts), *(str(p.rejected[r]) for r in reasons)]
        for p in papers
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
    notes = [terminal_safe(f"{p.paper}: {note}") for p in papers for note in p.notes]
    admitted = sum(p.admitted for p in papers)
    rule = (
        f"admitted {admitted} of {len(papers)} papers "
        f"(each with at least {settings.min_cuts} qualifying cuts)"
    )
    return "\n".join([*lines, rule, *notes])
