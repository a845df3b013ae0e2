"""``readout lift cut`` as a library call: sources read and cut, each cut file a stage."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from readout_audit._exceptions import InputError
from readout_audit._util import INT_MAX, option_hint, terminal_safe
from readout_audit.lift._cutfile import (
    CUT_KIND,
    cut_papers,
    cut_stage_manifest,
    cut_table,
    write_cuts,
)
from readout_audit.lift._select import CutSettings
from readout_audit.lift._sources import read_papers
from readout_audit.log import (
    check_output_path,
    check_unlocked,
    shares_files,
    stage_manifest_path,
)


class CutRun(BaseModel):
    """What one cutting reads and writes: sources, cut files, and how papers are cut."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    sources: tuple[Path, ...] = Field(min_length=1)
    """.tex files, folders of them or arXiv tarballs, read in order."""
    out: Path = Field(json_schema_extra=option_hint(path="file"))
    """The cut file (JSON lines); its manifest is written beside it."""
    training_out: Path | None = Field(default=None, json_schema_extra=option_hint(path="file"))
    """Also write every qualifying cut of the admitted papers, no per-paper quota, to this cut
    file: the training cuts of readout lift sft --training-cuts."""
    limit: int | None = Field(default=None, ge=1, le=INT_MAX, strict=True)
    """Only the first N papers of the sources, in order."""
    force: bool = False
    """Replace a file already at --out or --training-out (never one inside a run directory,
    nor an input); a cut file of the same settings is resumed without it."""
    settings: CutSettings = Field(default_factory=CutSettings)


@dataclass(frozen=True)
class CutOutcome:
    """What a cutting wrote: the per-paper table and the number of cuts in each file."""

    run: CutRun
    table: str
    cuts: int
    training: int | None

    def summary(self) -> str:
        """The table and where the cuts went, terminal-safe (paper ids come from file names)."""
        lines = [self.table, f"wrote {self.cuts} {self.run.settings.kind} cuts to {self.run.out}"]
        if self.run.training_out is not None:
            lines.append(f"wrote {self.training} training cuts to {self.run.training_out}")
        return terminal_safe("\n".join(lines))


def _outputs(run: CutRun) -> list[tuple[str, Path]]:
    """Each cut file the run writes, with its option."""
    given = (("out", run.out), ("training-out", run.training_out))
    return [(option, out) for option, out in given if out is not None]


def check_cut_outputs(run: CutRun) -> None:
    """Before any source is read: each output may be written, and no other process writes it.

    A cut file stage already there is resumed (no ``force`` needed); any other existing file
    needs ``force``.
    """
    if run.training_out is not None and shares_files(run.out, run.training_out):
        raise InputError(
            "must differ from --out and from its own files beside it (its manifest, lock and "
            "papers ledger)",
            source=str(run.training_out),
            field="training-out",
        )
    for option, out in _outputs(run):
        own = (out, CUT_KIND)
        check_output_path(out, option=option, inputs=run.sources, force=True, own=own)
        paths = (out, stage_manifest_path(out))  # ``out`` is no folder: it has a name
        # never another stage's file, an input or a special file; then replaced only if forced
        check_output_path(paths[1], option=option, inputs=run.sources, force=True, own=own)
        if not run.force and cut_stage_manifest(out) is None:  # a cut stage resumes unforced
            for path in paths:
                check_output_path(path, option=option, inputs=run.sources, own=own)
        check_unlocked(out)


def cut_sources(run: CutRun) -> CutOutcome:
    """Cut the sources' papers into ``run.out`` (and the training cuts into ``training_out``)."""
    check_cut_outputs(run)
    papers = read_papers(run.sources, run.limit)
    read = [Path(name) for paper in papers for name in paper.files]  # through links, \input
    for option, out in _outputs(run):
        check_output_path(out, option=option, inputs=read, force=True, own=(out, CUT_KIND))
    cuts, stats = cut_papers(papers, run.settings)
    write_cuts(run.out, cuts, run.settings, stats, overwrite=run.force)
    training = None
    if run.training_out is not None:
        every = run.settings.model_copy(update={"every": True})
        kept, every_stats = cut_papers(papers, every)
        write_cuts(run.training_out, kept, every, every_stats, overwrite=run.force)
        training = len(kept)
    return CutOutcome(run, cut_table(run.settings, stats), len(cuts), training)
