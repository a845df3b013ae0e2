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


def test_multiple_choice_correctness():
    item = QAItem(id="m", question="Q?", gold="B")
    assert item.is_multiple_choice
    assert (
        is_correct(item, "(B) Mars") and not is_correct(item, "Mars") and not is_correct(item, "A")
    )


def test_alias_correctness_after_normalisation():
    item = QAItem(id="t", question="Who?", gold=["William Shakespeare", "Shakespeare"])
    assert normalise_answer("  The Bard, Shakespeare! ") == "bard shakespeare"
    assert is_correct(item, "It was Shakespeare.")
    assert is_correct(item, "william shakespeare")
    assert not is_correct(item, "Shakespearean sonnets")
    assert not is_correct(item, "Marlowe")


def test_qa_item_validation():
    with pytest.raises(InputError, match="at least one non-empty alias"):
        parse_lines(QAItem, ['{"id": "x", "question": "q", "gold": []}'])
    (item,) = parse_lines(
        QAItem, ['{"id": 3, "question": "q", "instruction": "Be brief.", "gold": "A"}']
    )
    assert item.quoted() == "q\nBe brief." and item.quoted(with_instruction=False) == "q"
