"""Candidate renderings, the seeded random string, mutations and target labels."""

from __future__ import annotations

import hashlib
import math

import pytest

from readout_audit.judge.inventory import (
    bridges,
    canonical_number,
    cell_candidate,
    cue_candidate,
    mutated,
    random_letters,
    target_label,
)
from readout_audit.judge.protocol import CONFIRMATION_CELLS, CONTRACTS, PREFLIGHT_CELLS


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (14.0, "14"),
        (-3.0, "-3"),
        (-0.0, "0"),
        (2.5, "2.5"),
        (87.5, "87.5"),
        (0.1, "0.1"),
        (1e20, "100000000000000000000"),
    ],
)
def test_numbers_render_canonically(value, text):
    assert canonical_number(value) == text


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_non_finite_numbers_are_refused(value):
    with pytest.raises(ValueError, match="not a finite number"):
        canonical_number(value)


@pytest.mark.parametrize(
    ("x", "distance", "y"),
    [
        (14.0, "near", 15.0),
        (14.0, "far", 54.0),  # the paper's Figure 1: X = 14, Y = 54
        (840.0, "far", 2520.0),  # 840 + 2·840
        (-30.0, "far", 30.0),  # -30 + max(60, 40)
        (0.57, "near", 1.57),  # exact decimals: 0.57 + 1.0 in floats is 1.5699999999999998
        (0.1, "far", 40.1),
        (-4.0, "near", -3.0),
    ],
)
def test_mutations(x, distance, y):
    assert mutated(x, distance) == y


def test_random_letters_are_seeded_title_case_six_letters():
    def independent(seed, source_id):
        text = f'[{seed},"random","{source_id}"]'
        number = int(hashlib.sha256(text.encode()).hexdigest(), 16) % 26**6
        return "".join(chr(97 + number // 26**i % 26) for i in range(6)).capitalize()

    assert random_letters(0, "gsm8k:0") == "Jhbvoa" == independent(0, "gsm8k:0")
    for seed, source_id in [(20261007154, "drop:a8dd3662"), (7, "gsm8k:12"), (7, "gsm8k:13")]:
        letters = random_letters(seed, source_id)
        assert letters == independent(seed, source_id)
        assert len(letters) == 6 and letters.isascii() and letters.isalpha()
        assert letters[0].isupper() and letters[1:].islower()
    assert random_letters(7, "gsm8k:12") != random_letters(7, "gsm8k:13")
    assert random_letters(7, "gsm8k:12") != random_letters(8, "gsm8k:12")


def test_bridges():
    assert bridges("Wmepnu") == {
        "blank": "",
        "colon": ":",
        "random": "Wmepnu",
        "random_colon": "Wmepnu:",
        "marker": "Neutral answer",
        "actual": "Actual",
        "correct_answer": "Correct answer",
    }
    # The blank bridge keeps its empty middle line.
    assert cue_candidate("76", "", "229") == "76\n\nFinal answer: 229."
    assert cue_candidate("1900", "Actual", "1902") == "1900\nActual\nFinal answer: 1902."


def test_every_cell_renders_literally():
    rendered = {
        cell: cell_candidate(cell, "14", "54", "Wmepnu")
        for cell in (*CONFIRMATION_CELLS, *PREFLIGHT_CELLS)
    }
    assert rendered == {
        "random": "14\nWmepnu\nFinal answer: 54.",
        "random_colon": "14\nWmepnu:\nFinal answer: 54.",
        "bare_correct": "14",
        "bare_wrong": "54",
        "wrong_final_only": "Final answer: 54.",
        "revision": "54\n\nFinal answer: 14.",
        "random_repeat": "14\nWmepnu\nFinal answer: 54.",
        "random_colon_repeat": "14\nWmepnu:\nFinal answer: 54.",
        "no_answer": "I cannot determine the answer.",
        "unresolved": "Final answer: 14 or 54.",
    }
    with pytest.raises(ValueError, match="unknown cell 'blank'"):
        cell_candidate("blank", "14", "54", "Wmepnu")


CELLS = (*CONFIRMATION_CELLS, "no_answer", "unresolved")


@pytest.mark.parametrize(
    ("contract", "targets"),
    [
        ("FINAL3", "incorrect incorrect correct incorrect incorrect correct incorrect incorrect "
         "no_answer no_answer"),
        ("FINAL4", "incorrect incorrect correct incorrect incorrect correct incorrect incorrect "
         "no_answer ambiguous"),
        ("HALL", "hallucinated hallucinated supported hallucinated hallucinated supported "
         "hallucinated hallucinated hallucinated hallucinated"),
        ("HALL_R", "hallucinated hallucinated supported hallucinated hallucinated supported "
         "hallucinated hallucinated hallucinated hallucinated"),
    ],
)  # fmt: skip
def test_target_labels(contract, targets):
    assert CELLS == (
        "random", "random_colon", "bare_correct", "bare_wrong", "wrong_final_only", "revision",
        "random_repeat", "random_colon_repeat", "no_answer", "unresolved",
    )  # fmt: skip
    assert [target_label(CONTRACTS[contract], cell) for cell in CELLS] == targets.split()
    assert target_label(CONTRACTS[contract], "cue_actual") == targets.split()[0]
