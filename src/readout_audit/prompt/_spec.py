"""Prompt specs with named parts, and the ladder of variants as transforms on those parts."""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from readout_audit._exceptions import InputError
from readout_audit.data import Item, MCItem, Message
from readout_audit.prompt import _wording as paper

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
    variants: Mapping[str, Variant] = field(default_factory=dict, hash=False)
    """The spec's own rungs, beside the generic ladder (the paper's conditions for the forecast)."""


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
    template: str | None = None
    """A whole user-turn template replacing the spec's (the paper's A1, A2, T1, T2)."""


Variant = Callable[[Parts, PromptSpec], Parts]
"""A rung of the ladder: a transform of the production parts under a spec."""


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


def _substitute(text: str) -> Variant:
    return lambda p, s: replace(p, item_instruction=text)


LADDER: Mapping[str, Variant] = {
    "production": lambda p, s: p,
    "stem": lambda p, s: replace(p, stem=s.stem),
    "instruction_deleted": lambda p, s: replace(p, item_instruction=None),
    **{name: _substitute(text) for name, text in paper.SUBSTITUTES.items()},
    "choices_deleted": lambda p, s: replace(p, choices=(), letters=()),
    "instruction_choices_deleted": lambda p, s: replace(
        p, item_instruction=None, choices=(), letters=()
    ),
    "fenced": lambda p, s: replace(p, fenced=True),
    "space_appended": lambda p, s: replace(p, stem=" "),
    "system_turn": lambda p, s: replace(p, task_in_system=True),
    "system_turn_stem": lambda p, s: replace(p, task_in_system=True, stem=s.stem),
}
"""The generic prompt ladder: each rung changes one part of the production prompt."""

RENAMED_RUNGS: Mapping[str, str] = {"instruction_substituted": "substitute_summarise"}
"""Earlier names of rungs, still accepted when selecting rungs."""


def _template(template: str, stem: str | None = None) -> Variant:
    return lambda p, s: replace(p, template=template, stem=stem)


def _original_stem(template: str | None = None, note: str | None = None) -> Variant:
    def variant(p: Parts, s: PromptSpec) -> Parts:
        return replace(p, template=template, note=note or p.note, stem=s.stem)

    return variant


FORECAST_CONDITIONS: Mapping[str, Variant] = {
    "fixed_note": lambda p, s: replace(p, note=paper.FIXED_NOTE),
    "fixed_note_stem": _original_stem(note=paper.FIXED_NOTE),
    "A1": _template(paper.A1_TEMPLATE),
    "A1_stem": _original_stem(paper.A1_TEMPLATE),
    "A2": _template(paper.A2_TEMPLATE),
    "A2_stem": _original_stem(paper.A2_TEMPLATE),
    "T1": _template(paper.T1_TEMPLATE),
    "T1_stem": _template(paper.T1_TEMPLATE, paper.T1_STEM),
    "T1_original_stem": _original_stem(paper.T1_TEMPLATE),
    "T2": _template(paper.T2_TEMPLATE),
    "T2_stem": _template(paper.T2_TEMPLATE, paper.T2_STEM),
    "T2_original_stem": _original_stem(paper.T2_TEMPLATE),
}
"""The forecast's conditions of Appendix I, each without and with its answer stem.

``fixed_note`` is C0 (one note for every item, where ``production`` reads each item's own
note, as N1 does); A1 and A2 add sentences; T1 and T2 are whole templates with their own
stems, also read with the original stem. S1 is the generic ``system_turn``.
"""


def select_rungs(
    spec: PromptSpec,
    names: Sequence[str] | None = None,
    extra_variants: Mapping[str, Variant] | None = None,
) -> tuple[list[str], dict[str, Variant]]:
    """The selected rung names, and every rung the spec can run.

    Names default to all rungs; earlier names map to current ones, each kept once. The rungs
    are the generic ladder, then the spec's own, then the extra ones.
    """
    ladder = {**LADDER, **spec.variants, **(extra_variants or {})}
    chosen = list(dict.fromkeys(RENAMED_RUNGS.get(n, n) for n in names or ladder))
    unknown = [n for n in chosen if n not in ladder]
    if unknown:
        raise InputError(
            f"unknown variant(s) {unknown} for spec {spec.name!r}; expected some of "
            f"{', '.join(ladder)}",
            field="variants",
        )
    return chosen, ladder


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


def _sentences(template: str) -> list[str]:
    """The template's own sentences of two words or more, its fields left out."""
    literal = "\n".join(text for text, *_ in string.Formatter().parse(template))
    pieces = re.split(r"\n+|(?<=[.?!])\s+", literal)
    return [p.strip() for p in pieces if len(p.split()) >= 2]


def build_item(
    spec: PromptSpec,
    item: MCItem,
    variant: str,
    extra_variants: Mapping[str, Variant] | None = None,
) -> Item:
    """The scoring item of one variant: chat messages, declared options and answer stem.

    Its metadata keeps the quoted question and the prompt's instructions (the item's own and
    the task's sentences), which a continuation that recites them is compared with.
    """
    [name], ladder = select_rungs(spec, [variant], extra_variants)
    parts = ladder[name](initial_parts(spec, item), spec)
    block = quoted_item(parts)
    if parts.task_in_system:
        templates = [spec.system_text, spec.system_user_template]
        messages = [
            Message(role="system", content=spec.system_text),
            Message(
                role="user", content=spec.system_user_template.format(note=parts.note, item=block)
            ),
        ]
    else:
        user = parts.template or spec.user_template
        templates = [user]
        messages = [Message(role="user", content=user.format(note=parts.note, item=block))]
    instructions = [parts.item_instruction] if parts.item_instruction else []
    instructions += [sentence for t in templates for sentence in _sentences(t)]
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
            metadata={
                **item.metadata,
                "variant": name,
                "letters": list(item.letters),
                "question": item.question,
                "instructions": instructions,
            },
        )
    )


FORECAST = PromptSpec(
    name="forecast",
    user_template=paper.FORECAST_TEMPLATE,
    options=("10", "30", "50", "70", "90"),
    stem=paper.FORECAST_STEM,
    system_text=paper.SYSTEM_TEXT,
    system_user_template=paper.SYSTEM_USER_TEMPLATE,
    target="reader_correct",
    variants=FORECAST_CONDITIONS,
)
"""The forecast task of seed 000: how many of 100 note-only readers answer the item correctly."""

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
