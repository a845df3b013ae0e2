"""Prompt specs with named parts, and the ladder of variants as transforms on those parts."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Literal

from readout_audit.data._item import Item, Message
from readout_audit.data._mc import MCItem

SUBSTITUTE_INSTRUCTION = "Summarise in one sentence."
FENCE_OPEN = "BEGIN QUOTED ITEM"
FENCE_CLOSE = "END QUOTED ITEM"
FENCE_REQUEST = "Do not answer the quoted item above; it is shown only so that you can do the task."
ITEM_INSTRUCTION = "Answer with exactly one of: {letters}."


@dataclass(frozen=True)
class PromptSpec:
    """A task that quotes a multiple-choice item and declares its own option set.

    ``user_template`` uses ``{note}`` and ``{item}`` (the quoted item block); the system-turn
    variant moves ``system_text`` into a system message and renders ``system_user_template``.
    """

    name: str
    user_template: str
    options: tuple[str, ...] | None
    """The declared set; None means the quoted item's own letters."""
    stem: str
    system_text: str
    system_user_template: str
    item_instruction: str = ITEM_INSTRUCTION
    target: Literal["answer", "reader_correct"] = "answer"
    """What a record's target is: the gold letter, or whether the note-only reader was right."""


@dataclass(frozen=True)
class Parts:
    """The named parts of one rendering, which variants transform."""

    note: str
    question: str
    choices: tuple[str, ...]
    letters: tuple[str, ...]
    item_instruction: str | None
    fenced: bool = False
    task_in_system: bool = False
    stem: str | None = None
    user_template: str | None = None
    """A whole user-turn template in place of the spec's (the paper's T1); None keeps the spec's."""


def quoted_item(parts: Parts) -> str:
    """The quoted item block: question, lettered choices one per line, the item's instruction."""
    lines = [parts.question]
    lines += [
        f"{letter}: {text}" for letter, text in zip(parts.letters, parts.choices, strict=True)
    ]
    if parts.item_instruction:
        lines.append(parts.item_instruction)
    block = "\n".join(lines)
    if parts.fenced:
        block = f"{FENCE_OPEN}\n{block}\n{FENCE_CLOSE}\n{FENCE_REQUEST}"
    return block


Variant = Callable[[Parts, PromptSpec], Parts]

LADDER: Mapping[str, Variant] = {
    "production": lambda p, s: p,
    "stem": lambda p, s: replace(p, stem=s.stem),
    "instruction_deleted": lambda p, s: replace(p, item_instruction=None),
    "instruction_substituted": lambda p, s: replace(p, item_instruction=SUBSTITUTE_INSTRUCTION),
    "choices_deleted": lambda p, s: replace(p, choices=(), letters=()),
    "fenced": lambda p, s: replace(p, fenced=True),
    "space_appended": lambda p, s: replace(p, stem=" "),
    "system_turn": lambda p, s: replace(p, task_in_system=True),
}
"""The prompt ladder: each rung changes one part of the production prompt."""


def initial_parts(spec: PromptSpec, item: MCItem) -> Parts:
    """The production parts of an item under a spec."""
    return item_parts(item, spec.item_instruction)


def item_parts(item: MCItem, instruction: str = ITEM_INSTRUCTION) -> Parts:
    """An item's parts with its own letter instruction."""
    letters = item.letters
    return Parts(
        note=item.note or "",
        question=item.question,
        choices=item.choices,
        letters=letters,
        item_instruction=instruction.format(letters=", ".join(letters)),
    )


def declared_options(spec: PromptSpec, item: MCItem) -> tuple[str, ...]:
    """The spec's declared set, or the item's own letters when the spec declares none."""
    return spec.options if spec.options is not None else item.letters


def build_item(
    spec: PromptSpec, item: MCItem, variant: str, ladder: Mapping[str, Variant] = LADDER
) -> Item:
    """The scoring item of one variant: chat messages, declared options and answer stem."""
    parts = ladder[variant](initial_parts(spec, item), spec)
    block = quoted_item(parts)
    if parts.task_in_system:
        messages = [
            Message(role="system", content=spec.system_text),
            Message(
                role="user", content=spec.system_user_template.format(note=parts.note, item=block)
            ),
        ]
    else:
        template = parts.user_template or spec.user_template
        messages = [Message(role="user", content=template.format(note=parts.note, item=block))]
    options = declared_options(spec, item)
    if spec.target == "reader_correct":
        target = item.metadata.get("reader_correct")
    else:  # the gold letter, where it is one of the declared options (else nothing to score)
        target = item.answer if item.answer in options else None
    return item.derived(
        Item(
            id=item.id,
            messages=tuple(messages),
            options=options,
            stem=parts.stem,
            target=target,
            cluster=item.cluster_key,
            metadata={**item.metadata, "variant": variant, "letters": list(item.letters)},
        )
    )


FORECAST = PromptSpec(
    name="forecast",
    user_template=(
        "Note: {note}\n\nA future reader will be shown ONLY the note above, not the source text, "
        "and will then be asked:\n\n{item}\n\nOut of 100 such readers, how many answer correctly? "
        "Reply with exactly one of: 10, 30, 50, 70, 90."
    ),
    options=("10", "30", "50", "70", "90"),
    stem="Out of 100 such readers, about ",
    system_text=(
        "You will be given a note and a quoted question. A future reader will be shown ONLY the "
        "note, not the source text, and will then be asked the quoted question. Out of 100 such "
        "readers, how many answer correctly? Reply with exactly one of: 10, 30, 50, 70, 90."
    ),
    system_user_template="Note: {note}\n\nQuoted question:\n{item}",
    target="reader_correct",
)
"""The forecast task of seed 000: how many of 100 note-only readers answer the item correctly."""

T1_TEMPLATE = (
    "Someone read a passage and wrote the short note below. Imagine 100 readers who will see only "
    "this note and the question below, including its final answer instruction. They will never "
    "see the passage. Each reader will answer the question, and correctness will be judged "
    "against the original passage.\n\nNote: {note}\n\nQuestion:\n{item}\n\nEstimate how many "
    "of these 100 readers will answer correctly. Consider how much useful information the note "
    "provides, whether it distinguishes the choices, and where readers may misunderstand or have "
    "to guess. The question's instruction to answer with a letter is for the readers. Your task "
    "is to forecast their number of correct answers. Choose the closest of these five counts to "
    "your estimate: 10, 30, 50, 70, 90. Reply with exactly one of these values and nothing else."
)
"""Seed 000's whole forecast template T1 (Appendix I), its words as printed; the line breaks are
ours, since the paper's typeset boxes do not show them."""
T1_STEM = "Estimate: "
"""T1's own answer stem (Appendix I)."""

FORECAST_RUNGS: Mapping[str, Variant] = {
    "t1": lambda p, s: replace(p, user_template=T1_TEMPLATE),
    "t1_stem": lambda p, s: replace(p, user_template=T1_TEMPLATE, stem=T1_STEM),
}
"""The forecast spec's own rungs beyond the ladder: T1 without a stem and T1 with ``Estimate: ``
(readouts (d) and (e) of seed 000's Table 13)."""

ANSWER = PromptSpec(
    name="answer",
    user_template="{item}",
    options=None,
    stem="The answer is (",
    system_text="Answer the multiple-choice question with the letter of the correct choice.",
    system_user_template="{item}",
)
"""The generic task: answer the quoted item itself; the declared set is its letters."""

BUILTIN_SPECS: Mapping[str, PromptSpec] = {"forecast": FORECAST, "answer": ANSWER}
BUILTIN_RUNGS: Mapping[str, Mapping[str, Variant]] = {"forecast": FORECAST_RUNGS, "answer": {}}
"""Each built-in spec's own rungs, run after the ladder's."""
