"""Rendering: chat template, stem, raw prompts, recorded fields, ending classes, window check."""

from __future__ import annotations

import copy
import hashlib

import pytest

from readout_audit import InputError, Item, render
from readout_audit.model import TextCodec
from readout_audit.prompt import ending_class

MESSAGES = [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "Name a primary colour."},
]


def test_messages_use_the_models_chat_template_with_generation_prompt(model, hf_tokenizer):
    item = Item(id="c", messages=MESSAGES, options=["red", "blue"], stem="Colour:")
    rendering = render(item, model.codec)
    expected = hf_tokenizer.apply_chat_template(
        MESSAGES, tokenize=False, add_generation_prompt=True
    )
    assert expected.endswith("<|im_start|>assistant\n")
    assert rendering.text == expected + "Colour:"
    ids = hf_tokenizer(expected + "Colour:", add_special_tokens=False)["input_ids"]
    assert list(rendering.token_ids) == ids
    fields = rendering.context_fields()
    assert fields.rendered_sha256 == hashlib.sha256(rendering.text.encode()).hexdigest()
    assert fields.rendered_tail == rendering.text[-60:] and len(fields.rendered_tail) == 60
    assert fields.rendered_text == rendering.text
    assert fields.n_tokens == len(ids) and fields.scored_index == len(ids) - 1
    assert fields.last_token_id == ids[-1]
    assert fields.ending == "none"
    assert render(item.model_copy(update={"stem": None}), model.codec).context_fields().ending == (
        "newline"
    )


def test_raw_prompt_is_used_verbatim(model):
    rendering = render(Item(id="r", prompt="Q: 1+1?\nA: ", options=["2"]), model.codec)
    assert rendering.text == "Q: 1+1?\nA: "
    assert rendering.context_fields().ending == "space"


def test_template_keyword_arguments_reach_the_template(model, hf_tokenizer):
    tokenizer = copy.deepcopy(hf_tokenizer)
    tokenizer.chat_template = (
        "{% for m in messages %}<{{ m.role }}>{{ m.content }}{{ '\\n' }}{% endfor %}"
        "{% if add_generation_prompt %}<assistant>{% if enable_thinking is defined and not "
        "enable_thinking %}<nothink>{% endif %}{{ '\\n' }}{% endif %}"
    )
    codec = TextCodec(tokenizer, name="custom", context_window=100)
    item = Item(id="k", messages=MESSAGES[1:], options=["x"])
    assert render(item, codec).text == "<user>Name a primary colour.\n<assistant>\n"
    assert render(item, codec, {"enable_thinking": False}).text.endswith("<assistant><nothink>\n")


def test_context_longer_than_the_window_names_the_item(hf_tokenizer):
    codec = TextCodec(hf_tokenizer, name="tiny-window", context_window=8)
    item = Item(id="long-one", prompt="word " * 20, options=["x"])
    with pytest.raises(InputError) as error:
        render(item, codec)
    assert "long-one" in str(error.value) and error.value.field == "prompt"
    assert "window of 8" in str(error.value)


@pytest.mark.parametrize(
    ("text", "ending"),
    [
        ("assistant\n", "newline"),
        ("x\r\n", "newline"),
        ("about ", "space"),
        ("tab\t", "space"),
        ("[/INST]", "none"),
        ("Assistant:", "none"),
    ],
)
def test_ending_class(text, ending):
    assert ending_class(text) == ending
