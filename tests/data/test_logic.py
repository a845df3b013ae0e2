"""ProofWriter and FOLIO loaders, on small files in each layout written by the tests."""

from __future__ import annotations

import json

import pytest

from readout_audit._exceptions import InputError
from readout_audit.data._logic import (
    load_folio_jsonl,
    load_logic_llm,
    load_proofwriter_jsonl,
)

ASK = "Based on the above information, is the following statement true, false, or unknown? "
LOGIC_LLM = [
    {
        "id": "ProofWriter_AttNoneg-OWA-D5-1041_Q1",
        "context": "Bob is cold. If something is cold then it is round.",
        "question": ASK + "Bob is round.",
        "options": ["A) True", "B) False", "C) Unknown"],
        "answer": "A",
    },
    {
        "id": "ProofWriter_AttNoneg-OWA-D5-1041_Q2",
        "context": "Bob is cold. If something is cold then it is round.",
        "question": ASK + "Bob is red.",
        "options": ["A) True", "B) False", "C) Unknown"],
        "answer": "C",
    },
    {
        "id": "FOLIO_dev_0",
        "context": "All cats purr.\nTom is a cat.",
        "question": ASK.replace("unknown", "uncertain") + "Tom purrs.",  # FOLIO's wording
        "options": ["A) True", "B) False", "C) Uncertain"],
        "answer": "B",
    },
]


def test_logic_llm_layout(tmp_path):
    path = tmp_path / "dev.json"
    path.write_text(json.dumps(LOGIC_LLM))
    first, second, folio = load_logic_llm(path)
    assert (first.statement, first.label, second.label, folio.label) == (
        "Bob is round.",
        "true",
        "unknown",
        "false",
    )
    assert first.cluster == second.cluster == "ProofWriter_AttNoneg-OWA-D5-1041"
    assert folio.cluster is None and folio.context == "All cats purr.\nTom is a cat."


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"answer": "D"}, "answer", "not one of the options' letters"),
        ({"question": "Is Bob round?"}, "question", "does not ask"),
        ({"options": ["A) True", "B) Maybe"]}, "options", "'Maybe' is not true"),
        ({"context": ""}, "context", "non-empty text"),
    ],
)
def test_logic_llm_errors_name_the_item_and_field(tmp_path, change, field, message):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([LOGIC_LLM[0], {**LOGIC_LLM[2], **change}]))
    with pytest.raises(InputError, match=message) as caught:
        load_logic_llm(path)
    assert caught.value.field == field and caught.value.item_id == "FOLIO_dev_0"
    assert caught.value.source == f"{path}[1]"


def test_proofwriter_original_release(tmp_path):
    theory = {
        "id": "AttNoneg-OWA-D5-1041",
        "maxD": 5,
        "theory": "Bob is cold. If something is cold then it is round.",
        "questions": {
            "Q1": {"question": "Bob is round.", "answer": True, "QDep": 1},
            "Q2": {"question": "Bob is not round.", "answer": False, "QDep": 1},
            "Q3": {"question": "Bob is red.", "answer": "Unknown", "QDep": 0},
        },
    }
    path = tmp_path / "meta-test.jsonl"
    path.write_text(json.dumps(theory) + "\n\n")
    items = load_proofwriter_jsonl(path)
    assert [(i.id, i.label, i.depth) for i in items] == [
        ("AttNoneg-OWA-D5-1041_Q1", "true", 1),
        ("AttNoneg-OWA-D5-1041_Q2", "false", 1),
        ("AttNoneg-OWA-D5-1041_Q3", "unknown", 0),
    ]
    assert {i.cluster for i in items} == {"AttNoneg-OWA-D5-1041"}
    theory["questions"]["Q1"]["answer"] = "maybe"
    path.write_text(json.dumps(theory) + "\n")
    with pytest.raises(InputError, match="'maybe' is not") as caught:
        load_proofwriter_jsonl(path)
    assert caught.value.item_id == "AttNoneg-OWA-D5-1041_Q1" and caught.value.source == f"{path}:1"


def test_folio_original_release_v1_and_v2(tmp_path):
    v1 = {
        "premises": ["All cats purr.", "Tom is a cat."],
        "conclusion": "Tom purrs.",
        "label": "True",
    }
    v2 = {
        "story_id": 7,
        "example_id": 21,
        "premises": "All cats purr.\nTom is a cat.",
        "conclusion": "Tom barks.",
        "label": "Uncertain",
    }
    path = tmp_path / "folio.jsonl"
    path.write_text(json.dumps(v1) + "\n" + json.dumps(v2) + "\n")
    first, second = load_folio_jsonl(path)
    assert first.context == second.context == "All cats purr.\nTom is a cat."
    assert (first.id, first.label, first.cluster) == ("1", "true", None)
    assert (second.id, second.label, second.cluster) == ("21", "unknown", "7")
    path.write_text(json.dumps(v2) + "\n" + json.dumps(v2) + "\n")
    with pytest.raises(InputError, match="appears twice"):
        load_folio_jsonl(path)
