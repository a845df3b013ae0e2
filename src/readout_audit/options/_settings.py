"""The constrained-option audit's settings, which are its stage: items, ladder, preflight, run."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

from pydantic import Field, InstanceOf, field_validator

from readout_audit._util import INT_MAX, option_hint
from readout_audit.data import Item, MCItem, load_mc_source
from readout_audit.kind import GreedyTokens, KindSettings, RunSettings, ScoreResult
from readout_audit.log import RunDirectory
from readout_audit.model import ScoringModel, TextCodec
from readout_audit.options._audit import OPTIONS, audit_options, ladder_items
from readout_audit.options._checks import VERDICT_RUNGS
from readout_audit.prompt import BUILTIN_SPECS, PromptSpec, SpecFile, read_spec_file
from readout_audit.readout import DEFAULT_GREEDY_TOKENS
from readout_audit.scoring import check_rendered


class OptionsSettings(KindSettings):
    """What one constrained-option audit reads (its items' source) and how (spec, rungs, reader).

    ``run_stage(OptionsSettings(items="mc.jsonl", spec="answer"), "runs/a")``.
    """

    kind = OPTIONS

    items: str | tuple[MCItem, ...]
    """Multiple-choice items: JSONL (id, question, choices, answer, note, ...), MMLU CSV files,
    MMLU as hf:<dataset-id-or-dir>[@revision] (e.g. hf:cais/mmlu@<commit>), or the paper's
    shuffled RACE-H list as race:<dataset-id-or-dir>[@revision] (e.g. race:ehovy/race; the
    paper's revision unless given); in Python, the items themselves."""
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
    allow_download: bool = Field(default=False, json_schema_extra=option_hint(skip=True))
    """Let an hf: or race: source download (the model's --allow-download)."""

    @field_validator("spec", mode="before")
    @classmethod
    def _read_spec(cls, spec: object) -> object:
        """A built-in spec's name or a spec file's path, read; a spec itself, as its file."""
        if isinstance(spec, str) and spec in BUILTIN_SPECS:
            return SpecFile(BUILTIN_SPECS[spec], {})
        if isinstance(spec, PromptSpec):
            return SpecFile(spec, {})
        return read_spec_file(spec) if isinstance(spec, str | Path) else spec

    @field_validator("variants")
    @classmethod
    def _quick(cls, variants: tuple[str, ...] | None) -> tuple[str, ...] | None:
        """``quick``: the rungs the checks read."""
        return VERDICT_RUNGS if variants == ("quick",) else variants

    @cached_property
    def loaded(self) -> list[MCItem]:
        """The first ``limit`` items given, or of the source, read once.

        An hf: or race: source is downloaded if allowed.
        """
        if not isinstance(self.items, str):
            return list(self.items[: self.limit])
        found = load_mc_source(
            self.items, self.subset, self.split, allow_download=self.allow_download
        )
        return found[: self.limit]

    def read_inputs(self) -> None:
        """The items, read now."""
        self.loaded  # noqa: B018  (a cached read)

    def rungs(self) -> list[Item]:
        """Every rung of every item's ladder."""
        extra = self.spec.variants
        return [item for item, _ in ladder_items(self.spec.spec, self.loaded, self.variants, extra)]

    def preflight(self, codec: TextCodec, run: RunSettings) -> None:
        """Every rung of every item rendered and checked against the context window."""
        check_rendered(self.rungs(), codec, run, self.greedy_tokens)

    def run(self, model: ScoringModel, out: RunDirectory, run: RunSettings) -> ScoreResult:
        """:func:`audit_options` of these settings."""
        return audit_options(model, self, out, run)
