"""Token classes at the scored position on hand-written cases."""

from __future__ import annotations

import pytest

from readout_audit.readout._classes import token_class

LETTERS = ["A", "B", "C", "D"]


@pytest.mark.parametrize(
    ("token_id", "surface", "expected"),
    [
        (7, "1", "option"),  # a declared option's first token, even if it is a digit
        (49, "A", "answer_letter"),
        (50, " B", "answer_letter"),
        (51, "▁C", "answer_letter"),
        (198, "\n", "whitespace"),
        (220, " ", "whitespace"),
        (33, "5", "digit"),
        (504, "The", "prose"),
        (12, "(", "other"),
    ],
)
def test_token_class(token_id, surface, expected):
    assert token_class(token_id, surface, [7, 8, None], LETTERS) == expected


def test_letters_that_are_the_declared_options_are_options():
    assert token_class(49, "A", [49, 50], LETTERS) == "option"


@pytest.mark.parametrize(
    ("surface", "expected"),
    [
        ("True", "option"),  # the readout's own declared token (id 7 below)
        (" False", "true_false"),  # True/False where the readout does not declare it
        ("(A", "label"),
        ("(", "label"),  # the opening of the prompt's (A)/(B) labels
        ("C", "item_letter"),  # an answer to the quoted item, not a judgement
        (" D", "item_letter"),
        ("E", "prose"),  # not one of the item's letters
        ("\n", "whitespace"),
        ("42", "digit"),
        ("The", "prose"),
        (".", "other"),
    ],
)
def test_ptrue_classes_name_what_takes_the_library_position(surface, expected):
    from readout_audit.readout._classes import ptrue_token_class

    token_id = 7 if surface == "True" else 99
    assert ptrue_token_class(token_id, surface, [7], ("A", "B", "C", "D")) == expected
