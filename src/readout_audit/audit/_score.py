"""Generic scoring: every item's scored position read once, written as a resumable run."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from readout_audit._exceptions import InputError
from readout_audit.audit._summary import summarise
from readout_audit.data._item import Item
from readout_audit.log._manifest import Manifest
from readout_audit.log._record import ScoreRecord
from readout_audit.log._run import RunWriter, read_run
from readout_audit.model._backend import PositionRequest, PositionScores, ScoringModel
from readout_audit.model._codec import TextCodec
from readout_audit.prompt._render import Rendering, context_field, render
from readout_audit.readout._options import OptionEncoding, encode_in_context
from readout_audit.readout._position import (
    DEFAULT_GREEDY_TOKENS,
    DEFAULT_TOP_K,
    position_request,
    read_position,
)

DEFAULT_BATCH_SIZE = 32
"""Scored positions sent to the model at once: one padded forward, one batched greedy decode.

Greedy decoding reads every weight once per step whatever the batch, so larger batches make
the continuation cheap per item; jobs are sorted by context length first, so padding is small.
"""


@dataclass(frozen=True)
class ScoreResult:
    """What a call to :func:`score` did."""

    directory: Path
    summary: dict[str, Any]
    n_new: int
    """Records written by this call (a resumed run skips those already on disk)."""


def variant_name(item: Item) -> str:
    """``stem`` when the item prefills an answer stem, else ``production``."""
    return "stem" if item.stem else "production"


def items_sha256(items: Sequence[Item]) -> str:
    """A hash of the items' content, so a resumed run is known to score the same items."""
    digest = hashlib.sha256()
    for item in items:
        digest.update(item.model_dump_json().encode("utf-8") + b"\n")
    return digest.hexdigest()


@dataclass(frozen=True)
class PreparedItem:
    """An item rendered and its options encoded in context, checked against the window."""

    item: Item
    rendering: Rendering
    encodings: list[OptionEncoding]
    variant: str

    @property
    def key(self) -> tuple[str, str]:
        """Identity of its record within a run: (item id, variant)."""
        return (self.item.id, self.variant)


def prepare(
    item: Item,
    codec: TextCodec,
    template_kwargs: Mapping[str, Any] | None = None,
    greedy_tokens: int = DEFAULT_GREEDY_TOKENS,
    variant: str | None = None,
) -> PreparedItem:
    """Render an item and encode its options; an ``InputError`` names it if it cannot fit."""
    rendering = render(item, codec, template_kwargs)
    encodings = encode_in_context(codec, rendering, item.options)
    window = codec.context_window
    n_context = len(rendering.token_ids)
    longest = max(len(e.token_ids or ()) for e in encodings)
    if window is not None and n_context + max(longest, greedy_tokens) > window:
        raise InputError(
            f"context ({n_context} tokens) plus the longest option ({longest}) or the greedy "
            f"continuation ({greedy_tokens}) exceeds the model's window of {window}",
            item_id=item.id,
            field="options" if longest > greedy_tokens else context_field(item),
        )
    return PreparedItem(item, rendering, encodings, variant or variant_name(item))


def score_item(
    model: ScoringModel,
    item: Item | PreparedItem,
    *,
    top_k: int = DEFAULT_TOP_K,
    greedy_tokens: int = DEFAULT_GREEDY_TOKENS,
    template_kwargs: Mapping[str, Any] | None = None,
    scores: PositionScores | None = None,
) -> ScoreRecord:
    """Read one item's scored position into a record (rendering it unless already prepared).

    ``scores`` are the model's answer to the item's request when a batched run has them.
    """
    prepared = (
        item
        if isinstance(item, PreparedItem)
        else prepare(item, model.codec, template_kwargs, greedy_tokens)
    )
    source = prepared.item
    readout = read_position(
        model,
        prepared.rendering,
        source.options,
        top_k=top_k,
        greedy_tokens=greedy_tokens,
        encodings=prepared.encodings,
        scores=scores,
    )
    return ScoreRecord(
        item_id=source.id,
        variant=prepared.variant,
        options=list(source.options),
        target=source.target,
        cluster=source.cluster_key,
        metadata=source.metadata,
        **prepared.rendering.context_fields().model_dump(),
        **readout.model_dump(),
    )


def _progress(enabled: bool) -> Progress:
    return Progress(
        TextColumn("[bold]scoring"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        disable=not enabled,
    )


RecordMaker = Callable[[ScoringModel, PreparedItem, PositionScores], ScoreRecord]
Summariser = Callable[[Sequence[ScoreRecord]], dict[str, Any]]
Requester = Callable[[PreparedItem], PositionRequest]


def batches(jobs: Sequence[PreparedItem], size: int) -> list[list[PreparedItem]]:
    """Split jobs into consecutive batches of ``size``, keeping equal contexts together.

    A batch never ends between two jobs that share a rendered context (P(True)'s library and
    renormalised readouts), so the model encodes that context once.
    """
    if size < 1:
        raise InputError(f"batch size must be at least 1, got {size}", field="batch_size")
    grouped: list[list[PreparedItem]] = []
    for job in jobs:
        current = grouped[-1] if grouped else None
        if (
            current is not None
            and len(current) >= size
            and job.rendering.token_ids != current[-1].rendering.token_ids
        ):
            current = None
        if current is None:
            grouped.append([job])
        else:
            current.append(job)
    return grouped


def run_audit(
    model: ScoringModel,
    jobs: Sequence[PreparedItem],
    out: str | Path,
    *,
    kind: str,
    config: dict[str, Any],
    make_record: RecordMaker,
    summariser: Summariser,
    request: Requester,
    batch_size: int = DEFAULT_BATCH_SIZE,
    progress: bool = False,
) -> ScoreResult:
    """Write one record per prepared job into ``out``, resuming a run of the same configuration.

    Jobs go to the model ``batch_size`` at a time, shortest contexts first (each job's
    ``request``); each record is
    flushed as it completes, so on any interruption the finished records stay and a rerun
    skips them. The summary is computed from every record on disk.
    """
    writer = RunWriter(out, Manifest.create(kind, model.info, config))
    # length buckets: similar contexts share a batch (a stable sort keeps shared contexts adjacent)
    todo = sorted(
        (job for job in jobs if job.key not in writer.done),
        key=lambda job: len(job.rendering.token_ids),
    )
    started, tokens = time.perf_counter(), 0
    try:
        with _progress(progress) as bar:
            task = bar.add_task("scoring", total=len(todo))
            for batch in batches(todo, batch_size):
                answers = model.score_positions([request(job) for job in batch])
                for job, scores in zip(batch, answers, strict=True):
                    record = make_record(model, job, scores)
                    writer.append(record)
                    tokens += record.n_tokens + sum(len(t or ()) for t in record.option_token_ids)
                    bar.advance(task)
    except BaseException:
        writer.close()  # every finished record is already on disk; a rerun resumes
        raise
    elapsed = time.perf_counter() - started
    summary = summariser(read_run(out).records)
    summary["this_invocation"] = {
        "n_new_records": len(todo),
        "seconds": round(elapsed, 3),
        "items_per_s": len(todo) / elapsed if elapsed > 0 else None,
        "tokens_per_s": tokens / elapsed if elapsed > 0 else None,
    }
    writer.close(summary)
    return ScoreResult(directory=Path(out), summary=summary, n_new=len(todo))


def scoring_config(
    items: Sequence[Item], top_k: int, greedy_tokens: int, template_kwargs: Mapping[str, Any]
) -> dict[str, Any]:
    """The manifest configuration shared by every audit: items hash and readout options."""
    return {
        "items_sha256": items_sha256(items),
        "n_items": len(items),
        "top_k": top_k,
        "greedy_tokens": greedy_tokens,
        "template_kwargs": json.loads(json.dumps(dict(template_kwargs))),
    }


def score(
    model: ScoringModel,
    items: Sequence[Item],
    out: str | Path,
    *,
    top_k: int = DEFAULT_TOP_K,
    greedy_tokens: int = DEFAULT_GREEDY_TOKENS,
    template_kwargs: Mapping[str, Any] | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    progress: bool = False,
) -> ScoreResult:
    """Score every item into the run directory ``out``, resuming it if it exists.

    All items are rendered, encoded and checked against the model's window before any is
    scored, so bad input stops the run before it writes anything.
    """
    kwargs = dict(template_kwargs or {})
    jobs = [prepare(item, model.codec, kwargs, greedy_tokens) for item in items]
    return run_audit(
        model,
        jobs,
        out,
        kind="score",
        config=scoring_config(items, top_k, greedy_tokens, kwargs),
        make_record=lambda m, job, scores: score_item(m, job, top_k=top_k, scores=scores),
        summariser=summarise,
        request=lambda job: position_request(job.rendering, job.encodings, greedy_tokens),
        batch_size=batch_size,
        progress=progress,
    )
