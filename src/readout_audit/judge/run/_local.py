"""A local model as judge: its label probabilities read at the verdict's scored position.

The judge reads the planned wire body's messages through its own chat template, with the
assistant turn opened by ``{"verdict": "``; each label is an option encoded in that context, so
the constrained-option checks (label mass, unrestricted argmax, preserved boundary, distinct
first tokens) come with every verdict, and a judge whose labels hold little mass is seen.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

from readout_audit.data import Item, Message
from readout_audit.judge.protocol import JudgeRecord, PlannedRequest, planned_record, wire_body
from readout_audit.kind import Job
from readout_audit.model import PositionScores, ScoringModel, TextCodec
from readout_audit.prompt import Rendering, render
from readout_audit.readout import OptionEncoding, encode_in_context, position_request, read_position

VERDICT_STEM = '{"verdict": "'
"""The assistant's opening: the scored position is where the verdict's label begins."""
VERDICT_TOKENS = 6
"""Greedy tokens kept per verdict: enough for the label the judge would write and the quote
closing it (every contract's labels are at most four tokens); more would only slow a phase."""


def labels_of(planned: PlannedRequest) -> list[str]:
    """The request's labels in enumeration order."""
    return [choice["name"] for choice in planned.request["question"]["choices"]]


def judge_item(planned: PlannedRequest, model_name: str) -> Item:
    """The planned request as an item: the wire body's turns, the verdict stem, the labels."""
    body = wire_body(planned.request, model_name, planned.presentation)
    return Item(
        id=planned.request_id,
        messages=tuple(Message(role=m["role"], content=m["content"]) for m in body["messages"]),
        stem=VERDICT_STEM,
        options=tuple(labels_of(planned)),
    )


def judge_record(
    model: ScoringModel,
    scores: PositionScores,
    *,
    planned: PlannedRequest,
    rendering: Rendering,
    encodings: Sequence[OptionEncoding],
) -> JudgeRecord:
    """The verdict (the likeliest label), the renormalised label probabilities and the checks."""
    labels = labels_of(planned)
    readout = read_position(model, rendering, labels, encodings=encodings, scores=scores)
    logprobs = readout.option_logprobs
    scored = [lp for lp in logprobs if lp is not None]
    verdict = None
    if len(scored) == len(labels):
        verdict = labels[max(range(len(labels)), key=lambda i: scored[i])]
    probs = readout.option_probs
    return planned_record(
        planned,
        "completed" if verdict is not None else "unparsed",
        verdict=verdict,
        label_probs=None if probs is None else dict(zip(labels, probs, strict=True)),
        label_mass=readout.option_mass,
        prompt_tokens=len(rendering.token_ids),
        error=None if verdict is not None else "a label's boundary is not preserved in context",
        metadata={
            "label_logprobs": dict(zip(labels, logprobs, strict=True)),
            "argmax_token": readout.argmax_token,
            "argmax_prob": readout.argmax_prob,
            "argmax_is_label": readout.argmax_is_option,
            "boundary_preserved": readout.boundary_preserved,
            "distinct_first_tokens": readout.distinct_first_tokens,
            "greedy": readout.greedy.text,
        },
    )


def local_jobs(
    requests: Sequence[PlannedRequest], model_name: str, codec: TextCodec
) -> list[Job[Any]]:
    """One scored position per planned request, in the inventory's order."""
    jobs = []
    for planned in requests:
        item = judge_item(planned, model_name)
        rendering = render(item, codec)
        encodings = encode_in_context(codec, rendering, item.options)
        record = partial(judge_record, planned=planned, rendering=rendering, encodings=encodings)
        request = position_request(rendering, encodings, VERDICT_TOKENS)
        jobs.append(Job((planned.request_id,), request, record))
    return jobs
