"""The P(True) family (seed 000): lm-polygraph's default PTrue and four repaired readouts."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from readout_audit.audit._score import (
    DEFAULT_BATCH_SIZE,
    PreparedItem,
    ScoreResult,
    prepare,
    run_audit,
    score_item,
    scoring_config,
)
from readout_audit.data._item import Item, Message
from readout_audit.data._qa import QAItem, is_correct
from readout_audit.log._record import PTrueRecord, ScoreRecord
from readout_audit.model._backend import PositionRequest, PositionScores, ScoringModel
from readout_audit.prompt._render import render
from readout_audit.readout._classes import token_class
from readout_audit.readout._position import DEFAULT_TOP_K, position_request
from readout_audit.stats._bootstrap import paired_bootstrap
from readout_audit.stats._metrics import auc
from readout_audit.stats._rejection import prr
from readout_audit.stats._resample import resampling_clusters

PTRUE_PROMPT = (
    "Question: {q}\n Possible answer:{a}\n Is the possible answer:\n (A) True\n (B) False\n"
    " The possible answer is:"
)
"""lm-polygraph's PromptCalculator prompt, verbatim (no space after "Possible answer:")."""
MOVED_STEM = "The possible answer is ("
READOUTS = ("library", "renormalised", "labels_in_place", "moved", "deleted")
ANSWER_TOKENS = 32


def generate_answers(
    model: ScoringModel,
    items: Sequence[QAItem],
    template_kwargs: Mapping[str, Any],
    batch_size: int = DEFAULT_BATCH_SIZE,
) -> list[str]:
    """The model's own answers: greedy, at most 32 new tokens, up to its end-of-turn token."""
    requests = [
        PositionRequest(
            context=render(
                Item(id=i.id, messages=(Message(role="user", content=i.quoted()),), options=("x",)),
                model.codec,
                template_kwargs,
            ).token_ids,
            greedy_tokens=ANSWER_TOKENS,
        )
        for i in items
    ]
    answers = []
    for start in range(0, len(requests), batch_size):
        for scores in model.score_positions(requests[start : start + batch_size]):
            answers.append(model.codec.decode(scores.greedy, skip_special_tokens=True).strip())
    return answers


def readout_items(item: QAItem, answer: str) -> dict[str, Item]:
    """The scoring item behind each readout; all but moved and deleted share one context."""

    def ptrue(question: str, options: tuple[str, ...], stem: str | None = None) -> Item:
        content = PTRUE_PROMPT.format(q=question, a=answer)
        return Item(
            id=item.id,
            messages=(Message(role="user", content=content),),
            options=options,
            stem=stem,
            cluster=item.cluster_key,
        )

    full, bare = item.quoted(), item.quoted(with_instruction=False)
    return {
        "library": ptrue(full, ("True", "False")),
        "renormalised": ptrue(full, ("True", "False")),
        "labels_in_place": ptrue(full, ("(A", "(B")),
        "moved": ptrue(full, ("A", "B"), MOVED_STEM),
        "deleted": ptrue(bare, ("True", "False")),
    }


def _confidence(readout: str, record: ScoreRecord) -> float | None:
    if readout in ("library", "deleted"):
        tokens = record.option_token_logprobs[0]
        return tokens[0] if tokens is not None and len(tokens) == 1 else None
    return record.option_probs[0] if record.option_probs is not None else None


def ptrue_record(
    model: ScoringModel,
    job: PreparedItem,
    *,
    answer: str,
    correct: bool,
    top_k: int,
    scores: PositionScores | None = None,
) -> PTrueRecord:
    """Read one readout's position; the greedy continuation is its first token only."""
    base = score_item(model, job, top_k=top_k, greedy_tokens=1, scores=scores)
    return PTrueRecord(
        **base.model_dump(),
        readout=job.variant,
        answer=answer,
        correct=correct,
        confidence=_confidence(job.variant, base),
    )


def summarise_ptrue(
    records: Sequence[ScoreRecord], *, n_boot: int = 20_000, seed: int = 0
) -> dict[str, Any]:
    """AUROC with paired bootstrap intervals, PRR, declared-set mass and argmax classes."""
    typed = [r for r in records if isinstance(r, PTrueRecord)]
    names = [n for n in READOUTS if any(r.readout == n for r in typed)]
    by = {n: {r.item_id: r for r in typed if r.readout == n} for n in names}
    shared = (
        [
            i
            for i in by[names[0]]
            if all(i in by[n] and by[n][i].confidence is not None for n in names)
        ]
        if names
        else []
    )
    summary: dict[str, Any] = {"n_records": len(typed), "n_items": len(shared), "readouts": {}}
    if not shared:
        return summary
    y = np.array([by[names[0]][i].correct for i in shared], dtype=bool)
    summary["accuracy"] = float(y.mean())
    summary["n_clusters"] = len({by[names[0]][i].cluster for i in shared})
    scores = {n: np.array([by[n][i].confidence for i in shared], dtype=float) for n in names}
    both = bool(y.any() and not y.all())
    boot = (
        paired_bootstrap(
            scores,
            y,
            statistic="auc",
            n_boot=n_boot,
            seed=seed,
            clusters=resampling_clusters([by[names[0]][i].cluster for i in shared]),
        )
        if both
        else None
    )
    for n in names:
        group = list(by[n].values())
        masses = [r.option_mass for r in group if r.option_mass is not None]
        summary["readouts"][n] = {
            "auroc": auc(scores[n], y) if both else None,
            "auroc_ci": [boot.readouts[n].low, boot.readouts[n].high] if boot else None,
            "prr": prr(scores[n], y.astype(float)) if both else None,
            "median_mass": float(np.median(masses)) if masses else None,
            "argmax_classes": dict(
                Counter(token_class(r.argmax_id, r.argmax_token, r.option_first_ids) for r in group)
            ),
        }
    if boot:
        summary["differences"] = {
            k: {"estimate": v.estimate, "low": v.low, "high": v.high}
            for k, v in boot.differences.items()
            if k.endswith(" - library")
        }
    return summary


def audit_ptrue(
    model: ScoringModel,
    items: Sequence[QAItem],
    out: str | Path,
    *,
    top_k: int = DEFAULT_TOP_K,
    template_kwargs: Mapping[str, Any] | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    progress: bool = False,
) -> ScoreResult:
    """Score five P(True) readouts of each (question, answer) pair against its correctness.

    Answers the items do not supply are generated first (greedy, at most 32 tokens).
    """
    kwargs = dict(template_kwargs or {})
    unanswered = [i for i in items if i.answer is None]
    generated = dict(
        zip(
            [i.id for i in unanswered],
            generate_answers(model, unanswered, kwargs, batch_size),
            strict=True,
        )
    )
    answers = {i.id: i.answer if i.answer is not None else generated[i.id] for i in items}
    correct = {i.id: is_correct(i, answers[i.id]) for i in items}
    built = [(name, item) for i in items for name, item in readout_items(i, answers[i.id]).items()]
    jobs = [prepare(item, model.codec, kwargs, 1, variant=name) for name, item in built]
    config = scoring_config([item for _, item in built], top_k, 1, kwargs)
    config["answers_generated"] = sum(i.answer is None for i in items)
    return run_audit(
        model,
        jobs,
        out,
        kind="ptrue",
        config=config,
        make_record=lambda m, job, scores: ptrue_record(
            m,
            job,
            answer=answers[job.item.id],
            correct=correct[job.item.id],
            top_k=top_k,
            scores=scores,
        ),
        summariser=summarise_ptrue,
        request=lambda job: position_request(job.rendering, job.encodings, 1),
        batch_size=batch_size,
        progress=progress,
    )
