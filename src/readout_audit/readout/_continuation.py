"""What a greedy continuation does first, by fixed rules on its opening (seed 000, Table 16).

The rules are regular expressions and string comparisons, applied in order; the first that
matches gives the class:

1. ``answers_item``: the opening is one of the quoted item's letters used as a label (``B``,
   ``B:``, ``B.``, ``(B)``, ``B)``, a letter alone on its line), optionally after ``Answer:``.
   A letter followed by a word (``D is not true``, ``A clever question!``) opens prose.
2. ``gives_option``: the opening is a declared option, optionally after ``Answer:``; when every
   declared option is a number (the forecast grid), any number, since a forecast can be off
   the grid, but not a list marker (``1. The item``). A letter that is itself a declared
   option (the answer spec) is an option.
3. ``recites_options``: the first two lines are labelled with consecutive item letters. A
   single labelled line cannot be told from the start of a list and counts as an answer.
4. ``recites_prompt``: the opening reproduces the item's question or an instruction of the
   prompt (the item's own, or a sentence of the task), or is cut off inside one.
5. ``prose``: any other opening word, also after a list marker (``1. The item``).
6. ``other``: anything else (punctuation, nothing).

Text after a special token or a new chat turn is dropped first.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

ContinuationClass = Literal[
    "answers_item", "gives_option", "recites_options", "recites_prompt", "prose", "other"
]

_SPECIAL = re.compile(r"<\|[^|]*\|>|</?s>|<(?:eos|bos|pad|start_of_turn|end_of_turn)>|\[/?INST\]")
_NEW_TURN = re.compile(
    r"\n[ \t]*(?:#{1,3}[ \t]*)?(?:User|Human|Assistant|System|Instruction|Response)[ \t]*:",
    re.IGNORECASE,
)
_ANSWER_LABEL = r"(?:(?i:answer)[ \t]*:[ \t]*\**[ \t]*)?"
"""An optional ``Answer:`` (any case, optionally bold) before an answer or a forecast."""
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_WORD_LETTER = re.compile(r"(?:A\s+(?!is\b)[a-z]|I\s+(?!is\b)[a-z]|I['’][a-z])")
"""The article ``A`` and the pronoun ``I`` opening prose: ``A clever``, ``I think``, ``I'm``."""
_MIN_CUT_RECITAL = 12
"""Shortest opening that, cut off inside a question or instruction, still counts as reciting it."""


@dataclass(frozen=True)
class ContinuationReading:
    """The class of a continuation's opening and the paper's three flags over its whole text."""

    continuation_class: ContinuationClass
    answer_then_option: bool
    """It answers the item first and a declared option (a grid value) follows."""
    option_anywhere: bool
    """A declared option appears anywhere outside a recited option list."""
    letter_anywhere: bool
    """An item letter appears as an answer anywhere outside a recited option list
    (``the correct answer is D:``, ``(B)``), but not as a word (``D is not true``)."""


def visible_text(text: str) -> str:
    """The continuation up to its first special token or new chat turn."""
    head = _SPECIAL.split(text, maxsplit=1)[0]
    turn = _NEW_TURN.search(head)
    return head[: turn.start()] if turn else head


def _opening(text: str) -> str:
    """The text without leading whitespace and markdown emphasis."""
    return text.lstrip().lstrip("*").lstrip()


def _letters_pattern(letters: Sequence[str]) -> str:
    return "|".join(re.escape(letter) for letter in letters)


def _answer_match(opening: str, letters: Sequence[str]) -> re.Match[str] | None:
    """An item letter used as a label at the opening, optionally after ``Answer:``."""
    if not letters:
        return None
    alternatives = _letters_pattern(letters)
    label = rf"\((?:{alternatives})\)|(?:{alternatives})(?=[:.)\],;]|\*\*|[ \t]*(?:\n|$))"
    return re.match(_ANSWER_LABEL + rf"(?P<letter>{label})", opening)


def _option_match(opening: str, options: Sequence[str]) -> re.Match[str] | None:
    """A declared option at the opening or, for a numeric grid, any number but a list marker."""
    stripped = [o.strip() for o in options if o.strip()]
    declared = "|".join(re.escape(o) for o in sorted(stripped, key=len, reverse=True)) or "(?!)"
    found = re.match(_ANSWER_LABEL + rf"(?:{declared})(?![^\W_])", opening)
    if found or not stripped or not all(_NUMBER.fullmatch(o) for o in stripped):
        return found
    return re.match(_ANSWER_LABEL + rf"{_NUMBER.pattern}(?![^\W_])(?![.)]\s)", opening)


def _recital_lines(text: str, letters: Sequence[str]) -> set[int]:
    """Indices of lines in runs of two or more letter-labelled lines with consecutive letters.

    Blank lines between them do not break a run.
    """
    lines = text.splitlines()
    filled = [i for i, line in enumerate(lines) if line.strip()]
    found: set[int] = set()
    for i, j in itertools.pairwise(filled):
        first, second = _label_of(lines[i], letters), _label_of(lines[j], letters)
        if first is not None and second is not None and second == first + 1:
            found.update((i, j))
    return found


def _label_of(line: str, letters: Sequence[str]) -> int | None:
    """The position of the item letter labelling a line, or None.

    A label is ``B:``, ``B.``, ``(B)``, ``B)`` or ``B`` alone (how a list cut off at the token
    limit ends).
    """
    match = re.match(r"\s*\(?([A-Z])(?:[:.)]|\s*$)", line)
    if match and match.group(1) in letters:
        return list(letters).index(match.group(1))
    return None


def _outside_recitals(text: str, letters: Sequence[str], recitals: Sequence[str]) -> str:
    """The text without recited option lists and recited questions or instructions.

    A line that opens with a recital string loses it (and keeps what follows); a line cut off
    inside one is dropped.
    """
    drop = _recital_lines(text, letters)
    kept = []
    for i, line in enumerate(text.splitlines()):
        if i in drop:
            continue
        rest = " ".join(line.split())
        while length := _recital_length(rest, recitals):
            rest = rest[length:].lstrip()
        kept.append(rest)
    return "\n".join(kept)


def _normalised(text: str) -> str:
    """Whitespace collapsed and case folded, for comparing a recital with its source."""
    return " ".join(text.split()).casefold()


def _recital_length(line: str, recitals: Sequence[str]) -> int:
    """How many characters at the start of a whitespace-collapsed line recite a string.

    The whole string when the line starts with it, the whole line when it is cut off inside
    one (12 characters or more), else 0. Case is ignored.
    """
    folded = line.casefold()
    if not folded:
        return 0
    for recital in recitals:
        target = _normalised(recital)
        if target and folded.startswith(target):
            return len(target)
        if target and len(folded) >= _MIN_CUT_RECITAL and target.startswith(folded):
            return len(folded)
    return 0


def _contains_option(text: str, options: Sequence[str]) -> bool:
    stripped = [o.strip() for o in options if o.strip()]
    return any(re.search(rf"(?<![\w.]){re.escape(o)}(?!\w|\.\d)", text) for o in stripped)


def _contains_letter(text: str, letters: Sequence[str]) -> bool:
    if not letters:
        return False
    alternatives = _letters_pattern(letters)
    label = rf"\((?:{alternatives})\)|(?:{alternatives})(?:[:.,)](?!\w)|\*\*|[ \t]*$)"
    pattern = rf"(?<![\w'’])(?:{label})"
    return re.search(pattern, text, re.MULTILINE) is not None


def classify_opening(
    text: str,
    options: Sequence[str],
    item_letters: Sequence[str] = (),
    recitals: Sequence[str] = (),
) -> ContinuationClass:
    """The class of a continuation's opening by the rules in the module docstring."""
    opening = _opening(visible_text(text))
    answer = _answer_match(opening, item_letters)
    if answer:
        if 0 in _recital_lines(opening, item_letters):
            return "recites_options"
        declared = {o.strip() for o in options}
        letter = answer.group("letter").strip("()")
        return "gives_option" if letter in declared else "answers_item"
    if _option_match(opening, options):
        return "gives_option"
    if _recital_length(" ".join(opening.split("\n", 1)[0].split()), recitals):
        return "recites_prompt"
    if re.match(r"(?:\d+[.)]\s+)?[^\W\d_]", opening):  # a word, perhaps after a list marker
        return "prose"
    return "other"


def read_continuation(
    text: str,
    options: Sequence[str],
    item_letters: Sequence[str] = (),
    recitals: Sequence[str] = (),
) -> ContinuationReading:
    """The opening's class and the three flags of a greedy continuation.

    ``recitals`` are the strings whose reproduction counts as reciting the prompt: the item's
    question and the instructions of the rendered prompt.
    """
    visible = visible_text(text)
    cls = classify_opening(visible, options, item_letters, recitals)
    outside = _outside_recitals(visible, item_letters, recitals)
    after_answer = ""
    if cls == "answers_item":
        opening = _opening(visible)
        match = _answer_match(opening, item_letters)
        rest = opening[match.end() :] if match else ""
        after_answer = _outside_recitals(rest, item_letters, recitals)
    return ContinuationReading(
        continuation_class=cls,
        answer_then_option=_contains_option(after_answer, options),
        option_anywhere=_contains_option(outside, options),
        letter_anywhere=_contains_letter(outside, item_letters),
    )


def letter_pull(argmax_is_letter: bool, argmax_token: str, text: str) -> bool:
    """Whether an item-letter argmax is the item's answer letter, read from the continuation.

    The continuation opening with that letter as a word (the article in ``A clever question!``,
    ``A classic``, ``A nice``; the pronoun in ``I think``) shows it is prose, not an answer.
    """
    if not argmax_is_letter:
        return False
    letter = argmax_token.strip().lstrip("▁Ġ")
    opening = _opening(visible_text(text))
    return not (opening.startswith(letter) and _WORD_LETTER.match(opening))
