"""lm-eval's audit as a stage: the documents built (or read) and rendered before the weights."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from readout_audit._util import terminal_safe
from readout_audit.kind import RunSettings, ScoreResult, StageRun
from readout_audit.lmeval._audit import audit_lm_eval, doc_variants, prepare_doc
from readout_audit.lmeval._doc import LMEvalDoc, stem_in_context
from readout_audit.lmeval._samples import read_samples
from readout_audit.lmeval._tasks import TaskSettings, task_documents
from readout_audit.model import ScoringModel, TextCodec


@dataclass(frozen=True)
class DocReading:
    """How each document is read: with a stem, before its trailing whitespace, how closely."""

    stem: str | None
    keep_whitespace: bool
    tolerance: float | None
    greedy_tokens: int


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
    tasks: TaskSettings,
    samples: Path | None,
    reading: DocReading,
    note: Callable[[str], None] = lambda line: None,
) -> StageRun[ScoreResult]:
    """:func:`audit_lm_eval` as a stage: the documents built (or read) and rendered first.

    A logged run's documents are read now; tasks' documents are built by lm-eval once the
    tokenizer is loaded (a chat template renders them), before the weights. ``note`` is told
    what is being built and which documents already end in the stem.
    """
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
            docs.extend(task_documents(tasks, codec, settings.template_kwargs))
            note(f"lm-eval: {len(docs)} documents")
        for doc in docs:
            for variant in doc_variants(doc, reading.stem, reading.keep_whitespace):
                prepare_doc(doc, codec, reading.greedy_tokens, variant, reading.stem or "")
        if reading.stem is not None:
            for line in doubled_stems(docs, reading.stem):
                note(line)

    def run(model: ScoringModel, out: Path, settings: RunSettings) -> ScoreResult:
        return audit_lm_eval(
            model,
            docs,
            out,
            source=source,
            stem=reading.stem,
            keep_whitespace=reading.keep_whitespace,
            tolerance=reading.tolerance,
            greedy_tokens=reading.greedy_tokens,
            top_k=settings.top_k,
            batch_size=settings.batch_size,
            progress=settings.progress,
            overwrite=settings.overwrite,
        )

    return StageRun("lm-eval", run, preflight)
