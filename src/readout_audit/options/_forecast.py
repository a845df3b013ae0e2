"""The forecast task's note writer and note-only reader (seed 000, Appendix H)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from readout_audit._exceptions import InputError
from readout_audit._util import JsonlAppender, iter_values
from readout_audit.data import Item, MCItem, Message
from readout_audit.model import ScoringModel, TextCodec
from readout_audit.prompt import Rendering, item_parts, quoted_item, render
from readout_audit.readout import encode_in_context

WRITER_PROMPT = (
    "Source text: {passage}\n\nA future reader will answer a question about this text using ONLY "
    "your note. You do not get to see the question. Budget: at most {budget} words. Write only "
    "the note and then stop."
)
RETRY_PROMPT = " Use at most {budget} words, in one compact phrase."
READER_PROMPT = "Note: {note}\n\n{item}"
READER_FILE = "reader.jsonl"
WRITER_TOKENS = 256
"""The writer's cap in new tokens (seed 000, Appendix H); the note's budget is in words."""
THINKING_MARKS = ("<think>", "</think>")
"""A note holding one of these came from a thinking model's reasoning, not a note."""


def writer_rendering(
    codec: TextCodec,
    passage: str,
    budget: int,
    attempt: int = 0,
    template_kwargs: Mapping[str, Any] | None = None,
) -> Rendering:
    """The writer's prompt: the passage without its question; retry r asks for ⌊budget/(r+1)⌋."""
    prompt = WRITER_PROMPT.format(passage=passage, budget=budget)
    if attempt:
        prompt += RETRY_PROMPT.format(budget=budget // (attempt + 1))
    item = Item(id="writer", messages=(Message(role="user", content=prompt),), options=("x",))
    return render(item, codec, template_kwargs)


def write_note(
    model: ScoringModel,
    passage: str,
    *,
    budget: int = 32,
    max_new_tokens: int = WRITER_TOKENS,
    retries: int = 4,
    template_kwargs: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A greedy note about the passage within ``budget`` words.

    A note must end at an end-of-turn token within ``max_new_tokens``, hold 1 to ``budget`` words
    and no thinking token; otherwise it is retried up to ``retries`` times, retry r asking for
    ⌊budget/(r+1)⌋ words. If every attempt fails, the last note is cut to the budget.
    """
    text = ""
    for attempt in range(retries + 1):
        rendering = writer_rendering(model.codec, passage, budget, attempt, template_kwargs)
        ids = model.greedy(rendering.token_ids, max_new_tokens)
        finished = bool(ids) and ids[-1] in model.codec.stop_ids
        thinking = any(mark in model.codec.decode(ids) for mark in THINKING_MARKS)
        text = " ".join(model.codec.decode(ids, skip_special_tokens=True).split())
        if finished and not thinking and 0 < len(text.split()) <= budget:
            return {"note": text, "attempts": attempt + 1, "truncated": False}
    return {"note": " ".join(text.split()[:budget]), "attempts": retries + 1, "truncated": True}


def reader_rendering(
    codec: TextCodec, item: MCItem, note: str, template_kwargs: Mapping[str, Any] | None = None
) -> Rendering:
    """The note-only reader's prompt: one user turn with the note and the item, no stem."""
    content = READER_PROMPT.format(note=note, item=quoted_item(item_parts(item)))
    reader = Item(
        id=item.id,
        messages=(Message(role="user", content=content),),
        options=tuple(f" {letter}" for letter in item.letters),
    )
    return render(reader, codec, template_kwargs)


def read_from_note(
    model: ScoringModel,
    item: MCItem,
    note: str,
    template_kwargs: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The note-only reader: the option among " A", " B", … with the highest log-likelihood.

    Returns the pick, whether it is the gold letter, and every option's log-likelihood.
    """
    rendering = reader_rendering(model.codec, item, note, template_kwargs)
    letters = [f" {letter}" for letter in item.letters]
    encodings = encode_in_context(model.codec, rendering, letters)
    if any(e.token_ids is None for e in encodings):
        raise InputError("reader options merge with the rendered prompt", item_id=item.id)
    scored = model.continuation_logprobs(
        rendering.token_ids, [e.token_ids for e in encodings if e.token_ids is not None]
    )
    logprobs = [float(lp.sum()) for lp in scored]
    pick = item.letters[int(np.argmax(logprobs))]
    return {"reader_pick": pick, "reader_correct": pick == item.answer, "reader_logprobs": logprobs}


def _reader_key(
    model: ScoringModel, item: MCItem, budget: int, template_kwargs: Mapping[str, Any]
) -> str:
    """What a reader entry depends on: item, word budget and cap, template arguments, model."""
    identity = {
        "item": item.model_dump(mode="json"),
        "budget": budget,
        "writer_tokens": WRITER_TOKENS,
        "template_kwargs": dict(template_kwargs),
        "model": [f.sha256 for f in model.info.files],
        "template": model.info.chat_template_sha256,
    }
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode("utf-8")).hexdigest()


def attach_reader(
    model: ScoringModel,
    items: Sequence[MCItem],
    out: str | Path,
    *,
    budget: int = 32,
    template_kwargs: Mapping[str, Any] | None = None,
) -> list[MCItem]:
    """Give every item a note (written when it has only a passage) and the reader's outcome.

    The writer and the reader render their prompts with ``template_kwargs``, as the scored
    prompts are. Results are appended to RUN/reader.jsonl as they complete, so a rerun reuses
    them; each is keyed by the item's content, the word budget, the template arguments and the
    model's files, so an entry left by other items or another model is never reused.
    """
    kwargs = dict(template_kwargs or {})
    path = Path(out) / READER_FILE
    done: dict[str, dict[str, Any]] = {
        entry["id"]: entry for _, entry in iter_values(path, append_only=True)
    }
    ready = []
    cache = JsonlAppender(path)
    try:
        for item in items:
            if item.answer is None:
                raise InputError(
                    "the note-only reader needs the gold letter", item_id=item.id, field="answer"
                )
            key = _reader_key(model, item, budget, kwargs)
            entry = done.get(item.id)
            if entry is None or entry.get("key") != key:
                if item.note is not None:
                    entry = {"note": item.note, "attempts": 0, "truncated": False}
                elif item.passage:
                    entry = write_note(model, item.passage, budget=budget, template_kwargs=kwargs)
                else:
                    raise InputError(
                        "the forecast needs a note or a passage to write one from",
                        item_id=item.id,
                        field="note",
                    )
                entry = {
                    "id": item.id,
                    "key": key,
                    **entry,
                    **read_from_note(model, item, entry["note"], kwargs),
                }
                cache.write(entry)
            metadata = {
                **item.metadata,
                **{k: v for k, v in entry.items() if k not in ("id", "key")},
            }
            ready.append(item.model_copy(update={"note": entry["note"], "metadata": metadata}))
    finally:
        cache.close()
    return ready
