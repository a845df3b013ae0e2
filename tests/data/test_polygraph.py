"""MMLU in lm-polygraph's simple_instruct layout: the input the paper's P(True) runs quote."""

from __future__ import annotations

import pytest

from readout_audit import InputError
from readout_audit.data._mc import MCItem
from readout_audit.data._polygraph import polygraph_mmlu_items


def _mc(subject: str, n: int, answer: str = "B", role: str = "test") -> MCItem:
    return MCItem(
        id=f"{subject}/{n}",
        question=f" {role} question {n} ",
        choices=("w", "x", "y", "z"),
        answer=answer,
        cluster=subject,
        metadata={"subject": subject},
    )


TESTS = [_mc("high_school_botany", 1), _mc("astronomy", 1, "C"), _mc("astronomy", 2)]
DEV = [_mc(s, n, "ABCD"[n], "dev") for s in ("astronomy", "high_school_botany") for n in range(3)]


def test_the_input_opens_with_the_instruction_then_the_examples_then_the_question():
    items = polygraph_mmlu_items(TESTS, DEV, n_shot=1)
    # subjects in sorted order; one NumPy generator seeded with 1 draws each subject's example
    # (RandomState(1).choice(3, 1, replace=False) gives 0, then 1 for the next subject)
    assert [i.id for i in items] == ["astronomy/1", "astronomy/2", "high_school_botany/1"]
    first = items[0]
    assert first.instruction == (
        "Given the following question about astronomy and four candidate answers (A, B, C, and "
        "D), choose the best answer. Your response should contain only the selected option's "
        "letter (A, B, C, or D), not a complete sentence."
    )
    assert first.quoted() == (
        f"{first.instruction}\n\n"
        "Here are a few examples of questions and answers:\n\n"
        "Q:dev question 0\nA. w\nB. x\nC. y\nD. z\nAnswer:A\n\n"
        "Now answer the following question in the same format:\n\n"
        "Q:test question 1\nA. w\nB. x\nC. y\nD. z\nAnswer:"
    )
    assert first.gold == "C" and first.cluster == "astronomy"
    assert "Q:dev question 1\nA. w\nB. x\nC. y\nD. z\nAnswer:B" in items[2].quoted()
    assert "high school botany" in (items[2].instruction or "")
    # Deleted removes only the instruction: the examples and the question stay
    assert first.quoted(with_instruction=False).startswith("Here are a few examples")


def test_zero_shots_and_per_subject_cap():
    items = polygraph_mmlu_items(TESTS, n_shot=0, max_per_subject=1)
    assert [i.id for i in items] == ["astronomy/1", "high_school_botany/1"]
    assert items[0].question == "Q:test question 1\nA. w\nB. x\nC. y\nD. z\nAnswer:"


def test_missing_examples_or_subject_are_clear_errors():
    with pytest.raises(InputError, match="fewer than 5 shots"):
        polygraph_mmlu_items(TESTS, DEV)
    bare = MCItem(id="x", question="q", choices=("a", "b", "c", "d"), answer="A")
    with pytest.raises(InputError, match="no subject"):
        polygraph_mmlu_items([bare], n_shot=0)
