"""Question–answer items and their correctness labels."""

from __future__ import annotations

import pytest

from readout_audit import InputError
from readout_audit.data._jsonl import parse_lines
from readout_audit.data._qa import QAItem, first_letter, is_correct, normalise_answer


@pytest.mark.parametrize(
    ("text", "letter"),
    [
        ("B", "B"),
        ("(C) because", "C"),
        ("Answer: D", "D"),
        ("The answer is A.", "A"),
        ("I think so", "I"),
        ("none here", None),
        ("B<|im_start|>", "B"),
    ],
)
def test_first_standalone_letter(text, letter):
    assert first_letter(text) == letter


@pytest.mark.parametrize(
    ("answer", "paper", "anywhere"),
    [
        ("(B) Mars", True, True),
        ("I think the answer is B", True, False),  # the pronoun is no letter answer
        ("Mars", False, False),
        ("A", False, False),
        ("E is wrong, B is right", True, False),  # E is not one of the item's letters
        ("Answer: B", True, True),
    ],
)
def test_multiple_choice_correctness(answer, paper, anywhere):
    item = QAItem(id="m", question="Q?", gold="B")
    assert item.is_multiple_choice and item.letters == ("A", "B", "C", "D")
    assert is_correct(item, answer) is paper
    assert is_correct(item, answer, "anywhere") is anywhere


def test_the_item_letter_set_and_a_gold_outside_it():
    item = QAItem(id="e", question="Q?", gold="E", letters=("A", "B", "C", "D", "E"))
    assert is_correct(item, "I choose E") and first_letter("I choose E", item.letters) == "E"
    with pytest.raises(InputError, match="field 'gold': 'E' is not one of the item's letters"):
        parse_lines(QAItem, ['{"id": "x", "question": "Q?", "gold": "E"}'])


@pytest.mark.parametrize(
    ("answer", "paper", "anywhere"),
    [
        ("Shakespeare", True, True),
        ("william shakespeare", True, True),
        ("Answer: William Shakespeare.\nHe wrote plays.", True, True),
        ("Shakespeare ✓", True, True),  # a non-ASCII symbol is stripped
        ("Shakespeare or Marlowe, I am not sure", False, True),  # first line must equal
        ("It was Shakespeare.", False, True),
        ("\nShakespeare", True, True),  # the first non-empty line
        ("Marlowe\nShakespeare", False, True),
        ("Shakespearean sonnets", False, False),
    ],
)
def test_short_answer_correctness_reads_the_first_line(answer, paper, anywhere):
    item = QAItem(id="t", question="Who?", gold=["William Shakespeare", "Shakespeare"])
    assert is_correct(item, answer) is paper
    assert is_correct(item, answer, "anywhere") is anywhere


def test_marks_and_symbols_are_stripped_from_both_sides():
    item = QAItem(id="c", question="Where?", gold=["Zürich"])
    assert normalise_answer("  The Bard, Shakespeare! ") == "bard shakespeare"
    assert is_correct(item, "Zurich") and is_correct(item, "ZÜRICH")
    assert not is_correct(item, "Zug")


def test_qa_item_validation():
    with pytest.raises(InputError, match="at least one non-empty alias"):
        parse_lines(QAItem, ['{"id": "x", "question": "q", "gold": []}'])
    (item,) = parse_lines(
        QAItem, ['{"id": 3, "question": "q", "instruction": "Be brief.", "gold": "A"}']
    )
    assert item.quoted() == "Be brief.\n\nq" and item.quoted(with_instruction=False) == "q"
