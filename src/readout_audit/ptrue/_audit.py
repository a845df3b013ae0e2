"""The P(True) family (seed 000): lm-polygraph's default PTrue and four repaired readouts."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from readout_audit._exceptions import InputError
from readout_audit.data import Correctness, Item, QAItem, is_correct
from readout_audit.kind import (
    AuditKind,
    Job,
    RunOut,
    RunSettings,
    ScoreResult,
    register_kind,
    run_kind,
)
from readout_audit.log import Interval, PairedScores, RunDirectory, Summary
from readout_audit.model import (
    PositionRequest,
    PositionScores,
    ScoringModel,
    check_model,
)
from readout_audit.progress import ProgressMode, as_mode, reporter
from readout_audit.ptrue._answers import (
    AnswerMode,
    PromptMode,
    answer_config,
    iter_answers,
    question_item,
)
from readout_audit.ptrue._headline import ptrue_headline
from readout_audit.ptrue._paired import ptrue_paired_metrics
from readout_audit.ptrue._record import PTrueRecord
from readout_audit.ptrue._sections import ptrue_sections
from readout_audit.readout import (
    first_step_logprob,
    position_request,
    ptrue_token_class,
)
from readout_audit.scoring import (
    PreparedItem,
    prepare,
    score_item,
    scoring_config,
)
from readout_audit.stats import Interval as BootstrapInterval
from readout_audit.stats import PredictionRejectionRatio, auc, paired_bootstrap, resampling_clusters

if TYPE_CHECKING:
    from readout_audit.ptrue._settings import PTrueSettings

PTRUE_PROMPT = (
    "Question: {q}\n Possible answer:{a}\n Is the possible answer:\n (A) True\n (B) False\n"
    " The possible answer is:"
)
"""lm-polygraph's PromptCalculator prompt, verbatim (no space after "Possible answer:")."""
MOVED_STEM = "The possible answer is ("
READOUTS = ("library", "plain", "renormalised", "labels_in_place", "moved", "deleted")
LIBRARY_TOKEN = "True"
"""The string whose token lm-polygraph reads, encoded alone."""


def readout_items(item: QAItem, answer: str, prompt_mode: PromptMode = "chat") -> dict[str, Item]:
    """The scoring item behind each readout; all but moved and deleted share one context.

    In the raw prompt mode there is no assistant turn: moved ends the prompt itself with
    ``The possible answer is (`` instead of prefilling a reply.
    """

    def ptrue(question: str, options: tuple[str, ...], moved: bool = False) -> Item:
        content = PTRUE_PROMPT.format(q=question, a=answer)
        if moved and prompt_mode == "raw":
            return question_item(item, content.removesuffix(":"), prompt_mode, options, " (")
        stem = MOVED_STEM if moved else None
        return question_item(item, content, prompt_mode, options, stem)

    full, bare = item.quoted(), item.quoted(with_instruction=False)
    return {
        "library": ptrue(full, ("True", "False")),
        "plain": ptrue(full, ("True", "False")),
        "renormalised": ptrue(full, ("True", "False")),
        "labels_in_place": ptrue(full, ("(A", "(B")),
        "moved": ptrue(full, ("A", "B"), moved=True),
        "deleted": ptrue(bare, ("True", "False")),
    }


def library_reading(model: ScoringModel) -> tuple[int, list[int]]:
    """(the token lm-polygraph reads, the end-of-sequence ids its first step suppresses)."""
    ids = model.codec.encode_with_specials(LIBRARY_TOKEN)
    if len(ids) != 1:
        raise InputError(
            f"{LIBRARY_TOKEN!r} is {len(ids)} tokens for {model.codec.name}; lm-polygraph "
            "requires one",
            field="model",
        )
    return ids[0], list(model.generation_defaults()["eos_token_ids"])


def ptrue_record(
    model: ScoringModel,
    job: PreparedItem,
    *,
    answer: str,
    correct: bool,
    top_k: int,
    letters: Sequence[str] = ("A", "B", "C", "D"),
    reading: tuple[int, Sequence[int]] | None = None,
    scores: PositionScores | None = None,
) -> PTrueRecord:
    """Read one readout's position; the greedy continuation is its first token only.

    library and deleted are lm-polygraph's first-step log P(True) (end of sequence suppressed,
    :func:`first_step_logprob`); plain is the same token's log-probability in the plain
    distribution; the others renormalise their declared options. ``reading`` is
    :func:`library_reading`'s answer, looked up once per run rather than per record.
    """
    true_id, suppressed = reading or library_reading(model)
    if scores is None:
        scores = model.score_positions([ptrue_request(job, true_id, suppressed)])[0]
    base = score_item(model, job, top_k=top_k, greedy_tokens=1, scores=scores)
    removed = None
    if job.variant in ("library", "deleted"):
        confidence, removed = first_step_logprob(scores.distribution, true_id, suppressed)
    elif job.variant == "plain":
        confidence = scores.distribution.logprob(true_id)
    else:
        confidence = base.option_probs[0] if base.option_probs is not None else None
    return PTrueRecord(
        **base.model_dump(),
        readout=job.variant,
        answer=answer,
        correct=correct,
        confidence=confidence,
        removed_mass=removed,
        item_letters=list(letters),
        argmax_class=ptrue_token_class(
            base.argmax_id, base.argmax_token, base.option_first_ids, letters
        ),
    )


def ptrue_request(job: PreparedItem, true_id: int, suppressed: Sequence[int]) -> PositionRequest:
    """The job's position request, also asking for the library's token and suppressed ids."""
    return position_request(job.rendering, job.encodings, 1, [true_id, *suppressed])


def ptrue_classes(records: Sequence[PTrueRecord]) -> dict[str, int]:
    """How often each class holds the readout's position (records of older runs classed now)."""
    return dict(
        Counter(
            r.argmax_class
            or ptrue_token_class(r.argmax_id, r.argmax_token, r.option_first_ids, r.item_letters)
            for r in records
        )
    )


class PTrueReadout(BaseModel):
    """One readout's ranking of correctness and what holds its position."""

    model_config = ConfigDict(extra="forbid")

    auroc: Interval | None
    """AUROC against correctness with its paired bootstrap interval; None with one class."""
    prr: Interval | None
    """Prediction–rejection ratio at the paper's maximum rejection (0.5), with its interval."""
    n_scored: int | None = None
    """Records with a confidence (none where the options never keep the context's boundary)."""
    median_mass: float | None
    argmax_classes: dict[str, int]


class PTrueSummary(Summary):
    """The P(True) family: each readout's AUROC and PRR, and the differences between them."""

    kind: str = "ptrue"
    accuracy: float | None = None
    """Share of the judged answers that are correct."""
    n_clusters: int | None = None
    readouts: dict[str, PTrueReadout]
    differences: dict[str, Interval] = Field(default_factory=dict)
    """AUROC of every readout minus every earlier one, on the same resamples."""
    prr_differences: dict[str, Interval] = Field(default_factory=dict)
    """PRR gains of every readout over every earlier one, on the same resamples."""
    confidences: PairedScores | None = None
    """Each readout's confidence on the items every readout scored, with correctness."""


PRR_MAX_REJECTION = 0.5
"""The paper's maximum rejection rate for PRR."""
N_BOOT = 10_000
"""Bootstrap replicates, as the paper's P(True) tables (B = 10,000)."""


prr_at_half = PredictionRejectionRatio(PRR_MAX_REJECTION)
"""PRR at the paper's maximum rejection rate, evaluated for all bootstrap replicates at once."""


def _intervals(
    found: Mapping[str, BootstrapInterval], clusters: Sequence[str], n_boot: int
) -> dict[str, Interval]:
    return {
        k: Interval.from_bootstrap(v, clusters, n_boot=n_boot, paired=True)
        for k, v in found.items()
    }


def summarise_ptrue(
    typed: Sequence[PTrueRecord], *, n_boot: int = N_BOOT, seed: int = 0
) -> PTrueSummary:
    """AUROC and PRR with paired bootstrap intervals and gains, mass and argmax classes."""
    names = [n for n in READOUTS if any(r.readout == n for r in typed)]
    by = {n: {r.item_id: r for r in typed if r.readout == n} for n in names}
    # a readout with no confidence anywhere (its options never keep the boundary) is reported
    # without a ranking rather than emptying the comparison of the others
    ranked = [n for n in names if any(r.confidence is not None for r in by[n].values())]
    shared = (
        [
            i
            for i in by[ranked[0]]
            if all(i in by[n] and by[n][i].confidence is not None for n in ranked)
        ]
        if ranked
        else []
    )
    if not shared:
        return PTrueSummary(n_records=len(typed), n_items=0, readouts={})
    y = np.array([by[ranked[0]][i].correct for i in shared], dtype=bool)
    clusters = [by[ranked[0]][i].cluster for i in shared]
    scores = {n: np.array([by[n][i].confidence for i in shared], dtype=float) for n in ranked}
    both = bool(y.any() and not y.all())
    boot, gains = (
        (
            paired_bootstrap(
                scores,
                y,
                statistic=statistic,
                n_boot=n_boot,
                seed=seed,
                clusters=resampling_clusters(clusters),
            )
            for statistic in ("auc", prr_at_half)
        )
        if both
        else (None, None)
    )
    readouts = {}
    for n in names:
        group = list(by[n].values())
        masses = [r.option_mass for r in group if r.option_mass is not None]
        readouts[n] = PTrueReadout(
            auroc=Interval.from_bootstrap(
                boot.readouts[n], clusters, n_boot=n_boot, paired=True, estimate=auc(scores[n], y)
            )
            if boot and n in ranked
            else None,
            prr=Interval.from_bootstrap(gains.readouts[n], clusters, n_boot=n_boot, paired=True)
            if gains and n in ranked
            else None,
            n_scored=sum(r.confidence is not None for r in group),
            median_mass=float(np.median(masses)) if masses else None,
            argmax_classes=ptrue_classes(group),
        )
    return PTrueSummary(
        n_records=len(typed),
        n_items=len(shared),
        accuracy=float(y.mean()),
        n_clusters=len(set(clusters)),
        readouts=readouts,
        differences=_intervals(boot.differences, clusters, n_boot) if boot else {},
        prr_differences=_intervals(gains.differences, clusters, n_boot) if gains else {},
        confidences=PairedScores(
            ids=shared,
            labels=[bool(v) for v in y],
            scores={n: [float(v) for v in scores[n]] for n in ranked},
        ),
    )


ANSWERS_SAVED_EVERY_S = 1.0
"""How often arriving answers are written to ``artifacts/answers.json`` (and at the end)."""


def keep_answers(
    run_dir: RunDirectory,
    items: Sequence[QAItem],
    generated: dict[str, str],
    arriving: Iterator[tuple[str, str]],
    advance: Callable[[], None],
) -> None:
    """Add answers to ``generated`` as they arrive, saved at least every second and at the end.

    Saved in the items' order whatever order they arrive in; an interrupted step keeps what
    was saved, and a served model's requests are in the run's ledger, so none is sent twice.
    """

    def save() -> None:
        ordered = {i.id: generated[i.id] for i in items if i.id in generated}
        run_dir.write_artifact("answers", ordered)

    saved, unsaved = time.monotonic(), 0
    try:
        for item_id, answer in arriving:
            generated[item_id] = answer
            unsaved += 1
            advance()
            if time.monotonic() - saved >= ANSWERS_SAVED_EVERY_S:
                save()
                saved, unsaved = time.monotonic(), 0
    finally:
        if unsaved:
            save()


def audit_ptrue(
    model: ScoringModel, settings: PTrueSettings, out: RunOut, run: RunSettings | None = None
) -> ScoreResult:
    """Score six P(True) readouts of each (question, answer) pair against its correctness.

    ``correctness`` is the paper's rule (the first letter of the item's own set; the first line
    equal to an alias) or ``anywhere`` (any capital letter; an alias anywhere in the answer).
    ``prompt_mode`` is lm-polygraph's: ``chat`` (its ``instruct`` mode, the paper's runs) or
    ``raw`` (its default). Answers the items do not supply come from the answer step
    ``answers`` (see :func:`generate_answers`; ``seed`` seeds each item's sampling) and are
    kept in the run directory (``artifacts/answers.json``), so a resumed run judges the same
    ones.
    """
    check_model(model)
    run = run or RunSettings()
    items, answers, seed = settings.source_read.items, settings.answers, settings.seed
    top_k, prompt_mode = run.top_k, settings.prompt_mode
    protocol = _Protocol(
        dict(run.template_kwargs),
        settings.correctness,
        answers,
        prompt_mode,
        seed,
        top_k,
        run.batch_size,
    )
    reading = library_reading(model)
    stage_mode = as_mode(run.progress)

    def plan(run_dir: RunDirectory) -> list[Job[Any]]:
        generated = _answered(model, items, protocol, run_dir, stage_mode)
        return [
            job for source in items for job in _jobs(model, source, generated, protocol, reading)
        ]

    config = scoring_config(items, top_k, 1, protocol.template_kwargs)
    config["answers_generated"] = sum(i.answer is None for i in items)
    config["answers"] = answer_config(model, answers, seed)
    config["prompt_mode"] = prompt_mode
    config["correctness"] = settings.correctness
    config["library_token"] = {
        "id": reading[0],
        "suppressed_ids": reading[1],
        # lm-polygraph's first step also applies a generation-config repetition penalty, which
        # log-probabilities cannot undo: the library value is exact where this is 1.0
        "repetition_penalty": model.generation_defaults()["repetition_penalty"],
    }
    return run_kind(
        PTRUE,
        model,
        out,
        config,
        plan,
        run,
    )


@dataclass(frozen=True)
class _Protocol:
    """How a P(True) run reads its items: rendering, correctness, the answer step."""

    template_kwargs: dict[str, Any]
    correctness: Correctness
    answers: AnswerMode
    prompt_mode: PromptMode
    seed: int
    top_k: int
    batch_size: int


def _answered(
    model: ScoringModel,
    items: Sequence[QAItem],
    protocol: _Protocol,
    run_dir: RunDirectory,
    mode: ProgressMode,
) -> dict[str, str]:
    """The generated answers: those saved in the run, and the missing ones generated now."""
    generated: dict[str, str] = run_dir.artifact("answers") or {}
    missing = [i for i in items if i.answer is None and i.id not in generated]
    arriving = iter_answers(
        model,
        missing,
        protocol.template_kwargs,
        mode=protocol.answers,
        prompt_mode=protocol.prompt_mode,
        seed=protocol.seed,
        batch_size=protocol.batch_size,
    )
    with reporter(mode, len(missing), label="answers", unit="answers to generate") as report:
        keep_answers(run_dir, items, generated, arriving, report.advance)
    return generated


def _jobs(
    model: ScoringModel,
    source: QAItem,
    generated: Mapping[str, str],
    protocol: _Protocol,
    reading: tuple[int, list[int]],
) -> list[Job[Any]]:
    """One item's six readouts of its answer, each a job with its record's arguments bound."""
    answer = source.answer if source.answer is not None else generated[source.id]
    correct = is_correct(source, answer, protocol.correctness)
    jobs = []
    for name, item in readout_items(source, answer, protocol.prompt_mode).items():
        prepared = prepare(item, model.codec, protocol.template_kwargs, 1, variant=name)
        record = partial(
            ptrue_record,
            job=prepared,
            answer=answer,
            correct=correct,
            top_k=protocol.top_k,
            letters=source.letters,
            reading=reading,
        )
        jobs.append(Job(prepared.key, ptrue_request(prepared, *reading), record))
    return jobs


PTRUE: AuditKind[PTrueRecord, PTrueSummary] = AuditKind(
    name="ptrue",
    title="P(True) audit",
    record_type=PTrueRecord,
    summary_type=PTrueSummary,
    summarise=lambda run: summarise_ptrue(run.records),
    sections=ptrue_sections,
    paired_metrics=ptrue_paired_metrics,
    headline=ptrue_headline,
)
register_kind(PTRUE)
