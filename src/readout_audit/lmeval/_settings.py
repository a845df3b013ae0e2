"""lm-eval's audit settings, which are its stage: documents built (or read) and rendered first."""

from __future__ import annotations

import json
import sys
from functools import cached_property
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from readout_audit._exceptions import InputError
from readout_audit._util import terminal_safe
from readout_audit.kind import GreedyTokens, KindSettings, RunSettings, ScoreResult
from readout_audit.lmeval._audit import LM_EVAL, audit_lm_eval, doc_variants, prepare_doc
from readout_audit.lmeval._doc import LMEvalDoc, stem_in_context
from readout_audit.lmeval._samples import read_samples, samples_files
from readout_audit.lmeval._tasks import TaskOptions, TaskSettings, task_documents
from readout_audit.log import RunDirectory
from readout_audit.model import ScoringModel, TextCodec
from readout_audit.progress import announce
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


class LMEvalRun(KindSettings):
    """What one audit reads (lm-eval's tasks, or a logged run's samples) and how it reads it.

    A logged run's documents are read once; tasks' documents are built by lm-eval once the
    tokenizer is loaded (a chat template renders them), before the weights, and again by the
    run itself when no preflight built them for its tokenizer.
    """

    kind = LM_EVAL

    tasks: TaskOptions = Field(default_factory=TaskOptions)
    samples: Path | None = None
    """A finished run's --log_samples output: a samples_<task>_<date>.jsonl file or a folder
    of them. Every logged request is re-scored and compared before the audit."""
    reading: DocReading = Field(default_factory=DocReading)
    _built: dict[str, list[LMEvalDoc]] = PrivateAttr(default_factory=dict)

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

    def documents(self, codec: TextCodec, run: RunSettings) -> list[LMEvalDoc]:
        """The documents audited: the logged run's, or the tasks' as lm-eval builds them.

        Tasks' documents are built for ``codec``'s chat template, once per tokenizer and
        template arguments.
        """
        if self.samples is not None:
            return self._logged
        key = json.dumps([id(codec), run.template_kwargs], sort_keys=True)
        if key not in self._built:
            names = terminal_safe(", ".join(self.tasks.tasks))
            announce(run.progress, f"lm-eval: building the requests of {names}")
            self._built[key] = task_documents(self.task_settings(), codec, run.template_kwargs)
            announce(run.progress, f"lm-eval: {len(self._built[key])} documents")
        return self._built[key]

    @cached_property
    def _logged(self) -> list[LMEvalDoc]:
        assert self.samples is not None
        return read_samples(self.samples, tasks=self.tasks.tasks or None, limit=self.tasks.limit)

    def read_inputs(self) -> None:
        """The logged run's documents, or the tasks' files, read and checked now."""
        self.inputs()
        if self.samples is not None:
            self._logged  # noqa: B018  (a cached read)

    def preflight(self, codec: TextCodec, run: RunSettings) -> None:
        """Every document rendered (each reading of it) against the context window."""
        reading = self.reading
        docs = self.documents(codec, run)
        for doc in docs:
            for variant in doc_variants(doc, reading.stem, reading.keep_whitespace):
                prepare_doc(doc, codec, reading.greedy_tokens, variant, reading.stem or "")
        if reading.stem is not None:
            for line in doubled_stems(docs, reading.stem):
                print(f"warning: {line}", file=sys.stderr)

    def run(self, model: ScoringModel, out: RunDirectory, run: RunSettings) -> ScoreResult:
        """:func:`audit_lm_eval` of these settings."""
        return audit_lm_eval(model, self, out, run)


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
