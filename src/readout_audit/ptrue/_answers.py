"""The P(True) answer step: lm-polygraph's (the paper's), forced sampling, or greedy, per mode."""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from readout_audit.data._item import Item, Message
from readout_audit.data._qa import QAItem
from readout_audit.kind._executor import DEFAULT_BATCH_SIZE
from readout_audit.model._backend import PositionRequest, ScoringModel
from readout_audit.model._generation import GenerationSettings
from readout_audit.prompt._render import render

AnswerMode = Literal["library", "sample", "greedy"]
"""``library``: lm-polygraph's answer step at the checkpoint's generation config (the paper's);
``sample``: the same with sampling forced on; ``greedy``: argmax, at most 32 tokens."""
PromptMode = Literal["chat", "raw"]
"""``chat``: one user message through the chat template (lm-polygraph's ``instruct: true``, the
paper's runs); ``raw``: the text as is, special tokens added (the library's default)."""

LIBRARY_SEED = 1
"""lm-polygraph's configured seed."""
LIBRARY_MIN_NEW_TOKENS = 2
"""Its answer step's ``min_new_tokens``: no end of sequence in the first two tokens."""
LIBRARY_MAX_NEW_TOKENS = {True: 3, False: 20}
"""``max_new_tokens`` of its MMLU (multiple choice) and TriviaQA (short answer) configs."""
LIBRARY_STOP = ("\n",)
"""Both configs' stop string."""
GREEDY_ANSWER_TOKENS = 32


def question_item(
    source: QAItem,
    content: str,
    prompt_mode: PromptMode,
    options: tuple[str, ...] = ("x",),
    stem: str | None = None,
) -> Item:
    """``content`` as the model reads it in this prompt mode (options only matter to readouts)."""
    context: dict[str, Any] = (
        {"messages": (Message(role="user", content=content),)}
        if prompt_mode == "chat"
        else {"prompt": content}
    )
    built = Item(id=source.id, options=options, stem=stem, cluster=source.cluster_key, **context)
    return source.derived(built)


def item_seed(seed: int, item_id: str) -> int:
    """One item's generation seed: the same for the item however the run is batched or resumed."""
    return zlib.crc32(f"{seed}\0{item_id}".encode())


def answer_settings(
    defaults: Mapping[str, Any], mode: AnswerMode, multiple_choice: bool, seed: int
) -> GenerationSettings:
    """The library's answer-step settings for one item (sampling forced on in ``sample`` mode)."""
    return GenerationSettings(
        do_sample=True if mode == "sample" else bool(defaults["do_sample"]),
        temperature=float(defaults["temperature"]),
        top_k=int(defaults["top_k"]),
        top_p=float(defaults["top_p"]),
        repetition_penalty=float(defaults["repetition_penalty"]),
        min_new_tokens=LIBRARY_MIN_NEW_TOKENS,
        max_new_tokens=LIBRARY_MAX_NEW_TOKENS[multiple_choice],
        stop_strings=LIBRARY_STOP,
        seed=seed,
    )


def answer_config(model: ScoringModel, mode: AnswerMode, seed: int) -> dict[str, Any]:
    """What the manifest records about the answer step."""
    if mode == "greedy":
        return {"mode": mode, "max_new_tokens": GREEDY_ANSWER_TOKENS}
    settings = answer_settings(model.generation_defaults(), mode, True, seed).as_dict()
    settings.pop("seed")
    settings["max_new_tokens"] = {"multiple_choice": 3, "short_answer": 20}
    return {"mode": mode, "seed": seed, **settings}


def generate_answers(
    model: ScoringModel,
    items: Sequence[QAItem],
    template_kwargs: Mapping[str, Any],
    *,
    mode: AnswerMode = "library",
    prompt_mode: PromptMode = "chat",
    seed: int = LIBRARY_SEED,
    batch_size: int = DEFAULT_BATCH_SIZE,
) -> list[str]:
    """The model's own answers to the quoted questions.

    ``library``/``sample``: generated one item at a time with :func:`answer_settings`, cut at
    the tokenizer's end-of-sequence token and decoded with special tokens kept, as lm-polygraph
    prints them (e.g. ``B<|im_start|>``). ``greedy``: batched argmax up to the end-of-turn
    token, special tokens removed, surrounding whitespace stripped.
    """
    contexts = [
        render(question_item(i, i.quoted(), prompt_mode), model.codec, template_kwargs).token_ids
        for i in items
    ]
    if mode == "greedy":
        requests = [
            PositionRequest(context=c, greedy_tokens=GREEDY_ANSWER_TOKENS) for c in contexts
        ]
        answers = []
        for start in range(0, len(requests), batch_size):
            for scores in model.score_positions(requests[start : start + batch_size]):
                answers.append(model.codec.decode(scores.greedy, skip_special_tokens=True).strip())
        return answers
    defaults = model.generation_defaults()
    eos = model.codec.eos_token_id
    answers = []
    for item, context in zip(items, contexts, strict=True):
        settings = answer_settings(
            defaults, mode, item.is_multiple_choice, item_seed(seed, item.id)
        )
        tokens = model.generate(context, settings)
        cut = tokens.index(eos) if eos in tokens else len(tokens)
        answers.append(model.codec.decode(tokens[:cut]))
    return answers
