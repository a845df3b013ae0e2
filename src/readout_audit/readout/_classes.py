"""Token classes at the scored position, and fixed rules for what a continuation does first."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

TokenClass = Literal["option", "answer_letter", "whitespace", "digit", "prose", "other"]
PTrueClass = Literal[
    "option", "true_false", "label", "item_letter", "whitespace", "digit", "prose", "other"
]
_TRUE_FALSE = {"True", "False", "true", "false", "TRUE", "FALSE"}
_LABELS = {"(", "(A", "(B", "(A)", "(B)"}
ContinuationClass = Literal["answers_item", "recites_options", "gives_option", "other"]

_WORD = re.compile(r"[A-Za-z]")
_SPECIAL = re.compile(r"<\|[^|]*\|>|</?s>|\[/?INST\]")


def token_class(
    token_id: int,
    surface: str,
    option_first_ids: Sequence[int | None],
    item_letters: Sequence[str] = (),
) -> TokenClass:
    """Class of a next token: option, answer letter, whitespace, digit, prose or other.

    An answer letter is one of the quoted item's letters once whitespace and the tokenizer's
    word-boundary marker are stripped. The option class wins: when the declared options are the
    letters themselves, a letter argmax is an option, not letter pull.
    """
    if token_id in option_first_ids:
        return "option"
    stripped = surface.strip().lstrip("▁Ġ")
    if stripped and stripped in item_letters:
        return "answer_letter"
    return _surface_class(surface)


def _surface_class(surface: str) -> Literal["whitespace", "digit", "prose", "other"]:
    stripped = surface.strip().lstrip("▁Ġ")
    if not surface.strip():
        return "whitespace"
    if stripped[:1].isdigit():
        return "digit"
    if _WORD.match(stripped):
        return "prose"
    return "other"


def ptrue_token_class(
    token_id: int,
    surface: str,
    option_first_ids: Sequence[int | None],
    item_letters: Sequence[str] = ("A", "B", "C", "D"),
) -> PTrueClass:
    """Class of the next token at a P(True) position, naming what can take the library's place.

    ``option``: one of the readout's own declared tokens; ``true_false``: True or False when the
    readout does not declare it; ``label``: the prompt's ``(A``/``(B`` labels (or their opening
    parenthesis); ``item_letter``: one of the quoted item's own letters, an answer to the item
    rather than a judgement; then whitespace, digit, prose and other as for any position.
    """
    if token_id in option_first_ids:
        return "option"
    stripped = surface.strip().lstrip("▁Ġ")
    if stripped in _TRUE_FALSE:
        return "true_false"
    if stripped in _LABELS:
        return "label"
    if stripped and stripped in item_letters:
        return "item_letter"
    return _surface_class(surface)


def continuation_class(
    text: str, options: Sequence[str], item_letters: Sequence[str] = ()
) -> ContinuationClass:
    """What a greedy continuation does first, by fixed rules on its opening.

    Text after the first special token is dropped. It *answers the item* when it opens with one
    of the item's letters as a standalone token (``A``, ``A:``, ``(A)``, ``A.``) or with
    ``Answer:`` followed by one, unless the next line is labelled with the following letter
    (then it *recites the options*); it *gives an option* when it opens with a declared option
    (surrounding whitespace ignored) not followed by more of a word or number; else *other*.
    """
    head = _SPECIAL.split(text, maxsplit=1)[0].strip()
    for option in sorted(options, key=len, reverse=True):
        stripped = option.strip()
        if stripped and head.startswith(stripped):
            rest = head[len(stripped) :]
            if not rest or not rest[0].isalnum():
                return "gives_option"
    if item_letters:
        letters = "|".join(re.escape(letter) for letter in item_letters)
        opening = rf"^(?:(?i:answer)\s*:?\s*)?\(?(?:{letters})(?:$|[\s:.)\],])"
        # An opening "A" followed by a lowercase word is the article, i.e. prose.
        if re.match(opening, head) and not re.match(r"^A\s+[a-z]", head):
            return "recites_options" if _recites(head, item_letters) else "answers_item"
    return "other"


def _recites(head: str, item_letters: Sequence[str]) -> bool:
    """Whether the first two lines are labelled with consecutive item letters (a list recital)."""
    lines = [line.strip() for line in head.splitlines() if line.strip()]
    if len(lines) < 2:
        return False
    first, second = lines[0][:1], lines[1][:1]
    letters = list(item_letters)
    return (
        first in letters
        and letters.index(first) + 1 < len(letters)
        and second == letters[letters.index(first) + 1]
        and lines[1][1:2] in (":", ".", ")")
    )
