"""lm-eval's audit as a stage: the documents built (or read) and rendered before the weights."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from readout_audit._exceptions import InputError
from readout_audit._util import terminal_safe
from readout_audit.kind import GreedyTokens, RunSettings, ScoreResult, StageRun
from readout_audit.lmeval._audit import audit_lm_eval, doc_variants, prepare_doc
from readout_audit.lmeval._doc import LMEvalDoc, stem_in_context
from readout_audit.lmeval._samples import read_samples, samples_files
from readout_audit.lmeval._tasks import TaskOptions, TaskSettings, task_documents
from readout_audit.model import ScoringModel, TextCodec
from readout_audit.readout import DEFAULT_GREEDY_TOKENS


class DocReading(BaseModel):
    """How each document is read: with a stem, before its trailing whitespace, how closely."""

    model_config = ConfigDict(
        extra="forbid", frozen=True, allow_inf_nan=False, use_attribute_docstrings=True
    )

    stem: str | None = None
    """Also read every document with this answer stem after lm-eval's context (e.g.
    'Answer:'), to measure what ending doc_to_text with it changes; a context that already
    ends in it is not read twice."""
    keep_whitespace: bool = False
    """Also read every document whose context ends in whitespace after it (lm-eval reads
    before it and scores the whitespace as part of each continuation)."""
    tolerance: float | None = Field(default=None, gt=0)
    """Largest |re-scored − logged| log-likelihood that reproduces a logged run [float32
    budget; 0.05 for a half-precision model; a served model's weights-type tolerance]."""
    greedy_tokens: GreedyTokens = DEFAULT_GREEDY_TOKENS
    """Length of the greedy continuation read at each scored position."""


class LMEvalRun(BaseModel):
    """What one audit reads (lm-eval's tasks, or a logged run's samples) and how it reads it."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    tasks: TaskOptions = Field(default_factory=TaskOptions)
    samples: Path | None = None
    """A finished run's --log_samples output: a samples_<task>_<date>.jsonl file or a folder
    of them. Every logged request is re-scored and compared before the audit."""
    reading: DocReading = Field(default_factory=DocReading)

    def inputs(self) -> list[Path]:
        """The files the audit reads, checked now: the logged samples, or the tasks' YAMLs."""
        if self.samples is not None:
            return [file for _, file in samples_files(self.samples)]
        return self.task_settings().check()

    def task_settings(self) -> TaskSettings:
        """The tasks lm-eval builds, when no logged run is read instead."""
        if not self.tasks.tasks:
            raise InputError("give --tasks, or --samples with a logged run", field="tasks")
        return TaskSettings.model_validate(self.tasks.model_dump())


def doubled_stems(docs: list[LMEvalDoc], stem: str) -> list[str]:
    """Which tasks' contexts already end in ``stem``: their documents are not read twice."""
    tasks: dict[str, int] = {}
    for doc in docs:
        if stem_in_context(doc.context, stem):
            tasks[doc.task] = tasks.get(doc.task, 0) + 1
    return [
        terminal_safe(
            f"lm-eval: {task}: {n} document(s) already end in the stem {stem!r}; "
            "they are not read with it again (it would read it twice)"
        )
        for task, n in tasks.items()
    ]


def lm_eval_stage(
    run: LMEvalRun, note: Callable[[str], None] = lambda line: None
) -> StageRun[ScoreResult]:
    """:func:`audit_lm_eval` as a stage: the documents built (or read) and rendered first.

    A logged run's documents are read now; tasks' documents are built by lm-eval once the
    tokenizer is loaded (a chat template renders them), before the weights. ``note`` is told
    what is being built and which documents already end in the stem.
    """
    tasks, samples, reading = run.tasks, run.samples, run.reading
    docs = (
        []
        if samples is None
        else read_samples(samples, tasks=tasks.tasks or None, limit=tasks.limit)
    )
    source: dict[str, Any] = (
        {"tasks": tasks.config()} if samples is None else {"samples": str(samples)}
    )

    def preflight(codec: TextCodec, settings: RunSettings) -> None:
        if samples is None:
            note(f"lm-eval: building the requests of {terminal_safe(', '.join(tasks.tasks))}")
            docs.extend(task_documents(run.task_settings(), codec, settings.template_kwargs))
            note(f"lm-eval: {len(docs)} documents")
        for doc in docs:
            for variant in doc_variants(doc, reading.stem, reading.keep_whitespace):
                prepare_doc(doc, codec, reading.greedy_tokens, variant, reading.stem or "")
        if reading.stem is not None:
            for line in doubled_stems(docs, reading.stem):
                note(line)

    def score(model: ScoringModel, out: Path, settings: RunSettings) -> ScoreResult:
        return audit_lm_eval(
            model,
            docs,
            out,
            source=source,
            stem=reading.stem,
            keep_whitespace=reading.keep_whitespace,
            tolerance=reading.tolerance,
            greedy_tokens=reading.greedy_tokens,
            **settings.loop_args(),
        )

    return StageRun("lm-eval", score, preflight)
