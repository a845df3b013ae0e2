"""Displayed scores as returned: q_c, log ratio, gap, the score interaction and crossings."""

from __future__ import annotations

import math

import pytest
from judge_records import record

from readout_audit.judge.analysis import (
    JudgePanel,
    conditional_correctness,
    displayed_gap,
    log_ratio,
    paired_score_changes,
    positive_score,
    score_crossings,
    score_interaction,
)

WEIGHTS = {"drop": 0.5, "gsm8k": 0.5}


def _probs(p_c: float) -> dict[str, float]:
    """p(correct) = p_c, p(incorrect) = .9 − p_c, p(no_answer) = .1."""
    return {"correct": p_c, "incorrect": round(0.9 - p_c, 10), "no_answer": 0.1}


def _scored(source: str, dataset: str, scores: dict[tuple[str, str], float]) -> list:
    return [
        record("c", source, cell, presentation, "incorrect", dataset=dataset, probs=_probs(p))
        for (presentation, cell), p in scores.items()
    ]


def _panel() -> JudgePanel:
    cells = [("sorted", "random_colon"), ("sorted", "random"), ("insertion", "random_colon")]
    cells.append(("insertion", "random"))
    return JudgePanel(
        _scored("a", "drop", dict(zip(cells, (0.6, 0.1, 0.2, 0.1), strict=True)))  # D^p = .4
        + _scored("b", "gsm8k", dict(zip(cells, (0.3, 0.3, 0.1, 0.2), strict=True)))  # .1
        + _scored("c", "gsm8k", dict.fromkeys(cells, 0.5))  # 0
    )


def test_readings_of_one_record():
    r = record("c", "s", "random", "sorted", "incorrect", probs=_probs(0.2))
    assert positive_score(r) == 0.2
    assert conditional_correctness(r) == pytest.approx(0.2 / 0.9)
    assert log_ratio(r) == pytest.approx(math.log(0.2 / 0.7))
    # g = 2p_c + min(p_i, p_n) − (p_c + p_i + p_n) = p_c − max(p_i, p_n)
    assert displayed_gap(r) == pytest.approx(2 * 0.2 + 0.1 - 1.0) == pytest.approx(-0.5)
    floor = record(
        "c", "s", "random", "sorted", "incorrect", probs={"correct": 0.0, "incorrect": 1.0}
    )
    assert conditional_correctness(floor) == 0.0 and log_ratio(floor) is None
    empty = record(
        "c", "s", "random", "sorted", "incorrect", probs={"correct": 0.0, "incorrect": 0.0}
    )
    assert conditional_correctness(empty) is None
    hidden = record(
        "c", "s", "random", "sorted", "incorrect", probs={"correct": 0.3, "incorrect": None}
    )
    assert displayed_gap(hidden) is None and conditional_correctness(hidden) is None
    served = record("c", "s", "random", "sorted", "incorrect")
    assert positive_score(served) is None and displayed_gap(served) is None


def test_score_interaction_uses_the_four_signed_terms_and_dataset_weights():
    found = score_interaction(_panel(), "c", WEIGHTS)
    assert found.n_complete == {"drop": 1, "gsm8k": 2}
    assert found.weighted_mean == pytest.approx(0.5 * 0.4 + 0.5 * 0.05)
    assert found.pooled_mean == pytest.approx(0.5 / 3)


def test_paired_changes_and_crossings_within_a_presentation():
    rows = {(r.presentation, r.quantity): r for r in paired_score_changes(_panel(), "c", WEIGHTS)}
    p_sorted = rows[("sorted", "p_c")]
    assert (p_sorted.n, p_sorted.n_up, p_sorted.n_down, p_sorted.n_tie) == (3, 1, 0, 2)
    assert p_sorted.weighted_mean == pytest.approx(0.25) and p_sorted.median == 0
    p_insertion = rows[("insertion", "p_c")]
    assert (p_insertion.n_up, p_insertion.n_down, p_insertion.n_tie) == (1, 1, 1)
    q_sorted = rows[("sorted", "q_c")]
    assert q_sorted.pooled_mean == pytest.approx(0.5 / 0.9 / 3)
    gap = rows[("sorted", "gap")]  # a: g(.6) − g(.1) = (.6 − .3) − (.1 − .8)
    assert gap.weighted_mean == pytest.approx(0.5 * 1.0)
    crossings = {c.presentation: c for c in score_crossings(_panel(), "c", WEIGHTS)}
    sorted_view = crossings["sorted"]
    assert sorted_view.thresholds[4] == 0.5
    # ω = (.5, .25, .25); only source a rises, from .1 to .6: U(t) = .5 for t in (.1, .6]
    assert sorted_view.up == pytest.approx([0.0, 0.5, 0.5, 0.5, 0.5, 0.5, 0.0, 0.0, 0.0])
    assert sorted_view.down == [0.0] * 9
    assert sorted_view.area == pytest.approx(p_sorted.weighted_mean)
    # insertion: a rises .1 → .2 (ω .5), b falls .2 → .1 (ω .25)
    insertion = crossings["insertion"]
    assert insertion.up[1] == pytest.approx(0.5) and insertion.down[1] == pytest.approx(0.25)
    assert insertion.area == pytest.approx(0.5 * 0.1 - 0.25 * 0.1)
