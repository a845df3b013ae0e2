"""A run whose items share a few-shot block reads what each item's own forward reads."""

from __future__ import annotations

import numpy as np
import pytest
from few_shot import SHOTS

from readout_audit import Item, read_run, score
from readout_audit.model import PositionRequest

pytestmark = pytest.mark.cost(20)

QUESTIONS = [
    ("flower", "rose", "stone"),
    ("fish", "oak", "salmon"),
    ("planet", "Mars", "spoon"),
    ("drink", "tea", "chair"),
    ("animal", "lamp", "horse"),
]


def items() -> list[Item]:
    """Five-shot items with letter and full-text options: one block before every question."""
    return [
        Item(
            id=kind,
            prompt=f"{SHOTS}Q: Which of these is a {kind}? A. {a} B. {b}\nA:",
            options=[" A", " B", f" {a}", f" {b}"],
        )
        for kind, a, b in QUESTIONS
    ]


def plain_run(model, items: list[Item], out):
    """The run with every context encoded in full (prefix sharing off), read back."""
    model.share_prefixes = False
    try:
        return read_run(score(model, items, out, batch_size=1).directory)
    finally:
        model.share_prefixes = True


@pytest.mark.model
def test_batches_below_one_block_equal_plain_forwards(model, tmp_path, float32_budget):
    start = model.encoded_tokens
    shared = read_run(score(model, items(), tmp_path / "shared", batch_size=2).directory)
    middle = model.encoded_tokens
    single = read_run(score(model, items(), tmp_path / "single", batch_size=1).directory)
    after = model.encoded_tokens
    plain = plain_run(model, items(), tmp_path / "plain")
    contexts = sum(r.n_tokens for r in plain.records)
    assert model.encoded_tokens - after == contexts  # sharing off: every context whole
    block = len(model.codec.encode(SHOTS))
    # the first item alone, its block kept for the batches below it: encoded once, whether
    # the next batch holds two items or one
    assert middle - start <= contexts - 4 * (block - 1)
    assert after - middle <= contexts - 4 * (block - 1)
    by_id = {r.item_id: r for r in plain.records}
    for run in (shared, single):
        assert [r.item_id for r in run.records] == [r.item_id for r in plain.records]
        for record in run.records:
            other = by_id[record.item_id]
            budget = float32_budget(record.n_tokens + 4)
            assert record.argmax_id == other.argmax_id and record.greedy.text == other.greedy.text
            assert record.option_mass == pytest.approx(other.option_mass, abs=budget)
            for a, b in zip(record.option_logprobs, other.option_logprobs, strict=True):
                assert a == pytest.approx(b, abs=budget)


@pytest.mark.model
def test_a_batch_over_the_cache_budget_is_scored_in_chunks_with_the_same_numbers(
    model, float32_budget
):
    requests = [
        PositionRequest(
            model.codec.encode(item.prompt),
            [model.codec.encode(o) for o in item.options],
            greedy_tokens=2,
        )
        for item in items()
    ]
    longest = max(len(r.context) + 2 for r in requests)
    budget = model.cache_budget
    model.cache_budget = 2 * longest * model.cache_bytes_per_token()  # two rows per chunk
    try:
        chunks = model.chunks(requests)
        model.score_positions([PositionRequest(model.codec.encode("Hello"))])  # nothing kept
        start = model.encoded_tokens
        chunked = model.score_positions(requests)
        encoded = model.encoded_tokens - start
    finally:
        model.cache_budget = budget
    whole = model.score_positions(requests)
    assert [len(c) for c in chunks] == [2, 2, 1]
    block = len(model.codec.encode(SHOTS))
    # the first chunk encodes the block once, each later chunk starts from it
    assert block - 1 <= encoded <= sum(len(r.context) for r in requests) - 4 * (block - 1)
    for request, a, b in zip(requests, whole, chunked, strict=True):
        assert a.greedy == b.greedy
        tolerance = float32_budget(len(request.context) + 2)
        assert np.max(np.abs(a.distribution.full - b.distribution.full)) <= tolerance
        for x, y in zip(a.continuations, b.continuations, strict=True):
            assert np.max(np.abs(x - y)) <= tolerance
