"""The constrained-option audit as a stage: its typed settings, its items, its preflight."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, InstanceOf, field_validator

from readout_audit._util import INT_MAX, option_hint
from readout_audit.data import MCItem, load_mc_source
from readout_audit.kind import GreedyTokens, RunSettings, ScoreResult, StageRun
from readout_audit.model import ScoringModel
from readout_audit.options._audit import audit_options, ladder_items
from readout_audit.options._checks import VERDICT_RUNGS
from readout_audit.prompt import BUILTIN_SPECS, SpecFile, read_spec_file
from readout_audit.readout import DEFAULT_GREEDY_TOKENS
from readout_audit.scoring import rendered_preflight


class OptionsSettings(BaseModel):
    """What one constrained-option audit reads (its items' source) and how (spec, rungs, reader).

    ``OptionsSettings(source="mc.jsonl", spec="answer", variants=("quick",))``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    source: str = Field(json_schema_extra=option_hint("--items"))
    """Multiple-choice items: JSONL (id, question, choices, answer, note, ...), MMLU CSV files,
    MMLU as hf:<dataset-id-or-dir>[@revision] (e.g. hf:cais/mmlu@<commit>), or the paper's
    shuffled RACE-H list as race:<dataset-id-or-dir>[@revision] (e.g. race:ehovy/race; the
    paper's revision unless given)."""
    subset: str | None = None
    """Subset (config) of an hf: or race: dataset [hf: all, race: high], e.g.
    high_school_geography."""
    split: str | None = None
    """Split of an hf: dataset [test]; race: reads all three in turn."""
    spec: InstanceOf[SpecFile] = Field(default="forecast", validate_default=True)
    """The task that quotes the item: forecast, answer, or a TOML/YAML spec file."""
    variants: tuple[str, ...] | None = None
    """Comma-separated rungs of the prompt ladder, or quick: the rungs the checks read
    (production, stem, space_appended). Default: all: the generic ladder, the forecast spec's
    conditions fixed_note, A1, A2, T1, T2 with their stems, a spec file's own."""
    limit: int | None = Field(default=None, ge=1, le=INT_MAX, strict=True)
    """Only the first N items."""
    reader: bool | None = None
    """Run the note-only reader for the forecast target (default: when every item has a gold
    letter and a note or passage)."""
    note_budget: int = Field(default=32, ge=1, le=INT_MAX, strict=True)
    """Word budget of notes written from passages."""
    greedy_tokens: GreedyTokens = DEFAULT_GREEDY_TOKENS
    """Length of the greedy continuation read at each scored position."""

    @field_validator("spec", mode="before")
    @classmethod
    def _read_spec(cls, spec: object) -> object:
        """A built-in spec's name or a spec file's path, read; a read spec as it is."""
        if isinstance(spec, str) and spec in BUILTIN_SPECS:
            return SpecFile(BUILTIN_SPECS[spec], {})
        return read_spec_file(spec) if isinstance(spec, str | Path) else spec

    @field_validator("variants")
    @classmethod
    def _quick(cls, variants: tuple[str, ...] | None) -> tuple[str, ...] | None:
        """``quick``: the rungs the checks read."""
        return VERDICT_RUNGS if variants == ("quick",) else variants

    def read_items(self, *, allow_download: bool = False) -> list[MCItem]:
        """The first ``limit`` items of the source (an hf: or race: one downloaded if allowed)."""
        items = load_mc_source(self.source, self.subset, self.split, allow_download=allow_download)
        return items[: self.limit]


def options_stage(items: Sequence[MCItem], settings: OptionsSettings) -> StageRun[ScoreResult]:
    """:func:`audit_options` as a stage: every rung of every item rendered before loading."""
    spec, extra = settings.spec.spec, settings.spec.variants

    def run(model: ScoringModel, out: Path, shared: RunSettings) -> ScoreResult:
        return audit_options(
            model,
            items,
            spec,
            out,
            variants=settings.variants,
            greedy_tokens=settings.greedy_tokens,
            template_kwargs=shared.template_kwargs,
            reader=settings.reader,
            note_budget=settings.note_budget,
            extra_variants=extra,
            **shared.loop_args(),
        )

    rungs = [item for item, _ in ladder_items(spec, items, settings.variants, extra)]
    return StageRun("options", run, rendered_preflight(rungs, settings.greedy_tokens))
