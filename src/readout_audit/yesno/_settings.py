"""The yes/no audit's settings, which are its stage: questions, sets, preflight, run."""

from __future__ import annotations

import sys
from functools import cached_property
from pathlib import Path
from typing import Annotated, Self

from pydantic import Field, model_validator

from readout_audit._exceptions import InputError
from readout_audit._util import INT_MAX, Seed, option_hint, terminal_safe
from readout_audit.data import YesNoItem, load_yesno_source
from readout_audit.kind import GreedyTokens, KindSettings, RunSettings, ScoreResult
from readout_audit.log import RunDirectory
from readout_audit.model import ScoringModel, TextCodec, VisionCodec
from readout_audit.readout import LLAMA_PAIR, LLAMA_SET, NO_FORMS, YES_FORMS, ParseRule
from readout_audit.scoring import check_rendered
from readout_audit.yesno._audit import (
    DIAGNOSTIC_SAMPLE,
    PARSE_TOKENS,
    YESNO,
    YesNoSetup,
    audit_yesno,
    ignored_images,
    yesno_item,
)

TokenId = Annotated[int, Field(ge=0, le=INT_MAX, strict=True)]
"""A token id as a legacy readout gives it (the model's vocabulary checks it once loaded)."""


class YesNoSettings(KindSettings):
    """What one yes/no audit reads (its questions, their images) and how (sets, parse, Algorithm 1).

    ``run_stage(YesNoSettings(items=Path("coco_pope_random.json"), in_context_sets=True), out)``.
    """

    kind = YESNO

    items: Path | tuple[YesNoItem, ...] | None = None
    """JSONL yes/no items (id, question, label, optional prompt, image, split; a prompt is used
    verbatim instead of the chat template) or a POPE question file (question_id, image, text,
    label). Default: the built-in demo questions; in Python, the questions themselves."""
    images: Path | None = Field(default=None, json_schema_extra=option_hint(path="dir"))
    """Image folder for a vision-language model (POPE: COCO val2014)."""
    limit: int | None = Field(default=None, ge=1, le=INT_MAX, strict=True)
    """Only the first N items."""
    legacy_ids: tuple[TokenId, TokenId] | None = Field(
        default=None, json_schema_extra=option_hint(metavar="YES_ID,NO_ID")
    )
    """Legacy two-token readout: YES_ID,NO_ID (default: LLaMA-2's 3582,1217 ported verbatim)."""
    legacy_set: tuple[tuple[TokenId, ...], tuple[TokenId, ...]] | None = None
    """Legacy fixed-id sets YES_IDS:NO_IDS (default: LLaMA-2's eight ids ported verbatim)."""
    legacy: bool = True
    """Run the legacy readouts."""
    yes_forms: tuple[str, ...] = Field(
        default=(), json_schema_extra=option_hint("--yes-form", repeat=True)
    )
    """Extra yes surface form to derive from the tokenizer, beside Listing 1's yes, Yes, ' yes',
    ' Yes' (repeatable; quote leading spaces)."""
    no_forms: tuple[str, ...] = Field(
        default=(), json_schema_extra=option_hint("--no-form", repeat=True)
    )
    """Extra no surface form (repeatable)."""
    in_context_sets: bool = False
    """Also read dynamic_in_context: the forms plus YES/NO variants encoded after the rendered
    prompt, compared with Listing 1's sets in the summary."""
    instruction: str | None = None
    """Appended to each question on a new line, e.g. 'Answer yes or no.'"""
    parse_rule: ParseRule = "substring"
    """string_parse: the first yes/no substring of the decoded text (the paper's; 'Nothing'
    reads no) or the first standalone yes/no word."""
    diagnostic_sample: int = Field(default=DIAGNOSTIC_SAMPLE, ge=1, le=INT_MAX, strict=True)
    """Questions the new-model diagnostic (Algorithm 1) reads first."""
    extend_sets: bool = True
    """Add the diagnostic's emitted yes/no tokens missing from the legacy Y and N (Algorithm 1,
    line 8), read as the algorithm1 readout."""
    seed: Seed = 0
    """Seed of the diagnostic sample and bootstrap."""
    greedy_tokens: GreedyTokens = PARSE_TOKENS
    """Greedy tokens read at each question (the string parse reads them)."""

    @model_validator(mode="after")
    def _read_what_is_given(self) -> Self:
        """Refuse what the run would not read: images without items, legacy ids without legacy."""
        if self.images is not None and self.items is None:
            raise ValueError("images are not read without items: the demo questions have none")
        if not self.legacy and (self.legacy_ids is not None or self.legacy_set is not None):
            raise ValueError("legacy_ids and legacy_set are not read with legacy off")
        return self

    def setup(self) -> YesNoSetup:
        """The forms (Listing 1's and the extra ones), the legacy ids (LLaMA-2's unless given)."""
        return YesNoSetup(
            yes_forms=tuple(dict.fromkeys((*YES_FORMS, *self.yes_forms))),
            no_forms=tuple(dict.fromkeys((*NO_FORMS, *self.no_forms))),
            in_context=self.in_context_sets,
            legacy_pair=(self.legacy_ids or LLAMA_PAIR) if self.legacy else None,
            legacy_set=(self.legacy_set or LLAMA_SET) if self.legacy else None,
            instruction=self.instruction,
            parse_rule=self.parse_rule,
        )

    @cached_property
    def loaded(self) -> list[YesNoItem]:
        """The first ``limit`` questions given, or of the source (the demo ones without), once."""
        if isinstance(self.items, tuple):
            return list(self.items[: self.limit])
        return load_yesno_source(self.items, self.images)[: self.limit]

    def read_inputs(self) -> None:
        """The questions, read now."""
        self.loaded  # noqa: B018  (a cached read)

    def preflight(self, codec: TextCodec, run: RunSettings) -> None:
        """Questions rendered and images checked before loading.

        With an image folder given, a model that reads text only (its tokenizer is no
        vision-language processor) is refused; without one, the items' image names are warned
        of.
        """
        if not isinstance(codec, VisionCodec):
            if self.images is not None:
                reads = "is not read: the model reads text only (no vision-language processor)"
                raise InputError(reads, field="images")
            ignored = ignored_images(self.loaded)
            if ignored is not None:
                print(f"warning: {terminal_safe(ignored)}", file=sys.stderr)
        setup = self.setup()
        questions = [yesno_item(item, setup) for item in self.loaded]
        check_rendered(questions, codec, run, self.greedy_tokens)

    def run(self, model: ScoringModel, out: RunDirectory, run: RunSettings) -> ScoreResult:
        """:func:`audit_yesno` of these settings."""
        return audit_yesno(model, self, out, run)
