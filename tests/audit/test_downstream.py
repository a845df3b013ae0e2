"""The forecast readouts (a)–(f) against the reader's correctness, on hand-worked records."""

from __future__ import annotations

import pytest

from readout_audit.log._record import ScoreRecord
from readout_audit.options._downstream import forecast_downstream, written_forecast
from readout_audit.readout._position import Greedy

GRID = ["10", "30", "50", "70", "90"]
CORRECT = [True, True, False, False, False]
"""The reader's correctness on five passages: base rate 0.4."""
EXPECTED = {  # expected values Σ value·p_o of each rung on the five passages
    "production": [10, 30, 50, 10, 70],
    "stem": [90, 70, 30, 50, 10],
    "instruction_deleted": [50, 50, 50, 50, 50],
    "T1": [70, 30, 30, 30, 10],
    "T1_stem": [90, 90, 10, 90, 10],
}
GREEDY = [  # the original position's greedy texts; readout (f) reads 0.5, 0.3, 0.5, 0.1, 0.9
    "50 answer correctly. 90",
    "Of 100 readers, 30",
    "A: a rake",
    "705 or 10",
    "About 90%",
]


def _record(i: int, variant: str, value: float | None, target: bool | None = None) -> ScoreRecord:
    """A record holding only what the downstream reads."""
    return ScoreRecord.model_construct(
        item_id=f"p{i}",
        variant=variant,
        options=GRID,
        target=CORRECT[i] if target is None else target,
        cluster=f"passage{i}",
        expected_value=value,
        greedy=Greedy(token_ids=[], text=GREEDY[i] if variant == "production" else ""),
    )


def _records(expected=EXPECTED):
    return [
        _record(i, variant, value)
        for variant, values in expected.items()
        for i, value in enumerate(values)
    ]


@pytest.mark.parametrize(
    ("text", "forecast"),
    [
        ("50 answer correctly. 90", 0.5),
        ("Of 100 readers, 30", 0.3),  # 100 is not a grid value: skipped
        ("705 or 10", 0.1),  # a maximal run: 705 is not 70
        ("A: a rake", 0.5),  # no grid number
        ("about 90%", 0.9),
        ("", 0.5),
    ],
)
def test_written_forecast_reads_the_first_grid_number(text, forecast):
    assert written_forecast(text, GRID) == forecast


@pytest.fixture(scope="module")
def down():
    return forecast_downstream(_records(), n_boot=400)


# AUC by hand over the 2 × 3 (correct, wrong) pairs, ties counting one half; Brier = mean (p − y)².
AUC = {
    "production": 1.5 / 6,
    "stem": 1.0,
    "instruction_deleted": 0.5,
    "T1": 5 / 6,
    "T1_stem": 5 / 6,
    "written": 2.5 / 6,
}
BRIER = {
    "production": 2.05 / 5,
    "stem": 0.45 / 5,
    "instruction_deleted": 0.25,
    "T1": 0.77 / 5,
    "T1_stem": 0.85 / 5,
    "written": 1.81 / 5,
}


def test_every_readout_is_scored_against_the_reader(down):
    assert down.readouts == list(AUC)
    assert down.n == 5 and down.n_reader_correct == 2 and down.n_clusters == 5
    assert down.forecasts.scores["written"] == [0.5, 0.3, 0.5, 0.1, 0.9]
    assert down.forecasts.scores["T1"] == [0.7, 0.3, 0.3, 0.3, 0.1]
    for name in AUC:
        assert down.auc[name].estimate == pytest.approx(AUC[name])
        assert down.brier[name].estimate == pytest.approx(BRIER[name])
        assert down.auc[name].method == "paired cluster bootstrap percentile (400 replicates)"


def test_differences_favour_the_readout_when_positive(down):
    # Table 13's pairs: every later readout against (a), then against (b)
    later = ["stem", "instruction_deleted", "T1", "T1_stem", "written"]
    assert down.comparisons == [("production", x) for x in later] + [("stem", x) for x in later[1:]]
    # the stem ranks better and errs less: both differences positive (paper: original − stemmed)
    assert down.auc["stem - production"].estimate == pytest.approx(0.75)
    assert down.brier["production - stem"].estimate == pytest.approx(0.41 - 0.09)
    assert "stem - production" not in down.brier and "production - stem" not in down.auc
    for r, x in down.comparisons:
        assert down.auc[f"{x} - {r}"].estimate == pytest.approx(AUC[x] - AUC[r])
        assert down.brier[f"{r} - {x}"].estimate == pytest.approx(BRIER[r] - BRIER[x])
    assert down.brier["stem - written"].estimate == pytest.approx(0.09 - 0.362)


@pytest.mark.parametrize(
    ("correct", "base_rate", "brier"),
    [
        ([True, True, False, False, False], 0.4, 0.4 * 0.6),
        ([True, False, False, False], 0.25, 0.1875),
        ([True, True, True, False], 0.75, 0.1875),
    ],
)
def test_the_fitted_constant_scores_its_base_rate_times_its_complement(correct, base_rate, brier):
    records = [
        _record(i, variant, 50, target=y)
        for i, y in enumerate(correct)
        for variant in ("production", "stem")
    ]
    got = forecast_downstream(records, n_boot=50)
    assert got.base_rate == pytest.approx(base_rate)
    assert got.brier_fitted_constant == pytest.approx(brier)
    assert got.brier_fitted_constant == pytest.approx(
        sum((base_rate - y) ** 2 for y in correct) / len(correct)
    )
    assert got.brier_constant_half == 0.25 == got.brier["stem"].estimate


def test_a_rung_without_a_forecast_on_some_row_is_left_out():
    gaps = {**EXPECTED, "T1_stem": [90, None, 10, None, 10]}  # options merged with the ending
    down = forecast_downstream(_records(gaps), n_boot=50)
    assert down.unscored == {"T1_stem": 2}
    assert down.readouts == ["production", "stem", "instruction_deleted", "T1", "written"]
    assert down.n == 5


def test_rows_need_the_reader_outcome_and_both_positions():
    records = _records({k: v for k, v in EXPECTED.items() if k != "stem"})
    assert forecast_downstream(records, n_boot=50) is None  # no stemmed position
    stem_gap = {**EXPECTED, "stem": [90, 70, None, 50, 10]}
    assert forecast_downstream(_records(stem_gap), n_boot=50).n == 4
    one_class = [_record(i, v, 50, target=True) for i in range(3) for v in ("production", "stem")]
    assert forecast_downstream(one_class, n_boot=50).auc is None
