"""Everything read at one scored position, checked against independent computations."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from readout_audit import Item, read_position, render
from readout_audit.readout import numeric_values, renormalise

FORECAST = [
    {
        "role": "user",
        "content": "A reader sees only a short note and answers one quiz question. Out of 100 such "
        "readers, how many answer correctly? Reply with exactly one of: 10, 30, 50, 70, 90.",
    }
]
GRID = ["10", "30", "50", "70", "90"]


@pytest.fixture(scope="module")
def forecast(model):
    item = Item(id="f", messages=FORECAST, options=GRID, stem="Out of 100 such readers, about ")
    rendering = render(item, model.codec)
    return rendering, read_position(model, rendering, GRID, top_k=5, greedy_tokens=8)


def test_option_loglikelihoods_are_sums_of_plain_forward_logprobs(model, torch_model, forecast):
    rendering, readout = forecast
    context = list(rendering.token_ids)
    for option, tokens, loglik in zip(
        GRID, readout.option_token_ids, readout.option_logprobs, strict=True
    ):
        assert tokens is not None and len(tokens) >= 1
        assert tokens == model.codec.encode(rendering.text + option)[len(context) :]
        with torch.inference_mode():
            logits = torch_model(input_ids=torch.tensor([context + tokens])).logits[0]
        lp = logits.double().log_softmax(-1)
        expected = sum(lp[len(context) - 1 + j, t].item() for j, t in enumerate(tokens))
        assert loglik == pytest.approx(expected, abs=1e-4)


def test_renormalised_distribution_and_expected_value(forecast):
    _, readout = forecast
    logliks = np.array(readout.option_logprobs, dtype=np.float64)
    expected = torch.softmax(torch.tensor(logliks), 0).numpy()
    np.testing.assert_allclose(readout.option_probs, expected, rtol=1e-12)
    assert readout.expected_value == pytest.approx(float(np.dot([10, 30, 50, 70, 90], expected)))
    assert 10 <= readout.expected_value <= 90


def test_argmax_top_and_greedy_are_consistent(model, forecast):
    rendering, readout = forecast
    assert readout.top[0].id == readout.argmax_id
    assert readout.top[0].prob == pytest.approx(readout.argmax_prob)
    assert [t.prob for t in readout.top] == sorted((t.prob for t in readout.top), reverse=True)
    assert readout.argmax_token == model.codec.decode([readout.argmax_id])
    assert readout.greedy.token_ids[0] == readout.argmax_id
    assert readout.greedy.text == model.codec.decode(readout.greedy.token_ids)
    assert readout.argmax_is_option == (readout.argmax_id in readout.option_first_ids)
    assert readout.boundary_preserved and readout.distinct_first_tokens is True
    assert readout.option_mass == pytest.approx(
        sum(
            math.exp(model.next_token_logprobs([rendering.token_ids])[0].logprob(t))
            for t in set(readout.option_first_ids)
        ),
        rel=1e-9,
    )


def test_hand_worked_renormalisation_and_values():
    probs = renormalise([math.log(0.2), math.log(0.6), math.log(0.2)])
    assert probs == pytest.approx([0.2, 0.6, 0.2])
    assert renormalise([-1000.0, -1000.0]) == pytest.approx([0.5, 0.5])
    assert numeric_values([" 10", "30 ", "5e1"]) == [10.0, 30.0, 50.0]
    assert numeric_values(["10", "ten"]) is None
    assert numeric_values(["nan", "1"]) is None


def test_broken_boundary_leaves_option_unscored(model):
    options = ["Jupiter", " Mars"]
    rendering = render(Item(id="b", prompt="The largest planet is ", options=options), model.codec)
    readout = read_position(model, rendering, options, greedy_tokens=0)
    assert readout.option_token_ids[0] is None and readout.option_logprobs[0] is None
    assert readout.option_mass is None and readout.option_probs is None
    assert readout.expected_value is None and readout.boundary_preserved is False
    assert readout.greedy.token_ids == []
