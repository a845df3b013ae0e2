"""The P(True) answer step: lm-polygraph's (the paper's), forced sampling, or greedy, per mode."""

from __future__ import annotations

import zlib
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Literal

from readout_audit.data import Item, Message, QAItem
from readout_audit.model import (
    DEFAULT_BATCH_SIZE,
    GenerationRequest,
    GenerationSettings,
    Pending,
    PositionRequest,
    ScoringModel,
)
from readout_audit.prompt import render

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
    """The model's own answers to the quoted questions, in the items' order.

    ``library``/``sample``: generated with :func:`answer_settings`, each item seeded on its own,
    cut at the tokenizer's end-of-sequence token and decoded with special tokens kept, as
    lm-polygraph prints them (e.g. ``B<|im_start|>``). ``greedy``: batched argmax up to the
    end-of-turn token, special tokens removed, surrounding whitespace stripped.
    """
    answers = dict(
        iter_answers(
            model,
            items,
            template_kwargs,
            mode=mode,
            prompt_mode=prompt_mode,
            seed=seed,
            batch_size=batch_size,
        )
    )
    return [answers[item.id] for item in items]


def iter_answers(
    model: ScoringModel,
    items: Sequence[QAItem],
    template_kwargs: Mapping[str, Any],
    *,
    mode: AnswerMode,
    prompt_mode: PromptMode,
    seed: int,
    batch_size: int,
) -> Iterator[tuple[str, str]]:
    """(item id, answer) as each answer arrives, through the model's own executor.

    A served model's requests go through its bound ledger, concurrently; answers of a failed
    request are missing and the executor raises once the others are yielded.
    """
    executor = model.executor(batch_size)
    contexts = {
        item.id: render(
            question_item(item, item.quoted(), prompt_mode), model.codec, template_kwargs
        ).token_ids
        for item in items
    }
    if mode == "greedy":
        positions = [
            Pending((i.id,), PositionRequest(contexts[i.id], greedy_tokens=GREEDY_ANSWER_TOKENS))
            for i in items
        ]
        for job, scores in executor.run(positions):
            yield job.key[0], model.codec.decode(scores.greedy, skip_special_tokens=True).strip()
        return
    defaults = model.generation_defaults()
    generations = [
        Pending(
            (i.id,),
            GenerationRequest(
                contexts[i.id],
                answer_settings(defaults, mode, i.is_multiple_choice, item_seed(seed, i.id)),
            ),
        )
        for i in items
    ]
    eos = model.codec.eos_token_id
    for generation, tokens in executor.generate(generations):
        cut = tokens.index(eos) if eos in tokens else len(tokens)
        yield generation.key[0], model.codec.decode(tokens[:cut])
