"""Item validation: every bad input is named by line, item id and field."""

from __future__ import annotations

import json

import pytest

from readout_audit import InputError, Item, demo_items, load_items, parse_items

GOOD = {"id": "a", "prompt": "Q?", "options": ["x", "y"]}


def line(**changes) -> str:
    data = {**GOOD, **changes}
    return json.dumps({k: v for k, v in data.items() if v is not ...})


@pytest.mark.parametrize(
    ("text", "field", "message"),
    [
        (line(options=...), "options", "is required"),
        (line(options=[]), "options", "at least one option"),
        (line(options=["x", ""]), "options", "empty string"),
        (line(options=["x", "y", "x"]), "options", "repeats option 0"),
        (line(options="xy"), "options", "tuple"),
        (line(options=["x", 3]), "options[1]", "string"),
        (
            line(prompt=..., messages=[{"role": "robot", "content": "hi"}]),
            "messages[0].role",
            "unknown role 'robot'",
        ),
        (line(prompt=..., messages=[]), "messages", "at least one message"),
        (line(messages=[{"role": "user", "content": "hi"}]), None, "exactly one of"),
        (line(prompt=...), None, "exactly one of"),
        (line(stem=5), "stem", "string"),
        (line(colour="red"), "colour", "not a known field"),
        (line(id=...), "id", "is required"),
    ],
)
def test_bad_items_are_located(text, field, message):
    with pytest.raises(InputError) as error:
        parse_items([json.dumps(GOOD | {"id": "first"}), text], source="items.jsonl")
    assert error.value.line == 2
    assert error.value.field == field
    assert message in str(error.value)
    assert str(error.value).startswith("items.jsonl:2")
    if "id" in json.loads(text):
        assert error.value.item_id == "a" and "item 'a'" in str(error.value)


def test_malformed_json_and_non_objects():
    with pytest.raises(InputError, match=r"items.jsonl:3: malformed JSON"):
        parse_items([line(), "", '{"id": "b", '], source="items.jsonl")
    with pytest.raises(InputError, match=r"<items>:1: expected a JSON object, got list"):
        parse_items(["[1, 2]"])


def test_duplicate_ids():
    with pytest.raises(InputError, match=r"<items>:2, item 'a', field 'id': duplicate id .*line 1"):
        parse_items([line(), line()])


def test_types_and_defaults():
    (item,) = parse_items(
        [line(id=7, cluster=3, target=0.5, options=["0.50", "y"], metadata={"k": [1]})]
    )
    assert item.id == "7" and item.cluster == "3" and item.target == 0.5
    assert item.metadata == {"k": [1]} and item.stem is None
    assert Item(id="x", prompt="p", options=["a"]).cluster_key == "x"


def test_load_items_file_errors(tmp_path):
    with pytest.raises(InputError, match="file not found"):
        load_items(tmp_path / "absent.jsonl")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")
    with pytest.raises(InputError, match="no items"):
        load_items(empty)
    binary = tmp_path / "bin.jsonl"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(InputError, match="UTF-8"):
        load_items(binary)


def test_demo_items_are_valid_and_cover_the_failure_cases():
    items = demo_items()
    ids = {item.id for item in items}
    assert {"forecast-production", "forecast-stem", "raw-trailing-space"} <= ids
    assert any(item.stem for item in items) and any(item.prompt for item in items)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("NaN", r"unusable number \(NaN is not a JSON number\)"),
        ("-Infinity", r"unusable number \(-Infinity is not a JSON number\)"),
        ("1e999", r"unusable number \(the number 1e999 is out of range\)"),
        ("9" * 5000, r"an integer of more than 4,300 digits is out of range"),
        ("[" * 100_000 + "]" * 100_000, r"nested deeper than 100 levels"),
    ],
)
def test_numbers_and_nesting_json_allows_but_items_cannot_use(value, message):
    line = '{"id": "a", "prompt": "p", "options": [" x"], "metadata": {"v": ' + value + "}}"
    with pytest.raises(InputError, match=r"^items.jsonl:2: " + message):
        parse_items(['{"id": "ok", "prompt": "p", "options": [" x"]}', line], source="items.jsonl")


@pytest.mark.parametrize(
    ("target", "options", "ok"),
    [
        (" Paris", [" Paris", " Lyon"], True),
        ("Paris", [" Paris", " Lyon"], True),  # compared without surrounding whitespace
        (" Pariss", [" Paris", " Lyon"], False),
        (10, ["10", "30"], True),
        (10.0, ["10", "30"], True),
        (20, ["10", "30"], False),
        (True, ["10", "30"], True),  # a correctness label, not an option
    ],
)
def test_a_target_must_be_one_of_the_options(target, options, ok):
    raw = {"id": "q", "prompt": "p", "options": options, "target": target}
    line = json.dumps(raw)
    if ok:
        assert parse_items([line])[0].target == target
    else:
        with pytest.raises(InputError, match=r"item 'q', field 'target': .* is not one of the"):
            parse_items([line], source="items.jsonl")
