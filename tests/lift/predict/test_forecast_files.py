"""Forecast files from elsewhere: minimal and full lines, located errors (no model)."""

from __future__ import annotations

import json

import pytest

from readout_audit import InputError
from readout_audit.lift import Forecast, read_forecasts


def write(path, *lines):
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines))
    return path


def test_minimal_lines_take_the_default_setting_and_full_lines_keep_theirs(tmp_path):
    path = write(
        tmp_path / "z.jsonl",
        {"cut_id": "p:eq1", "z": "1}~,"},
        {"cut_id": "p:eq1", "z": "2}", "setting": "gpt55-high"},
        Forecast(cut_id="p:eq2", setting="smollm2-t1", z=" x", raw=" x", seed=7).model_dump(),
    )
    forecasts = read_forecasts(path, setting="nano-low")
    assert [(f.cut_id, f.setting, f.z) for f in forecasts] == [
        ("p:eq1", "nano-low", "1}~,"),
        ("p:eq1", "gpt55-high", "2}"),
        ("p:eq2", "smollm2-t1", " x"),
    ]
    assert forecasts[2].seed == 7 and forecasts[0].seed is None


def test_a_last_line_without_its_newline_is_read(tmp_path):
    path = tmp_path / "z.jsonl"
    path.write_text('{"cut_id": "p:eq1", "z": "a", "setting": "s"}')
    assert [f.z for f in read_forecasts(path)] == ["a"]


@pytest.mark.parametrize(
    ("lines", "setting", "message"),
    [
        ([{"cut_id": "p:eq1", "z": "a"}], None, "z.jsonl:1, field 'setting': missing, and no"),
        ([{"cut_id": "p:eq1", "setting": "s"}], None, "z.jsonl:1, field 'z': is required"),
        ([{"cut_id": "p:eq1", "z": 3, "setting": "s"}], None, "z.jsonl:1, field 'z': Input"),
        (
            [{"cut_id": "p:eq1", "z": "a", "Z": "b", "setting": "s"}],
            None,
            "z.jsonl:1, field 'Z': is not a known field",
        ),
        ([{"cut_id": "p:eq1", "z": "a"}], "gpt 5", "field 'setting': 'gpt 5' is not a setting"),
        (['["p:eq1", "a"]'], "s", "z.jsonl:1: expected a JSON object"),
        (['{"cut_id": "p:eq1",'], "s", "z.jsonl:1: malformed JSON"),
        (
            [
                {"cut_id": "p:eq1", "z": "a"},
                {"cut_id": "p:eq2", "z": "b"},
                {"cut_id": "p:eq1", "z": ""},
            ],
            "s",
            "z.jsonl:3, field 'cut_id': cut 'p:eq1' under setting 's' already has a forecast "
            "on line 1",
        ),
        ([], "s", "z.jsonl: holds no forecasts"),
    ],
)
def test_bad_lines_are_named_by_file_line_and_field(tmp_path, lines, setting, message):
    path = write(tmp_path / "z.jsonl", *lines)
    with pytest.raises(InputError) as error:
        read_forecasts(path, setting=setting)
    assert message in str(error.value)


def test_a_cut_id_not_among_the_cuts_is_named(tmp_path, make_cut):
    cuts = [make_cut("eq7"), make_cut("eq9")]
    path = write(
        tmp_path / "z.jsonl",
        {"cut_id": "2604.19885:eq7", "z": "1}"},
        {"cut_id": "2604.19885:eq8", "z": "1}"},
    )
    with pytest.raises(InputError, match=r"z.jsonl:2, field 'cut_id': cut '2604.19885:eq8' is"):
        read_forecasts(path, setting="s", cuts=cuts)
    assert len(read_forecasts(path, setting="s", cuts=[*cuts, make_cut("eq8")])) == 2


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(InputError, match=r"nothing\.jsonl: no such file"):
        read_forecasts(tmp_path / "nothing.jsonl")
