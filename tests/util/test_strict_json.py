"""One strict JSON decoder for every user input: a repeated key, NaN or Infinity is an error."""

from __future__ import annotations

import json

import pytest

from readout_audit import InputError, load_items
from readout_audit._util._jsonl import DuplicateKeyError, decode_json, loads_strict

PROMPT = '"prompt": "Two plus two is", "options": [" four", " five"]'


def test_a_key_written_twice_in_an_item_line_names_the_key_and_the_line(tmp_path):
    path = tmp_path / "items.jsonl"
    path.write_text(f'{{"id": "x", {PROMPT}}}\n{{"id": "a", "id": "b", {PROMPT}}}\n')
    with pytest.raises(InputError, match=r"items\.jsonl:2, field 'id': appears twice") as caught:
        load_items(path)
    assert (caught.value.line, caught.value.field) == (2, "id")


def test_a_key_written_twice_deep_inside_a_value_is_refused_too(tmp_path):
    path = tmp_path / "items.jsonl"
    turn = '{"role": "user", "content": "Hi?", "content": "Bye?"}'
    path.write_text(f'{{"id": "a", "messages": [{turn}], "options": ["yes", "no"]}}\n')
    with pytest.raises(InputError, match="field 'content': appears twice"):
        load_items(path)


def test_a_whole_document_names_its_syntax_errors_line_and_its_repeated_key():
    with pytest.raises(InputError, match=r"doc\.json:3: malformed JSON"):
        loads_strict("[\n  1,\n  ]\n", source="doc.json")
    with pytest.raises(InputError, match=r"doc\.json, field 'a': appears twice"):
        loads_strict('[\n  {"a": 1,\n   "a": 1}\n]\n', source="doc.json")
    assert loads_strict('{"a": {"b": 1}, "b": [1.5, {"a": 2}]}', source="doc.json") == {
        "a": {"b": 1},
        "b": [1.5, {"a": 2}],
    }


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("NaN", ValueError),
        ("[1, -Infinity]", ValueError),
        ('{"x": 1e999}', ValueError),
        ('{"x": 1, "x": 1}', DuplicateKeyError),
        ("[" * 100_000 + "]" * 100_000, ValueError),
        ("nan", json.JSONDecodeError),
        ("plain text", json.JSONDecodeError),
    ],
)
def test_decoding_tells_malformed_text_from_unusable_json(text, error):
    with pytest.raises(error) as caught:
        decode_json(text)
    assert isinstance(caught.value, json.JSONDecodeError) == (error is json.JSONDecodeError)
