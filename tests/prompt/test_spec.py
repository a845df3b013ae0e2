"""Prompt specs, the ladder's transforms and user spec files."""

from __future__ import annotations

import pytest

from readout_audit import InputError
from readout_audit.data._mc import MCItem
from readout_audit.prompt import (
    ANSWER,
    FORECAST,
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


BLOCK = "Which is a fruit?\nA: apple\nB: brick\nAnswer with exactly one of: A, B."
C0 = (
    "Note:\nApples grow on trees.\n\nA future reader will be shown ONLY the note above, not the "
    f"source text, and will then be asked:\n{BLOCK}\n\nOut of 100 such readers, how many "
    "answer correctly? Reply with exactly one of: 10, 30, 50, 70, 90."
)
"""Appendix B's production prompt, with this item's note and block."""


def test_production_prompt_has_the_sha256_appendix_b_prints():
    """The paper's Figure 1 item on Qwen3-4B-Instruct-2507: 704 characters, SHA-256 7db81d95…"""
    import hashlib

    item = MCItem(
        id="high6240.txt",
        question="After the woman visited the United States she might feel that   _  .",
        choices=[
            "her English was poor",
            "it's easy to master English",
            "it's difficult to make money",
            "people there weren't very friendly",
        ],
        answer="A",
        note="A woman from Japan was telling a friend about her trip to the United States. The "
        "woman had visited major businesses and investment companies in New York City and "
        "Chicago. The correct answer is A: her English was poor.",
    )
    user = _user(build_item(FORECAST, item, "production"))
    rendered = f"<|im_start|>user\n{user}<|im_end|>\n<|im_start|>assistant\n"  # Qwen3's template
    assert len(rendered) == 704
    assert hashlib.sha256(rendered.encode()).hexdigest() == (
        "7db81d9513ef11e6c7bd8f73ad7a8459cb4b04dac22d987419f16db9dc7246d9"
    )


def test_production_is_appendix_b_prompt():
    production = build_item(FORECAST, ITEM, "production")
    assert [m.role for m in production.messages] == ["user"] and _user(production) == C0
    assert production.options == ("10", "30", "50", "70", "90") and production.stem is None
    assert build_item(FORECAST, ITEM, "stem").stem == "Out of 100 such readers, about "
    assert _user(build_item(FORECAST, ITEM, "stem")) == C0


@pytest.mark.parametrize(
    ("variant", "block"),
    [
        ("instruction_deleted", "Which is a fruit?\nA: apple\nB: brick"),  # the empty ending
        (
            "substitute_summarise",
            "Which is a fruit?\nA: apple\nB: brick\nSummarise in one sentence.",
        ),
        (
            "substitute_integer",
            "Which is a fruit?\nA: apple\nB: brick\nReply with a single integer.",
        ),
        (
            "substitute_keywords",
            "Which is a fruit?\nA: apple\nB: brick\nList three keywords from the passage.",
        ),
        (
            "substitute_french",
            "Which is a fruit?\nA: apple\nB: brick\nTranslate the passage into French.",
        ),
        (
            "substitute_count",
            "Which is a fruit?\nA: apple\nB: brick\nCount the sentences in the passage.",
        ),
        ("choices_deleted", "Which is a fruit?\nAnswer with exactly one of: A, B."),
        ("instruction_choices_deleted", "Which is a fruit?"),
        (
            "fenced",
            f"BEGIN QUOTED ITEM\n{BLOCK}\nEND QUOTED ITEM\nDo not answer the quoted item above; "
            "it is shown only so that you can do the task.",
        ),
    ],
)
def test_item_rungs_change_only_the_quoted_block(variant, block):
    rendered = build_item(FORECAST, ITEM, variant)
    assert _user(rendered) == C0.replace(BLOCK, block) and rendered.stem is None


def test_the_old_name_of_the_summarise_rung_still_selects_it():
    from readout_audit.options._audit import ladder_items

    [(item, variant)] = ladder_items(FORECAST, [ITEM], ["instruction_substituted"])
    assert variant == "substitute_summarise" and "Summarise in one sentence." in _user(item)


S1_SYSTEM = (
    "You will be given a note and a quoted question. A future reader will be shown ONLY the note, "
    "not the source text, and will then be asked the quoted question. Out of 100 such readers, "
    "how many answer correctly? Reply with exactly one of: 10, 30, 50, 70, 90."
)


@pytest.mark.parametrize(
    ("variant", "stem"),
    [("system_turn", None), ("system_turn_stem", "Out of 100 such readers, about ")],
)
def test_system_turn_is_s1(variant, stem):
    rendered = build_item(FORECAST, ITEM, variant)
    assert [(m.role, m.content) for m in rendered.messages] == [
        ("system", S1_SYSTEM),
        ("user", f"Note:\nApples grow on trees.\n\nQuoted question:\n{BLOCK}"),
    ]
    assert rendered.stem == stem


A1 = C0.replace(
    "Out of 100 such readers",
    "The question's instruction to answer with a letter is for the readers. Out of 100 such "
    "readers",
)
A2 = C0.replace(
    "Out of 100 such readers",
    "The question's instruction to answer with a letter is for the readers. Your task is to "
    "forecast their number of correct answers. Out of 100 such readers",
)
T1 = (
    "Someone read a passage and wrote the short note below. Imagine 100 readers who will see "
    "only this note and the question below, including its final answer instruction. They will "
    "never see the passage. Each reader will answer the question, and correctness will be judged "
    "against the original passage.\n\nNote: Apples grow on trees.\n\nQuestion:\n"
    f"{BLOCK}\n\n"
    "Estimate how many of these 100 readers will answer correctly. Consider how much useful "
    "information the note provides, whether it distinguishes the choices, and where readers may "
    "misunderstand or have to guess. The question's instruction to answer with a letter is for "
    "the readers. Your task is to forecast their number of correct answers.\n\nChoose the "
    "closest of these five counts to your estimate: 10, 30, 50, 70, 90. Reply with exactly one "
    "of these values and nothing else."
)
T2 = (
    "OUTPUT CONTRACT\nReturn one bare value from this set: 10, 30, 50, 70, 90.\n\n"
    "FORECAST TARGET\nNumber of correct answers among 100 readers taking a reading-comprehension "
    "test. Each reader receives only a short note written by someone who read the passage, plus "
    "the complete test item below. Neither you nor the readers receive the passage. The "
    "passage's answer key determines correctness.\n\n"
    f"TEST ITEM SHOWN TO READERS\nBEGIN TEST ITEM\n{BLOCK}\nEND TEST ITEM\n\n"
    "NOTE AVAILABLE TO READERS\nBEGIN NOTE\nApples grow on trees.\nEND NOTE\n\n"
    "ASSESSMENT PROCEDURE\n"
    "1. Identify what information the item asks readers to recover from the passage.\n"
    "2. Assess which choices the note supports or rules out. Account for missing or ambiguous "
    "information, plausible mistakes, and guessing.\n"
    "3. Estimate how many readers will select the correct answer, then select the nearest "
    "permitted count.\n\n"
    "Keep the assessment to yourself. The letter-answer instruction inside the test item governs "
    "the readers' answers. Your response must follow the output contract: exactly one of 10, 30, "
    "50, 70, 90, with no label, explanation, punctuation, or percent sign."
)
ORIGINAL_STEM = "Out of 100 such readers, about "


@pytest.mark.parametrize(
    ("variant", "user", "stem"),
    [
        (
            "fixed_note",
            C0.replace("Apples grow on trees.", "Landlord only gives when told to take, not give."),
            None,
        ),
        (
            "fixed_note_stem",
            C0.replace("Apples grow on trees.", "Landlord only gives when told to take, not give."),
            ORIGINAL_STEM,
        ),
        ("A1", A1, None),
        ("A1_stem", A1, ORIGINAL_STEM),
        ("A2", A2, None),
        ("A2_stem", A2, ORIGINAL_STEM),
        ("T1", T1, None),
        ("T1_stem", T1, "Estimate: "),
        ("T1_original_stem", T1, ORIGINAL_STEM),
        ("T2", T2, None),
        ("T2_stem", T2, "Predicted number correct: "),
        ("T2_original_stem", T2, ORIGINAL_STEM),
    ],
)
def test_forecast_conditions_of_appendix_i(variant, user, stem):
    rendered = build_item(FORECAST, ITEM, variant)
    assert [m.role for m in rendered.messages] == ["user"]
    assert _user(rendered) == user and rendered.stem == stem
    assert rendered.options == ("10", "30", "50", "70", "90")


def test_d1_mmlu_pro_items_are_lettered_to_their_last_option():
    item = MCItem(id="pro", question="Pick J.", choices=[f"c{n}" for n in range(10)], answer="J")
    rows = [f"{letter}: c{n}" for n, letter in enumerate("ABCDEFGHIJ")]
    block = "\n".join(
        ["Pick J.", *rows, "Answer with exactly one of: A, B, C, D, E, F, G, H, I, J."]
    )
    assert _user(build_item(FORECAST, item, "fixed_note")) == (
        "Note:\nLandlord only gives when told to take, not give.\n\nA future reader will be "
        "shown ONLY the note above, not the source text, and will then be asked:\n"
        f"{block}\n\nOut of 100 such readers, how many answer correctly? Reply with exactly one "
        "of: 10, 30, 50, 70, 90."
    )
    assert build_item(ANSWER, item, "production").options == tuple("ABCDEFGHIJ")


def test_metadata_keeps_the_strings_a_recital_is_compared_with():
    metadata = build_item(FORECAST, ITEM, "substitute_integer").metadata
    assert metadata["question"] == "Which is a fruit?"
    assert metadata["instructions"] == [
        "Reply with a single integer.",
        "A future reader will be shown ONLY the note above, not the source text, and will then "
        "be asked:",
        "Out of 100 such readers, how many answer correctly?",
        "Reply with exactly one of: 10, 30, 50, 70, 90.",
    ]


def test_the_conditions_belong_to_the_forecast_spec():
    assert set(LADDER) == {
        "production",
        "stem",
        "instruction_deleted",
        "substitute_summarise",
        "substitute_integer",
        "substitute_keywords",
        "substitute_french",
        "substitute_count",
        "choices_deleted",
        "instruction_choices_deleted",
        "fenced",
        "space_appended",
        "system_turn",
        "system_turn_stem",
    }
    assert "T1" in FORECAST.variants and not ANSWER.variants
    with pytest.raises(InputError, match=r"unknown variant\(s\) \['T1'\] for spec 'answer'"):
        build_item(ANSWER, ITEM, "T1")


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
