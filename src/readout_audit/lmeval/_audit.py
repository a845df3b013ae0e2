"""The lm-eval audit: lm-eval's documents read where lm-eval reads them, with the options audit."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from readout_audit._exceptions import InputError
from readout_audit.data import Item
from readout_audit.kind import (
    AuditKind,
    Job,
    RunOut,
    RunSettings,
    ScoreResult,
    register_kind,
    run_kind,
)
from readout_audit.lmeval._checks import lm_eval_checks
from readout_audit.lmeval._doc import (
    LMEvalDoc,
    choices_problem,
    is_greedy,
    lm_eval_metrics,
    loglikelihood_metrics,
    split_like_lm_eval,
    stem_in_context,
)
from readout_audit.lmeval._headline import lm_eval_headline
from readout_audit.lmeval._paired import lm_eval_paired_metrics
from readout_audit.lmeval._record import LMEvalRecord
from readout_audit.lmeval._reproduce import default_tolerance
from readout_audit.lmeval._sections import lm_eval_sections
from readout_audit.lmeval._summary import LMEvalSummary, summarise_lm_eval
from readout_audit.model import (
    PositionScores,
    ScoringModel,
    TextCodec,
    check_model,
)
from readout_audit.options import options_record, options_request
from readout_audit.prompt import Rendering
from readout_audit.scoring import PreparedItem, prepare_rendered, scoring_config

if TYPE_CHECKING:
    from readout_audit.lmeval._settings import LMEvalRun

ORIGINAL = "production"
"""The variant holding lm-eval's own context, unchanged (the options audit's name for it)."""
STEM = "stem"
"""The answer-stem repair: the stem after lm-eval's context, a space before each continuation."""
WHITESPACE_KEPT = "whitespace_kept"
"""The position after the context's trailing whitespace, which lm-eval reads before."""
VARIANTS = (ORIGINAL, STEM, WHITESPACE_KEPT)


def doc_item(doc: LMEvalDoc, variant: str = ORIGINAL, stem: str = "") -> tuple[Item, str]:
    """The document as an item read under ``variant``, and the whitespace lm-eval moved.

    ``production`` is read where lm-eval reads it (its whitespace move applied); ``stem`` puts
    ``stem`` after the context and a space before each continuation that has no leading
    whitespace; ``whitespace_kept`` reads after the context's own trailing whitespace, with
    the continuations as lm-eval gives them.
    """
    context, continuations = doc.context, list(doc.continuations)
    if variant == STEM:
        context += stem
        continuations = [c if c[:1].isspace() else f" {c}" for c in continuations]
    problem = choices_problem(continuations)
    if problem is not None:  # "A" and " A" are one continuation once the stem adds its space
        field = "stem" if variant == STEM else "choices"
        raise InputError(f"read as {variant}: {problem}", item_id=doc.item_id, field=field)
    pairs = [split_like_lm_eval(context, c) for c in continuations]
    moved = context[len(pairs[0][0]) :]
    if variant == WHITESPACE_KEPT:
        pairs = [(context, c) for c in continuations]
    item = Item(
        id=doc.item_id,
        prompt=pairs[0][0],
        options=tuple(c for _, c in pairs),
        cluster=doc.task,
        metadata={"task": doc.task, "doc_id": doc.doc_id},
    )
    return item, moved


def prepare_doc(
    doc: LMEvalDoc, codec: TextCodec, greedy_tokens: int, variant: str = ORIGINAL, stem: str = ""
) -> tuple[PreparedItem, str]:
    """The document rendered as lm-eval's HFLM encodes it: the context's text, no added tokens."""
    item, moved = doc_item(doc, variant, stem)
    text = item.prompt or ""
    if not text:
        raise item.error("the context is empty once lm-eval moves its whitespace", "context")
    if (why := codec.too_long(len(text) + max(map(len, item.options)))) is not None:
        raise item.error(f"the context with its longest choice {why}", "context")
    rendering = Rendering(text=text, token_ids=tuple(codec.encode(text)), source="prompt")
    return prepare_rendered(item, rendering, codec, greedy_tokens, variant), moved


def doc_variants(doc: LMEvalDoc, stem: str | None, keep_whitespace: bool) -> list[str]:
    """The variants a document is read under: lm-eval's, and the repairs asked for that apply.

    ``stem`` applies only where the context does not already end in it (``Answer:Answer:``
    repairs nothing); ``whitespace_kept`` only where the context ends in whitespace.
    """
    chosen = [ORIGINAL]
    if stem is not None and not stem_in_context(doc.context, stem):
        chosen.append(STEM)
    if keep_whitespace and doc.context != doc.context.rstrip():
        chosen.append(WHITESPACE_KEPT)
    return chosen


def lm_eval_record(
    model: ScoringModel,
    doc: LMEvalDoc,
    job: PreparedItem,
    moved: str,
    *,
    top_k: int,
    greedy_tokens: int,
    tolerance: float | None,
    scores: PositionScores,
) -> LMEvalRecord:
    """Read one document's position: the options audit's record and lm-eval's metrics."""
    base = options_record(
        model, job, spec="lm-eval", top_k=top_k, greedy_tokens=greedy_tokens, scores=scores
    )
    logliks = base.option_logprobs
    greedy = [is_greedy(ids, base.greedy.token_ids, greedy_tokens) for ids in base.option_token_ids]
    if doc.output_type == "loglikelihood":
        metrics = loglikelihood_metrics(greedy[0])
    elif None not in logliks and doc.gold:
        scored = [float(x) for x in logliks if x is not None]
        metrics = lm_eval_metrics(scored, doc.choices, doc.gold, greedy)
    else:
        metrics = {}
    return LMEvalRecord(
        **base.model_dump(),
        task=doc.task,
        group=doc.group,
        doc_id=doc.doc_id,
        choices=list(doc.choices),
        gold=list(doc.gold),
        moved_whitespace=moved,
        lm_eval_metrics=metrics,
        logged_logliks=None if doc.logged is None else list(doc.logged.logliks),
        logged_metrics={} if doc.logged is None else dict(doc.logged.metrics),
        tolerance=None if doc.logged is None else tolerance,
    )


def audit_lm_eval(
    model: ScoringModel, settings: LMEvalRun, out: RunOut, run: RunSettings | None = None
) -> ScoreResult:
    """Audit lm-eval's documents at the positions lm-eval scores, into the run ``out``.

    The documents are the logged run's, or the tasks' as lm-eval builds them; where they came
    from goes into the manifest. With a ``stem``, every document is also read with the answer
    stem after lm-eval's context (where the context does not already end in it); with
    ``keep_whitespace``, every document whose context ends in whitespace is also read after
    it. ``tolerance`` bounds |re-scored − logged| log-likelihood for documents read from logged
    samples (default: :func:`default_tolerance`).
    """
    check_model(model)
    run = run or RunSettings()
    docs = settings.documents(model.codec, run)
    if not docs:
        raise ValueError("no documents to audit")
    reading, top_k = settings.reading, run.top_k
    stem, keep_whitespace, tolerance = reading.stem, reading.keep_whitespace, reading.tolerance
    greedy_tokens = reading.greedy_tokens
    source: dict[str, Any] = (
        {"tasks": settings.tasks.config()}
        if settings.samples is None
        else {"samples": str(settings.samples)}
    )

    def plan(_: Any) -> list[Job[Any]]:
        jobs = []
        for doc in docs:
            for variant in doc_variants(doc, stem, keep_whitespace):
                job, moved = prepare_doc(doc, model.codec, greedy_tokens, variant, stem or "")
                allowed = (
                    tolerance
                    if tolerance is not None
                    else default_tolerance(model.info, len(job.rendering.token_ids))
                )
                record = partial(
                    lm_eval_record,
                    doc=doc,
                    job=job,
                    moved=moved,
                    top_k=top_k,
                    greedy_tokens=greedy_tokens,
                    tolerance=allowed,
                )
                jobs.append(Job(job.key, options_request(job, greedy_tokens, model.codec), record))
        return jobs

    config = scoring_config(docs, top_k, greedy_tokens, {})
    config.update(
        {"source": source, "stem": stem, "keep_whitespace": keep_whitespace, "tolerance": tolerance}
    )
    return run_kind(
        LM_EVAL,
        model,
        out,
        config,
        plan,
        run,
    )


LM_EVAL: AuditKind[LMEvalRecord, LMEvalSummary] = AuditKind(
    name="lm-eval",
    title="lm-evaluation-harness readout audit",
    record_type=LMEvalRecord,
    summary_type=LMEvalSummary,
    summarise=summarise_lm_eval,
    sections=lm_eval_sections,
    checks=lm_eval_checks,
    paired_metrics=lm_eval_paired_metrics,
    headline=lm_eval_headline,
)
register_kind(LM_EVAL)
