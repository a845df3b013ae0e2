"""A run whose items share a few-shot block reads what each item's own forward reads."""

from __future__ import annotations

import pytest

from readout_audit import Item, read_run, score

pytestmark = pytest.mark.cost(20)

SHOTS = "".join(
    f"Q: Which of these is a {kind}? A. {a} B. {b}\nA: {answer}\n\n"
    for kind, a, b, answer in [
        ("fruit", "apple", "brick", "A"),
        ("metal", "wool", "iron", "B"),
        ("bird", "sparrow", "trout", "A"),
        ("tool", "cloud", "hammer", "B"),
        ("colour", "green", "seven", "A"),
    ]
)
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


@pytest.mark.model
def test_batches_below_one_block_equal_one_item_at_a_time(model, tmp_path, float32_budget):
    start = model.encoded_tokens
    shared = read_run(score(model, items(), tmp_path / "shared", batch_size=2).directory)
    middle = model.encoded_tokens
    alone = read_run(score(model, items(), tmp_path / "alone", batch_size=1).directory)
    contexts = sum(r.n_tokens for r in alone.records)
    assert model.encoded_tokens - middle == contexts  # one at a time: every context whole
    block = len(model.codec.encode(SHOTS))
    # the first item alone, its block kept for the batches of two below it: encoded once
    assert middle - start <= contexts - 4 * (block - 1)
    by_id = {r.item_id: r for r in alone.records}
    assert [r.item_id for r in shared.records] == [r.item_id for r in alone.records]
    for record in shared.records:
        other = by_id[record.item_id]
        budget = float32_budget(record.n_tokens + 4)
        assert record.argmax_id == other.argmax_id and record.greedy.text == other.greedy.text
        assert record.option_mass == pytest.approx(other.option_mass, abs=budget)
        for a, b in zip(record.option_logprobs, other.option_logprobs, strict=True):
            assert a == pytest.approx(b, abs=budget)
