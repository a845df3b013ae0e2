"""Options encoded in context: boundary check, distinct first tokens and option mass."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from readout_audit import Item, render
from readout_audit.model import TokenDistribution
from readout_audit.readout import (
    OptionEncoding,
    distinct_first_tokens,
    encode_in_context,
    option_mass,
    option_mass_lower,
)


def raw(prompt: str, options: list[str]) -> Item:
    return Item(id="t", prompt=prompt, options=options)


@pytest.mark.parametrize(
    ("prompt", "options"),
    [
        ("The largest planet in our solar system is", [" Jupiter", " Mars", " a gas giant"]),
        ("Question: 2+2=?\nAnswer:", [" 4", " four", " 5"]),
        ("Colour: ", ["red", "blue"]),
    ],
)
def test_raw_prompt_encodes_as_whole_minus_context(model, hf_tokenizer, prompt, options):
    rendering = render(raw(prompt, options), model.codec)
    encodings = encode_in_context(model.codec, rendering, options)
    context = hf_tokenizer(prompt)["input_ids"]
    assert list(rendering.token_ids) == context
    for option, encoding in zip(options, encodings, strict=True):
        whole = hf_tokenizer(prompt + option)["input_ids"]
        if whole[: len(context)] == context:
            assert encoding.token_ids == tuple(whole[len(context) :])
        else:
            assert encoding.token_ids is None and not encoding.boundary_preserved


def test_trailing_space_breaks_the_boundary_and_gives_no_mass(model, hf_tokenizer):
    prompt = "The largest planet in our solar system is "
    rendering = render(raw(prompt, ["Jupiter", "Mars"]), model.codec)
    context = hf_tokenizer(prompt)["input_ids"]
    whole = hf_tokenizer(prompt + "Jupiter")["input_ids"]
    assert whole[: len(context)] != context  # the space merges into " Jupiter"
    encodings = encode_in_context(model.codec, rendering, ["Jupiter", "Mars"])
    assert [e.token_ids for e in encodings] == [None, None]
    dist = model.next_token_logprobs([rendering.token_ids])[0]
    assert option_mass(encodings, dist) is None
    assert distinct_first_tokens(encodings) is None


CHAT = [{"role": "user", "content": "How many legs does a spider have? Reply with 6, 8, 10 or 12."}]


@pytest.mark.parametrize(
    "options",
    [["6", "8", "10", "12"], ["10", "30", "50", "70", "90"], ["yes", "no", "Yes", "No"]],
)
def test_option_mass_equals_distinct_first_token_probability_of_a_plain_forward(
    model, hf_tokenizer, torch_model, options
):
    item = Item(id="m", messages=CHAT, options=options)
    rendering = render(item, model.codec)
    text = hf_tokenizer.apply_chat_template(CHAT, tokenize=False, add_generation_prompt=True)
    assert rendering.text == text
    context = hf_tokenizer(text, add_special_tokens=False)["input_ids"]
    firsts = {
        hf_tokenizer(text + o, add_special_tokens=False)["input_ids"][len(context)] for o in options
    }
    with torch.inference_mode():
        probs = torch_model(input_ids=torch.tensor([context])).logits[0, -1].double().softmax(-1)
    expected = sum(probs[t].item() for t in firsts)
    encodings = encode_in_context(model.codec, rendering, options)
    dist = model.next_token_logprobs([rendering.token_ids])[0]
    assert option_mass(encodings, dist) == pytest.approx(expected, rel=1e-4, abs=1e-7)


def test_shared_first_tokens_are_counted_once():
    logprobs = np.log(np.array([0.1, 0.6, 0.2, 0.1], dtype=np.float32))
    dist = TokenDistribution(logprobs)
    encodings = [
        OptionEncoding("10", (1, 0)),
        OptionEncoding("12", (1, 2)),
        OptionEncoding("8", (3,)),
    ]
    assert distinct_first_tokens(encodings) is False
    assert option_mass(encodings, dist) == pytest.approx(0.6 + 0.1, rel=1e-6)
    assert distinct_first_tokens([OptionEncoding("a", (1,)), OptionEncoding("b", (2,))]) is True


def test_partial_distribution_missing_a_first_token_gives_no_mass():
    dist = TokenDistribution(known={1: math.log(0.5), 7: math.log(0.25)})
    assert option_mass([OptionEncoding("a", (1,)), OptionEncoding("b", (7, 3))], dist) == 0.75
    assert option_mass([OptionEncoding("a", (1,)), OptionEncoding("c", (9,))], dist) is None
    assert dist.logprob(9) is None
    assert dist.argmax() == (1, math.log(0.5))
    # what the partial distribution does hold: a lower bound of the mass, and its coverage
    lower = option_mass_lower([OptionEncoding("a", (1,)), OptionEncoding("c", (9,))], dist)
    assert lower == pytest.approx(0.5) and dist.known_mass == pytest.approx(0.75)
    assert option_mass_lower([OptionEncoding("a", None)], dist) is None
    assert TokenDistribution(np.log(np.full(4, 0.25))).known_mass is None


def test_top_k_orders_by_probability_then_id():
    dist = TokenDistribution(np.log(np.array([0.1, 0.3, 0.3, 0.05, 0.25], dtype=np.float32)))
    assert [t for t, _ in dist.top(3)] == [1, 2, 4]
    assert [t for t, _ in dist.top(10)] == [1, 2, 4, 0, 3]
    assert dist.argmax()[0] == 1
    with pytest.raises(ValueError):
        TokenDistribution()
