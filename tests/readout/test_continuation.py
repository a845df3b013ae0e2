"""The paper's continuation classes (Table 16), its flags and letter pull, on hand-written text."""

from __future__ import annotations

import pytest

from readout_audit.readout._continuation import (
    classify_opening,
    letter_pull,
    read_continuation,
    visible_text,
)

GRID = ["10", "30", "50", "70", "90"]
LETTERS = ["A", "B", "C", "D"]
QUESTION = "After the woman visited the United States she might feel that _ ."
RECITALS = [
    QUESTION,
    "Answer with exactly one of: A, B, C, D.",
    "Out of 100 such readers, how many answer correctly?",
    "Reply with exactly one of: 10, 30, 50, 70, 90.",
    "A future reader will be shown ONLY the note above, not the source text, and will then be "
    "asked:",
]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # answers the item: a letter used as a label, optionally after "Answer:"
        ("A\n\n50", "answers_item"),
        ("B", "answers_item"),
        ("(C) because", "answers_item"),
        ("Answer: D", "answers_item"),
        ("**Answer:** B\n\n70", "answers_item"),
        ("**A**\n\n**Forecast: 50**", "answers_item"),
        ("A: her English was poor", "answers_item"),  # one labelled line at the limit: an answer
        # gives a forecast: a declared option, or any number on a numeric grid
        ("50 answer correctly.<|im_end|>", "gives_option"),
        ("  90<|im_end|>", "gives_option"),
        ("Answer: 50", "gives_option"),  # Qwen3-32B's "Answer:" followed by a number
        ("40", "gives_option"),  # a forecast off the grid
        ("500 people", "gives_option"),
        ("90. The note says", "gives_option"),  # a grid value, not a list marker
        ("1. The item asks readers", "prose"),  # a numbered list, not a forecast
        # recites the option list: two lines labelled with consecutive letters
        ("A: her English was poor\nB: it's easy to master English", "recites_options"),
        ("B) yeast\n\nC) the flour", "recites_options"),
        ("A: Suburbs\nB: Suburbs\nC: CBDs\nD", "recites_options"),  # cut at the token limit
        ("A\nB\nC", "recites_options"),
        # recites the question or an instruction, whole or cut off at the token limit
        ("After the woman visited the United", "recites_prompt"),
        ("Answer with exactly one of: A, B, C, D.\n", "recites_prompt"),
        ("Out of 100 such readers, how many answer correctly? 70", "recites_prompt"),
        ("A future reader will be shown only the note above,", "recites_prompt"),  # any case
        # prose: the paper's three openings that answer only later, and the article
        ("Based on the note, the correct answer is D: people", "prose"),
        ("D is not true, as the note", "prose"),
        ("The text is mainly about B: it", "prose"),
        ("A clever question! Let me", "prose"),
        ("Out of 100 such readers, about 50", "prose"),  # not the whole forecast question
        ("Answer", "prose"),
        # other
        ("...", "other"),
        ("", "other"),
        ("<|im_end|>A", "other"),  # nothing before the special token
    ],
)
def test_opening_classes(text, expected):
    assert classify_opening(text, GRID, LETTERS, RECITALS) == expected


def test_letters_declared_as_options_give_an_option_unless_they_recite_the_list():
    assert classify_opening("B", ["A", "B"], ["A", "B"]) == "gives_option"
    assert classify_opening("B: Rome", ["A", "B"], ["A", "B"]) == "gives_option"
    assert classify_opening("A: Madrid\nB: Rome", ["A", "B"], ["A", "B"]) == "recites_options"


def test_text_after_a_special_token_or_a_new_turn_is_dropped():
    assert visible_text("A<|im_end|>\n<|im_start|>user\n50") == "A"
    assert visible_text("A\n\nUser: now say 50") == "A\n"
    assert visible_text("B</s>[INST] 70") == "B"
    reading = read_continuation("A\n\n### Response: 50", GRID, LETTERS)
    assert reading.continuation_class == "answers_item" and not reading.option_anywhere


@pytest.mark.parametrize(
    ("text", "then_option", "option_anywhere", "letter_anywhere"),
    [
        ("A\n\n50", True, True, True),  # Qwen3's answer, then its forecast
        ("A: her English was poor", False, False, True),
        ("Answer: B\n\n70", True, True, True),
        ("50 answer correctly.", False, True, False),  # a forecast first: no answer before it
        ("500 people", False, False, False),  # 500 is not the grid value 50
        ("The value is 1.50 or 50%", False, True, False),
        ("Based on the note, the correct answer is D: people", False, False, True),
        ("The text is mainly about B: it", False, False, True),
        ("D is not true, as the note", False, False, False),  # a word, not an answer letter
        ("A clever question!", False, False, False),
        # a recited list or instruction holds letters and grid values that answer nothing
        ("A: 50 years\nB: 70 years\nC: 90 years", False, False, False),
        ("Reply with exactly one of: 10, 30, 50,", False, False, False),
        ("Answer with exactly one of: A, B, C, D.\n", False, False, False),
        ("A: x\nB: y\n\n30", False, True, False),
        ("A: Suburbs\nB: Suburbs\nC: CBDs\nD", False, False, False),
        ("out of 100 such readers, how many answer correctly? B: 70", False, True, True),
    ],
)
def test_flags(text, then_option, option_anywhere, letter_anywhere):
    reading = read_continuation(text, GRID, LETTERS, RECITALS)
    assert (reading.answer_then_option, reading.option_anywhere, reading.letter_anywhere) == (
        then_option,
        option_anywhere,
        letter_anywhere,
    )


@pytest.mark.parametrize(
    ("token", "text", "pull"),
    [
        # Llama-3-8B-Instruct's article A opens prose, which the paper does not count
        ("A", "A clever question!", False),
        ("A", "A classic", False),
        ("A", "A nice", False),
        ("A", "A spider has eight legs.", False),
        # the item's answer letter
        ("A", "A: her English was poor", True),
        ("A", "A\n\n50", True),
        ("A", "A is correct", True),
        ("D", "D is not true, as the note", True),  # counted, though its opening is prose
        ("ĠB", " B", True),
        ("▁C", "C.", True),
        # an MMLU-Pro item lettered to J: the pronoun I opens prose
        ("I", "I think the answer is", False),
        ("I", "I'm not sure", False),
        ("I", "I\n\n70", True),
    ],
)
def test_letter_pull_reads_the_continuation(token, text, pull):
    assert letter_pull(True, token, text) is pull


def test_no_letter_at_the_argmax_is_no_letter_pull():
    assert letter_pull(False, "50", "50 answer correctly.") is False
