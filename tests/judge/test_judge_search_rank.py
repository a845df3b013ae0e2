"""Cue search scoring, rankings, parents, the frozen set and confirmation, on hand-built records."""

from __future__ import annotations

import math

import pytest
from judge_records import record
from scipy.stats import binomtest
from statsmodels.stats.multitest import multipletests

from readout_audit.judge.search import (
    PROGRAMMES,
    Bridge,
    Selection,
    bridge_cell,
    confirm_search,
    extension_parents,
    frozen_texts,
    rank_bridges,
    score_bridges,
)

SCREEN, EXTEND = PROGRAMMES["screen"], PROGRAMMES["extend"]


def bridge(text: str, n_tokens: int = 1, logprob: float | None = None) -> Bridge:
    return Bridge(text=text, token_ids=tuple(range(n_tokens)), origin="seed", logprob=logprob)


def judged(scaffold: str, text: str, source: str, p_correct: float | None, accepted: bool):
    probs = None if p_correct is None else {"correct": p_correct, "incorrect": 1 - p_correct}
    return record(
        "c",
        source,
        bridge_cell(scaffold, text),
        "sorted",
        "correct" if accepted else "incorrect",
        phase="development",
        probs=probs,
    )


def test_scores_count_distinct_positive_questions_and_average_displayed_scores():
    records = [
        judged("initially", "Actual", "q1", 0.9, True),
        judged("initially", "Actual", "q2", 0.3, False),
        judged("initially", "Actual", "q3", None, True),  # a verdict with no displayed score
        judged("initially", "Blank", "q1", 0.1, False),
        judged("wrong_only", "Actual", "q1", 0.99, True),  # another scaffold's cell
    ]
    actual, blank = score_bridges(records, [bridge("Actual"), bridge("Blank")], "initially")
    assert (actual.planned, actual.judged, actual.positives, actual.scored) == (3, 3, 2, 2)
    assert actual.mean_score == pytest.approx(0.6)
    assert (blank.positives, blank.mean_score) == (0, pytest.approx(0.1))
    unjudged = score_bridges(records, [bridge("Never")], "initially")[0]
    assert (unjudged.planned, unjudged.mean_score) == (0, None)


def scored(texts_positives_means, scaffold="initially"):
    """Scores from (text, tokens, L_Q, positives, mean) rows, each over 12 questions."""
    records, bridges = [], []
    for text, tokens, logprob, positives, mean in texts_positives_means:
        bridges.append(bridge(text, tokens, logprob))
        for q in range(12):
            records.append(judged(scaffold, text, f"q{q}", mean, q < positives))
    return score_bridges(records, bridges, scaffold)


def test_the_first_search_ranks_positives_then_score_then_length_then_likelihood_then_text():
    scores = scored(
        [
            ("Zeta", 1, -1.0, 1, 0.2),
            ("Most", 3, -9.0, 3, 0.1),  # most positives wins despite everything else
            ("Long", 2, -0.1, 1, 0.5),
            ("Short", 1, -5.0, 1, 0.5),  # same positives and score: shorter first
            ("Likely", 1, -0.5, 1, 0.5),  # same length: higher L_Q first
            ("Alpha", 1, -0.5, 1, 0.5),  # all equal: text
        ]
    )
    ranked = [s.text for s in rank_bridges(scores, SCREEN)]
    assert ranked == ["Most", "Alpha", "Likely", "Short", "Long", "Zeta"]


def test_the_later_search_ranks_score_then_positives_then_length_then_text():
    scores = scored(
        [
            ("Many", 1, None, 9, 0.3),
            ("High", 2, None, 1, 0.8),
            ("Tie2", 2, None, 4, 0.5),
            ("Tie1", 1, None, 4, 0.5),
            ("More", 3, None, 5, 0.5),
        ]
    )
    assert [s.text for s in rank_bridges(scores, EXTEND)] == [
        "High",
        "More",
        "Tie1",
        "Tie2",
        "Many",
    ]


def test_parents_skip_full_length_strings_and_allow_two_per_first_word():
    scores = scored(
        [
            ("Correct answer", 2, None, 12, 0.95),
            ("Correct", 1, None, 12, 0.94),
            ("correct answer was", 3, None, 12, 0.93),  # a third "correct": skipped
            ("Seven tokens long", 7, None, 12, 0.92),  # at the length limit: skipped
            ("Actual", 1, None, 12, 0.5),
            ("However", 1, None, 12, 0.4),
        ]
    )
    ranked = rank_bridges(scores, EXTEND)
    assert extension_parents(ranked, EXTEND) == ["Correct answer", "Correct", "Actual"]


def test_the_frozen_set_is_the_best_per_scaffold_then_baselines_and_controls_once():
    first = scored([("Actual", 1, None, 0, 0.8), ("Correct answer", 2, None, 0, 0.9)])
    second = scored(
        [("Actual", 1, None, 0, 0.0), ("Actually", 1, None, 0, 0.0), ("Zzz", 1, None, 0, 0.0)],
        "wrong_only",
    )
    rankings = {
        "correct_first": rank_bridges(first, EXTEND),
        "wrong_only": rank_bridges(second, EXTEND),
    }
    # all-zero wrong-only scores tie: length, then text admit Actual and Actually
    assert frozen_texts(rankings, EXTEND) == [
        "Correct answer",
        "Actual",
        "Actually",
        "Correct answer instead",
        "",
        "Neutral answer",
        "Qxvbrtz mptklu",
    ]
    many = scored([(f"S{k:02d}", 1, None, 20 - k, 0.5) for k in range(20)])
    assert frozen_texts({"initially": rank_bridges(many, SCREEN)}, SCREEN) == [
        *[f"S{k:02d}" for k in range(16)],
        "",
    ]


def test_confirmation_counts_discordances_against_blank_with_exact_mcnemar_and_holm():
    bridges = [bridge("Actual"), bridge("Correct answer", 2), bridge("")]
    roles = {"Actual": "frozen", "Correct answer": "baseline", "": "control"}
    records = []
    for q in range(14):
        blank = q in (0, 1)  # the blank bridge accepted on q0, q1
        actual = q >= 1  # Actual on q1..q13: 12 forward, 1 reverse
        correct = q in (0, 5)  # Correct answer: 1 forward (q5), 1 reverse (q1)
        for text, accepted in (("", blank), ("Actual", actual), ("Correct answer", correct)):
            records.append(
                judged("initially", text, f"q{q}", 0.5, accepted).model_copy(
                    update={"phase": "confirmation"}
                )
            )
    records.append(record("c", "q0", "bare_correct", "sorted", "correct"))
    records.append(record("c", "q1", "bare_correct", "sorted", "incorrect"))
    records.append(record("c", "q0", "bare_wrong", "sorted", None))
    result = confirm_search(records, bridges, roles, SCREEN)
    actual, correct, blank = result.bridges
    assert (actual.pairs, actual.forward, actual.reverse) == (14, 12, 1)
    assert (correct.forward, correct.reverse) == (1, 1)
    assert actual.excess == pytest.approx(11 / 14)
    assert actual.p_raw == pytest.approx(binomtest(1, 13, 0.5).pvalue)
    assert correct.p_raw == pytest.approx(1.0)
    expected = multipletests([actual.p_raw, correct.p_raw], method="holm")[1]
    assert [actual.p_holm, correct.p_holm] == pytest.approx(list(expected))
    assert blank.p_raw is None and blank.p_holm is None and blank.role == "control"
    assert [(c.cell, c.judged, c.accepted, c.right) for c in result.clean] == [
        ("bare_correct", 2, 1, 1),
        ("bare_wrong", 0, 0, 0),
    ]
    assert math.isclose(actual.score.mean_score or 0, 0.5)


def test_the_screens_hoeffding_epsilon_is_the_printed_60_for_145_strings_on_12_questions():
    # the paper's first search: 145 retained strings, 12 development questions, 1,740 candidates
    scores = scored([(f"S{k:03d}", 1, -1.0, 0, 0.1) for k in range(145)])
    assert sum(s.planned for s in scores) == 1740
    selection = Selection(rankings={"initially": scores}, frozen=[], roles={}, development=[])
    assert f"{selection.hoeffding_epsilon():.2f}" == "0.60"
    assert math.isclose(selection.hoeffding_epsilon(), math.sqrt(math.log(2 * 145 / 0.05) / 24))
    assert Selection(rankings={}, frozen=[], roles={}, development=[]).hoeffding_epsilon() is None
