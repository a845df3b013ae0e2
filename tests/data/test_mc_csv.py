"""MMLU's CSV layout: errors name the physical line (quoted newlines count) and the field in one
line; a byte-order mark is not part of the first question. Every hostile file is made here."""

from __future__ import annotations

import pytest

from readout_audit import InputError
from readout_audit.data import load_mmlu_csv

GOOD = '"Which river is the longest?",Nile,Thames,Seine,Rhine,A\n'
MULTILINE = '"A question\nover\nthree lines?",a,b,c,d,B\n'


def test_a_byte_order_mark_is_not_part_of_the_first_question(tmp_path):
    path = tmp_path / "geography_test.csv"
    path.write_bytes(b"\xef\xbb\xbf" + GOOD.encode())
    (item,) = load_mmlu_csv(path)
    assert item.question == "Which river is the longest?" and item.id == "geography_test/1"


def test_errors_name_the_physical_line_after_quoted_newlines(tmp_path):
    path = tmp_path / "geography_test.csv"
    path.write_text(MULTILINE + GOOD + "Too few,a,b\n")
    with pytest.raises(InputError, match="expected 6 columns") as caught:
        load_mmlu_csv(path)
    assert caught.value.line == 5 and caught.value.source == str(path)


def test_ids_still_count_rows(tmp_path):
    path = tmp_path / "geography_test.csv"
    path.write_text(MULTILINE + GOOD)
    assert [i.id for i in load_mmlu_csv(path)] == ["geography_test/1", "geography_test/2"]


@pytest.mark.parametrize(
    ("row", "field", "message"),
    [
        ("Q?,a,b,c,d,E\n", None, "answer 'E' is not one of the choice letters A, B, C, D"),
        ("Q?,a, ,c,d,A\n", "choices", "every choice must have text"),
    ],
)
def test_an_invalid_row_is_one_line_naming_file_line_and_field(tmp_path, row, field, message):
    path = tmp_path / "geography_test.csv"
    path.write_text(MULTILINE + row)
    with pytest.raises(InputError) as caught:
        load_mmlu_csv(path)
    error = caught.value
    assert (error.source, error.line, error.item_id, error.field) == (
        str(path),
        4,
        "geography_test/2",
        field,
    )
    assert error.message == message and "\n" not in str(error)
    assert str(error).startswith(f"{path}:4, item 'geography_test/2'")
