"""Generic scoring: every item's scored position read once, written as a resumable run."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from pydantic import BaseModel

from readout_audit.data import Item
from readout_audit.kind import (
    AuditKind,
    Job,
    RunSettings,
    register_kind,
)
from readout_audit.log import ScoreRecord
from readout_audit.model import (
    PositionScores,
    ScoringModel,
    TextCodec,
)
from readout_audit.prompt import Rendering, context_field, render
from readout_audit.readout import (
    DEFAULT_GREEDY_TOKENS,
    DEFAULT_TOP_K,
    OptionEncoding,
    encode_in_context,
    position_request,
    read_position,
)
from readout_audit.scoring._headline import score_headline
from readout_audit.scoring._sections import score_sections
from readout_audit.scoring._summary import ScoreSummary, summarise_score_run


def variant_name(item: Item) -> str:
    """``stem`` when the item prefills an answer stem, else ``production``."""
    return "stem" if item.stem else "production"


def items_sha256(items: Sequence[BaseModel]) -> str:
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
    return prepare_rendered(
        item, render(item, codec, template_kwargs), codec, greedy_tokens, variant
    )


def prepare_rendered(
    item: Item,
    rendering: Rendering,
    codec: TextCodec,
    greedy_tokens: int = DEFAULT_GREEDY_TOKENS,
    variant: str | None = None,
) -> PreparedItem:
    """Encode an item's options after a rendering made elsewhere, checked against the window."""
    encodings = encode_in_context(codec, rendering, item.options)
    window = codec.context_window
    n_context = len(rendering.token_ids)
    longest = max(len(e.token_ids or ()) for e in encodings)
    if window is not None and n_context + max(longest, greedy_tokens) > window:
        raise item.error(
            f"context ({n_context} tokens) plus the longest option ({longest}) or the greedy "
            f"continuation ({greedy_tokens}) exceeds the model's window of {window}",
            "options" if longest > greedy_tokens else context_field(item),
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


def score_job(prepared: PreparedItem, top_k: int, greedy_tokens: int) -> Job[Any]:
    """The job reading one prepared item's scored position."""
    return Job(
        key=prepared.key,
        request=position_request(prepared.rendering, prepared.encodings, greedy_tokens),
        payload=partial(score_item, item=prepared, top_k=top_k),
    )


def scoring_config(
    items: Sequence[BaseModel], top_k: int, greedy_tokens: int, template_kwargs: Mapping[str, Any]
) -> dict[str, Any]:
    """The manifest configuration shared by every audit: items hash and readout options."""
    return {
        "items_sha256": items_sha256(items),
        "n_items": len(items),
        "top_k": top_k,
        "greedy_tokens": greedy_tokens,
        "template_kwargs": json.loads(json.dumps(dict(template_kwargs))),
    }


def check_rendered(
    items: Sequence[Item], codec: TextCodec, run: RunSettings, greedy_tokens: int
) -> None:
    """Render every item and check it against the context window (a kind's preflight)."""
    for item in items:
        prepare(item, codec, run.template_kwargs, greedy_tokens)


SCORE: AuditKind[ScoreRecord, ScoreSummary] = AuditKind(
    name="score",
    title="scoring run",
    record_type=ScoreRecord,
    summary_type=ScoreSummary,
    summarise=summarise_score_run,
    sections=score_sections,
    headline=score_headline,
)
register_kind(SCORE)
