"""The vision-language path's plumbing on a tiny LLaVA built here (random weights: no claim
about model behaviour, only that images reach the model and every readout is computed right)."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
import torch

from readout_audit import InputError, Item, Message, YesNoSettings, read_run, render
from readout_audit.data._yesno import load_yesno_items
from readout_audit.model import load_model
from readout_audit.scoring._audit import prepare, score_item
from readout_audit.yesno._audit import audit_yesno

TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}{% else %}"
    "{% for part in message['content'] %}{% if part['type'] == 'image' %}<image>\n"
    "{% else %}{{ part['text'] }}{% endif %}{% endfor %}{% endif %}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
SIDE, PATCH = 30, 6
IMAGE_TOKENS = (SIDE // PATCH) ** 2


@pytest.fixture(scope="module")
def vlm_dir(tmp_path_factory, hf_tokenizer):
    """A two-layer LLaVA (CLIP vision tower, Llama decoder) with the embedded model's tokenizer."""
    from transformers import (
        CLIPImageProcessorPil,
        CLIPVisionConfig,
        LlamaConfig,
        LlavaConfig,
        LlavaForConditionalGeneration,
        LlavaProcessor,
    )

    tokenizer = copy.deepcopy(hf_tokenizer)
    tokenizer.add_special_tokens({"additional_special_tokens": ["<image>"]})
    processor = LlavaProcessor(
        image_processor=CLIPImageProcessorPil(
            size={"shortest_edge": SIDE}, crop_size={"height": SIDE, "width": SIDE}
        ),
        tokenizer=tokenizer,
        patch_size=PATCH,
        vision_feature_select_strategy="default",
        num_additional_image_tokens=1,
        chat_template=TEMPLATE,
    )
    small = {"hidden_size": 32, "intermediate_size": 37, "num_hidden_layers": 2}
    config = LlavaConfig(
        vision_config=CLIPVisionConfig(
            **small, num_attention_heads=4, image_size=SIDE, patch_size=PATCH
        ),
        text_config=LlamaConfig(
            **small,
            vocab_size=len(tokenizer),
            num_attention_heads=4,
            num_key_value_heads=2,
            max_position_embeddings=512,
        ),
        image_token_id=tokenizer.convert_tokens_to_ids("<image>"),
        vision_feature_select_strategy="default",
        vision_feature_layer=-1,
    )
    torch.manual_seed(0)
    directory = tmp_path_factory.mktemp("tiny-llava")
    LlavaForConditionalGeneration(config).save_pretrained(directory)
    processor.save_pretrained(directory)
    return directory


@pytest.fixture(scope="module")
def images(tmp_path_factory):
    from PIL import Image

    folder = tmp_path_factory.mktemp("images")
    rng = np.random.default_rng(1)
    for name in ("a.png", "b.png"):
        pixels = (rng.random((40, 52, 3)) * 255).astype("uint8")
        Image.fromarray(pixels).save(folder / name)
    return folder


@pytest.fixture(scope="module")
def vlm(vlm_dir):
    return load_model(f"hf:{vlm_dir}")


def _item(image, options=("yes", " a cat")):
    return Item(
        id="q",
        messages=(Message(role="user", content="Is there a cat?"),),
        images=(str(image),),
        options=options,
    )


def _plain_logprobs(vlm, item, extra_ids=()):
    """An independent forward: the processor's own inputs straight into the model."""
    from PIL import Image

    processor = vlm.codec._processor
    text = processor.apply_chat_template(
        [
            {
                "role": "user",
                "content": [{"type": "image"}, {"type": "text", "text": "Is there a cat?"}],
            }
        ],
        tokenize=False,
        add_generation_prompt=True,
    )
    inputs = processor(
        text=text, images=[Image.open(item.images[0]).convert("RGB")], return_tensors="pt"
    )
    ids = torch.cat([inputs["input_ids"], torch.tensor([list(extra_ids)], dtype=torch.long)], -1)
    with torch.inference_mode():
        logits = vlm._model(input_ids=ids, pixel_values=inputs["pixel_values"]).logits[0]
    return inputs, logits.float().log_softmax(-1)


def test_vision_spec_loads_as_a_vision_backend(vlm):
    assert vlm.capabilities.images and type(vlm._model).__name__ == "LlavaForConditionalGeneration"
    assert vlm.info.chat_template_sha256 is not None and vlm.codec.context_window == 512


def test_rendering_expands_the_image_and_encodes_options_after_the_text(vlm, images):
    rendering = render(_item(images / "a.png"), vlm.codec)
    image_id = vlm.codec._tok.convert_tokens_to_ids("<image>")
    assert rendering.token_ids.count(image_id) == IMAGE_TOKENS
    assert rendering.boundary_ids is not None and rendering.boundary_ids.count(image_id) == 1
    assert rendering.text.endswith("<|im_start|>assistant\n")
    assert set(rendering.model_inputs) == {"pixel_values"}


def test_scores_equal_an_independent_forward_with_the_image(vlm, images, float32_budget):
    item = _item(images / "a.png")
    job = prepare(item, vlm.codec, {}, greedy_tokens=4)
    record = score_item(vlm, job, greedy_tokens=4)
    cat = job.encodings[1].token_ids
    assert cat is not None and len(cat) >= 2  # a multi-token option exercises the cache path
    inputs, plain = _plain_logprobs(vlm, item, cat)
    n = inputs["input_ids"].shape[1]
    assert list(inputs["input_ids"][0]) == list(job.rendering.token_ids)
    expected = [plain[n - 1 + j, t].item() for j, t in enumerate(cat)]
    np.testing.assert_allclose(record.option_token_logprobs[1], expected, atol=float32_budget(n))
    top = plain[n - 1].argmax().item()
    assert record.argmax_id == top
    with torch.inference_mode():
        generated = vlm._model.generate(
            **inputs, do_sample=False, max_new_tokens=4, pad_token_id=0
        )[0, n:].tolist()
    assert record.greedy.token_ids == generated[: len(record.greedy.token_ids)]


def test_the_image_reaches_the_model(vlm, images):
    a = score_item(vlm, _item(images / "a.png"), greedy_tokens=0)
    b = score_item(vlm, _item(images / "b.png"), greedy_tokens=0)
    assert a.rendered_sha256 == b.rendered_sha256  # same text, different pixels
    assert a.option_logprobs != b.option_logprobs


def test_yesno_audit_runs_on_the_vision_model(vlm, images, tmp_path):
    path = tmp_path / "yn.jsonl"
    raw = {"prompt": "USER: <image>\nIs there a cat? ASSISTANT:"}  # LLaVA-1.5's own template
    path.write_text(
        "".join(
            json.dumps(
                {"id": i, "question": "Is there a cat?", "label": label, "image": name, **extra}
            )
            + "\n"
            for i, (label, name, extra) in enumerate([("yes", "a.png", {}), ("no", "b.png", raw)])
        )
    )
    items = load_yesno_items(path, images)
    settings = YesNoSettings(items=items, legacy_ids=(3582, 1217), diagnostic_sample=2)
    result = audit_yesno(vlm, settings, tmp_path / "run")
    records = sorted(read_run(tmp_path / "run").records, key=lambda r: r.item_id)
    assert [r.image for r in records] == [str(images / "a.png"), str(images / "b.png")]
    assert [r.rendered_from for r in records] == ["messages", "prompt"]
    assert records[1].rendered_tail == raw["prompt"]
    assert all(r.first_token_id == r.greedy.token_ids[0] for r in records)
    assert result.summary.overall.readouts["dynamic"].n == 2


def test_raw_prompt_places_the_image_at_its_placeholder(vlm, images):
    """LLaVA-1.5's own template as a raw prompt: the placeholder expands, the end is scored."""
    prompt = "USER: <image>\nIs there a cat? ASSISTANT:"
    item = Item(id="q", prompt=prompt, images=(str(images / "a.png"),), options=("yes", " Yes"))
    rendering = render(item, vlm.codec)
    assert rendering.text == "USER: <image>\nIs there a cat? ASSISTANT:"
    assert rendering.source == "prompt" and rendering.prefix_ids == ()
    image_id = vlm.codec._tok.convert_tokens_to_ids("<image>")
    text_ids = vlm.codec._tok(prompt, add_special_tokens=False)["input_ids"]
    at = text_ids.index(image_id)
    expected = [*text_ids[:at], *[image_id] * IMAGE_TOKENS, *text_ids[at + 1 :]]
    assert rendering.token_ids == tuple(expected)  # scored after the prompt's final ':'
    assert rendering.boundary_ids == tuple(text_ids)
    record = score_item(vlm, item, greedy_tokens=1)
    assert record.rendered_from == "prompt" and record.rendered_tail == prompt
    assert record.last_token_id == text_ids[-1] and record.n_tokens == len(expected)


def test_raw_prompt_without_the_image_placeholder_is_named(vlm, images):
    item = Item(
        id="q",
        prompt="USER: Is there a cat? ASSISTANT:",
        images=(str(images / "a.png"),),
        options=("yes",),
    )
    with pytest.raises(
        InputError, match=r"0 image placeholder\(s\) '<image>' for 1 image"
    ) as caught:
        render(item, vlm.codec)
    assert (caught.value.item_id, caught.value.field) == ("q", "prompt")


def test_text_model_refuses_images(model, images):
    with pytest.raises(InputError, match="takes no images") as caught:
        render(_item(images / "a.png"), model.codec)
    assert caught.value.field == "images"


def test_unreadable_image_is_named(vlm, tmp_path):
    bad = tmp_path / "bad.png"
    bad.write_text("not an image")
    with pytest.raises(InputError, match="cannot read image") as caught:
        render(_item(bad), vlm.codec)
    assert caught.value.item_id == "q"
