"""Every input file format refuses a key written twice, naming the key (and its line if known)."""

from __future__ import annotations

from pathlib import Path

import pytest

from readout_audit import InputError
from readout_audit.data._logic import load_logic_llm, load_proofwriter_jsonl
from readout_audit.data._yesno import load_pope
from readout_audit.judge import load_drop_json
from readout_audit.model import read_conformance
from readout_audit.prompt._spec_file import load_spec_file


def _refused(path: Path, content: str, load, key: str, line: int | None) -> None:
    path.write_text(content)
    with pytest.raises(InputError, match=f"field '{key}': appears twice") as caught:
        load(path)
    assert caught.value.line == line


def test_a_pope_question_file(tmp_path):
    row = '{"question_id": 1, "image": "a.jpg", "text": "Q?", "label": "yes", "label": "no"}'
    _refused(tmp_path / "coco_pope_random.json", row + "\n", load_pope, "label", 1)


def test_logic_llm_json_and_proofwriter_json_lines(tmp_path):
    item = '{"id": "P_Q1", "context": "c", "question": "q", "options": [], "answer": "A"}'
    twice = item.replace('"answer": "A"', '"answer": "A", "answer": "B"')
    _refused(tmp_path / "dev.json", f"[\n{item},\n{twice}\n]\n", load_logic_llm, "answer", None)
    theory = '{"id": "T", "theory": "t", "questions": {"Q1": {}, "Q1": {}}}'
    _refused(tmp_path / "meta.jsonl", theory + "\n", load_proofwriter_jsonl, "Q1", 1)


def test_a_drop_json_array(tmp_path):
    rows = '[{"query_id": "q", "query_id": "r"}]'
    _refused(tmp_path / "drop.json", rows, load_drop_json, "query_id", None)


def test_a_conformance_file(tmp_path):
    _refused(
        tmp_path / "conformance.json",
        '{"model": "a", "model": "b"}',
        read_conformance,
        "model",
        None,
    )


@pytest.mark.parametrize(
    ("content", "key", "line"),
    [
        ("spec:\n  name: a\n  name: b\n", "name", 3),
        ("spec:\n  name: a\nvariants:\n  v:\n    fenced: true\n  v:\n    stem: X\n", "v", 6),
        ("spec:\n  name: a\nspec:\n  name: b\n", "spec", 3),
    ],
)
def test_a_yaml_spec_file(tmp_path, content, key, line):
    _refused(tmp_path / "spec.yaml", content, load_spec_file, key, line)


def test_a_yaml_merge_key_may_still_be_overridden(tmp_path):
    path = tmp_path / "spec.yml"
    path.write_text(
        "spec:\n  name: a\nvariants:\n  v: &v\n    fenced: true\n"
        "  w:\n    <<: *v\n    fenced: false\n"
    )
    _, variants = load_spec_file(path)
    assert {"v", "w"} <= set(variants)


def test_a_toml_spec_file_refuses_a_repeated_key_as_before(tmp_path):
    path = tmp_path / "spec.toml"
    path.write_text('[spec]\nname = "a"\nname = "b"\n')
    with pytest.raises(InputError, match="malformed TOML"):
        load_spec_file(path)
