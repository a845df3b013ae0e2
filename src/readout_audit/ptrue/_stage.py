"""The P(True) audit as a stage: its typed settings, its items, its preflight."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from readout_audit._util import INT_MAX, Seed, option_hint
from readout_audit.data import LIBRARY_SHOTS, Correctness, QAItem, read_qa_source
from readout_audit.kind import RunSettings, ScoreResult, StageRun
from readout_audit.model import ScoringModel
from readout_audit.ptrue._answers import LIBRARY_SEED, AnswerMode, PromptMode
from readout_audit.ptrue._audit import audit_ptrue, readout_items
from readout_audit.scoring import rendered_preflight


class PTrueSettings(BaseModel):
    """What one P(True) audit reads (its items' source) and how (correctness, answer step).

    ``PTrueSettings(source="hf:cais/mmlu", limit=100, prompt_mode="raw")``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    source: str = Field(json_schema_extra=option_hint("--items"))
    """JSONL (id, question, optional instruction, optional answer, gold letter or aliases), or
    MMLU (CSV file or folder, or hf:<dataset>[@revision]) quoted as lm-polygraph's
    simple_instruct configuration quotes it."""
    shots_from: str | None = None
    """MMLU dev rows for the examples (CSV file or folder, or hf:...; an hf: --items reads its
    own dev split)."""
    shots: int = Field(default=LIBRARY_SHOTS, ge=0, le=INT_MAX, strict=True)
    """Examples per MMLU subject (lm-polygraph's 5)."""
    limit: int | None = Field(default=None, ge=1, le=INT_MAX, strict=True)
    """Only the first N items."""
    correctness: Correctness = "paper"
    """paper: the first letter of the item's own set (A-D), or the answer's first line equal to
    an alias; anywhere: any capital letter, or an alias anywhere in the answer."""
    answers: AnswerMode = "library"
    """Answer step for items without an answer: lm-polygraph's (the checkpoint's generation
    config, at least 2 and at most 3 (letter) or 20 new tokens, stop at a newline), the same
    with sampling forced on, or greedy up to 32 tokens."""
    prompt_mode: PromptMode = "chat"
    """chat: one user message through the chat template (lm-polygraph's instruct mode, the
    paper's runs); raw: the text alone (the library's default)."""
    seed: Seed = LIBRARY_SEED
    """Seed of sampled answers (each item's seed derives from it and the item id)."""

    def read_items(self, *, allow_download: bool = False) -> tuple[list[QAItem], tuple[str, ...]]:
        """The first ``limit`` items of the source, and what to warn of (few-shot leakage)."""
        source = read_qa_source(
            self.source,
            shots_from=self.shots_from,
            shots=self.shots,
            allow_download=allow_download,
            limit=self.limit,
        )
        return source.items, source.warnings


def ptrue_stage(items: Sequence[QAItem], settings: PTrueSettings) -> StageRun[ScoreResult]:
    """:func:`audit_ptrue` as a stage: the readouts of the items' own answers rendered first.

    Answers still to generate are known only once the model runs; their readouts are checked
    when planned.
    """

    def run(model: ScoringModel, out: Path, shared: RunSettings) -> ScoreResult:
        return audit_ptrue(
            model,
            items,
            out,
            template_kwargs=shared.template_kwargs,
            correctness=settings.correctness,
            answers=settings.answers,
            prompt_mode=settings.prompt_mode,
            seed=settings.seed,
            **shared.loop_args(),
        )

    readouts = [
        readout
        for item in items
        if item.answer is not None
        for readout in readout_items(item, item.answer, settings.prompt_mode).values()
    ]
    return StageRun("ptrue", run, rendered_preflight(readouts, 1))
