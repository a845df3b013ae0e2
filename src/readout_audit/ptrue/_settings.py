"""The P(True) audit's settings, which are its stage: items, answer step, preflight, run."""

from __future__ import annotations

from functools import cached_property

from pydantic import Field

from readout_audit._util import INT_MAX, Seed, option_hint
from readout_audit.data import LIBRARY_SHOTS, Correctness, QAItem, QASource, read_qa_source
from readout_audit.kind import KindSettings, RunSettings, ScoreResult
from readout_audit.log import RunDirectory
from readout_audit.model import ScoringModel, TextCodec
from readout_audit.ptrue._answers import LIBRARY_SEED, AnswerMode, PromptMode
from readout_audit.ptrue._audit import PTRUE, audit_ptrue, readout_items
from readout_audit.scoring import check_rendered


class PTrueSettings(KindSettings):
    """What one P(True) audit reads (its items' source) and how (correctness, answer step).

    ``run_stage(PTrueSettings(items="hf:cais/mmlu", limit=100, prompt_mode="raw"), out)``.
    """

    kind = PTRUE

    items: str | tuple[QAItem, ...]
    """JSONL (id, question, optional instruction, optional answer, gold letter or aliases), or
    MMLU (CSV file or folder, or hf:<dataset>[@revision]) quoted as lm-polygraph's
    simple_instruct configuration quotes it; in Python, the items themselves."""
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
    allow_download: bool = Field(default=False, json_schema_extra=option_hint(skip=True))
    """Let an hf: source download (the model's --allow-download)."""

    @cached_property
    def source_read(self) -> QASource:
        """The first ``limit`` items (given, or of the source), and what to warn of.

        A source's few-shot examples that repeat an item are warned of (leakage).
        """
        if not isinstance(self.items, str):
            return QASource(list(self.items[: self.limit]))
        return read_qa_source(
            self.items,
            shots_from=self.shots_from,
            shots=self.shots,
            allow_download=self.allow_download,
            limit=self.limit,
        )

    def read_inputs(self) -> None:
        """The items, read now."""
        self.source_read  # noqa: B018  (a cached read)

    def preflight(self, codec: TextCodec, run: RunSettings) -> None:
        """The readouts of the items' own answers rendered first.

        Answers still to generate are known only once the model runs; their readouts are
        checked when planned.
        """
        readouts = [
            readout
            for item in self.source_read.items
            if item.answer is not None
            for readout in readout_items(item, item.answer, self.prompt_mode).values()
        ]
        check_rendered(readouts, codec, run, 1)

    def run(self, model: ScoringModel, out: RunDirectory, run: RunSettings) -> ScoreResult:
        """:func:`audit_ptrue` of these settings."""
        return audit_ptrue(model, self, out, run)
