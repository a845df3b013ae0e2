"""Prompt specs, the ladder's transforms and user spec files."""

from __future__ import annotations

import pytest

from readout_audit import InputError
from readout_audit.data._mc import MCItem
from readout_audit.prompt import (
    ANSWER,
    BUILTIN_RUNGS,
    FORECAST,
    FORECAST_RUNGS,
    LADDER,
    build_item,
    load_spec_file,
)

ITEM = MCItem(
    id="q",
    question="Which is a fruit?",
    choices=["apple", "brick"],
    answer="A",
    note="Apples grow on trees.",
)


def _user(item):
    return item.messages[-1].content


def test_production_quotes_the_item_with_its_instruction():
    production = build_item(FORECAST, ITEM, "production")
    text = _user(production)
    assert "Which is a fruit?\nA: apple\nB: brick\nAnswer with exactly one of: A, B." in text
    assert text.startswith("Note: Apples grow on trees.")
    assert production.options == ("10", "30", "50", "70", "90") and production.stem is None


@pytest.mark.parametrize(
    ("variant", "present", "absent"),
    [
        ("instruction_deleted", "B: brick", "Answer with exactly one of"),
        ("instruction_substituted", "Summarise in one sentence.", "Answer with exactly one of"),
        ("choices_deleted", "fruit?\nAnswer with exactly one of: A, B.", "A: apple"),
        ("fenced", "BEGIN QUOTED ITEM\nWhich is a fruit?", "zzz"),
    ],
)
def test_each_rung_changes_one_part(variant, present, absent):
    text = _user(build_item(FORECAST, ITEM, variant))
    assert present in text and absent not in text


def test_stem_space_and_system_rungs():
    assert build_item(FORECAST, ITEM, "stem").stem == "Out of 100 such readers, about "
    assert build_item(FORECAST, ITEM, "space_appended").stem == " "
    system = build_item(FORECAST, ITEM, "system_turn")
    assert [m.role for m in system.messages] == ["system", "user"]
    assert "Out of 100 such readers" in system.messages[0].content
    assert set(LADDER) == {
        "production",
        "stem",
        "instruction_deleted",
        "instruction_substituted",
        "choices_deleted",
        "fenced",
        "space_appended",
        "system_turn",
    }


def test_answer_spec_declares_the_items_letters():
    answer = build_item(ANSWER, ITEM, "production")
    assert answer.options == ("A", "B") and answer.target == "A"
    assert _user(answer).startswith("Which is a fruit?")


SPEC_TOML = (
    '[spec]\nname = "yes-no"\nuser_template = "{note}\\n{item}\\nIs it easy? yes or no."\n'
    'options = ["yes", "no"]\nstem = "Easy: "\ntarget = "answer"\n\n'
    '[variants.no_instruction_fenced]\nitem_instruction = ""\nfenced = true\n'
)
SPEC_YAML = """
spec:
  name: yes-no
  user_template: "{note}\\n{item}\\nIs it easy? yes or no."
  options: ["yes", "no"]
  stem: "Easy: "
  target: answer
variants:
  no_instruction_fenced:
    item_instruction: ""
    fenced: true
"""


@pytest.mark.parametrize(("suffix", "content"), [(".toml", SPEC_TOML), (".yaml", SPEC_YAML)])
def test_spec_file(tmp_path, suffix, content):
    path = tmp_path / f"spec{suffix}"
    path.write_text(content)
    spec, variants = load_spec_file(path)
    assert spec.name == "yes-no" and spec.options == ("yes", "no") and spec.stem == "Easy: "
    ladder = {**LADDER, **variants}
    text = _user(build_item(spec, ITEM, "no_instruction_fenced", ladder))
    assert "BEGIN QUOTED ITEM" in text and "Answer with exactly one of" not in text
    assert text.endswith("Is it easy? yes or no.")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[spec\n", "malformed TOML"),
        ('[other]\nname = "x"\n', "needs a \\[spec\\] table"),
        ('[spec]\nname = "x"\ncolour = "red"\n', "unknown key"),
        ('[spec]\nname = "x"\n[variants.stem]\nfenced = true\n', "built-in"),
        ('[spec]\nname = "x"\n[variants.v]\nshout = true\n', "unknown key"),
        ("spec: [unclosed\n", "malformed YAML"),
        ("- just\n- a list\n", "mapping at its top level"),
    ],
)
def test_bad_spec_files(tmp_path, content, message):
    path = tmp_path / ("bad.yaml" if "YAML" in message or "mapping" in message else "bad.toml")
    path.write_text(content)
    with pytest.raises(InputError, match=message):
        load_spec_file(path)


def test_spec_file_suffix_is_checked(tmp_path):
    path = tmp_path / "spec.json"
    path.write_text("{}")
    with pytest.raises(InputError, match=r"must end in \.toml, \.yaml, \.yml"):
        load_spec_file(path)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            '[spec]\nname = "x"\noptions = 5\n',
            r"field 'spec.options': Input should be a valid list",
        ),
        ('[spec]\nname = "x"\noptions = "yes"\n', r"field 'spec.options': Input should be a valid"),
        ("[spec]\nname = 3\n", r"field 'spec.name': Input should be a valid string"),
        ('[spec]\nname = "x"\n[variants.v]\nfenced = "yes"\n', r"variants.v.fenced"),
        ('[spec]\nname = "x"\nvariants = ["a", "b"]\n', r"spec.variants.*unknown key"),
        ('variants = ["a"]\n[spec]\nname = "x"\n', r"field 'variants': must be a table"),
        ('[spec]\nname = "x"\nuser_template = "{note.__class__}"\n', r"\{note.__class__\}"),
        ('[spec]\nname = "x"\nuser_template = "{item[0]} {note}"\n', r"\{item\[0\]\} is not"),
        ('[spec]\nname = "x"\nuser_template = "{question}"\n', r"\{question\} is not allowed"),
        ('[spec]\nname = "x"\nuser_template = "{note!r}"\n', r"\{note!r\} is not allowed"),
        ('[spec]\nname = "x"\nuser_template = "{note"\n', r"malformed template"),
        ('[spec]\nname = "x"\n[variants.v]\nitem_instruction = "{0}"\n', r"\{0\} is not allowed"),
        ('[spec]\nname = "x"\n[other]\na = 1\n', r"unknown top-level key"),
    ],
)
def test_spec_file_types_and_template_fields_are_checked(tmp_path, content, message):
    path = tmp_path / "spec.toml"
    path.write_text(content)
    with pytest.raises(InputError, match=message):
        load_spec_file(path)


def test_literal_braces_and_allowed_fields_pass(tmp_path):
    path = tmp_path / "spec.yaml"
    path.write_text(
        'spec:\n  name: braces\n  user_template: "{item} as JSON: {{\\"note\\": {note}}}"\n'
        '  options: ["yes", "no"]\n'
    )
    spec, _ = load_spec_file(path)
    text = _user(build_item(spec, ITEM, "production"))
    assert text.endswith('as JSON: {"note": Apples grow on trees.}')


def test_t1_rungs_replace_the_whole_user_turn():
    ladder = {**LADDER, **FORECAST_RUNGS}
    t1, t1_stem = (build_item(FORECAST, ITEM, v, ladder) for v in ("t1", "t1_stem"))
    text = _user(t1)
    assert text.startswith("Someone read a passage and wrote the short note below. Imagine 100")
    assert "\n\nNote: Apples grow on trees.\n\nQuestion:\nWhich is a fruit?\nA: apple\n" in text
    assert "Answer with exactly one of: A, B.\n\nEstimate how many of these 100 readers" in text
    assert text.endswith("Reply with exactly one of these values and nothing else.")
    assert "Out of 100 such readers" not in text
    assert t1.stem is None and t1_stem.stem == "Estimate: " and _user(t1_stem) == text
    assert t1.options == FORECAST.options and t1.metadata["variant"] == "t1"
    assert BUILTIN_RUNGS == {"forecast": FORECAST_RUNGS, "answer": {}}
