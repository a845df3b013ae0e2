"""GSM8K and DROP as judge sources: files, hub copies, references and located errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from readout_audit import InputError
from readout_audit.judge import load_bank, load_drop_json, load_gsm8k_jsonl
from readout_audit.judge.inventory import (
    load_drop_hf,
    load_gsm8k_hf,
    normalise_question,
    parse_number,
)

FIXTURES = Path(__file__).parent.parent / "fixtures" / "judge"
GSM8K = FIXTURES / "gsm8k_test_head.jsonl"
DROP = FIXTURES / "drop_rows.jsonl"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("14", 14.0),
        (" 1,600 ", 1600.0),
        ("-4", -4.0),
        ("87.5", 87.5),
        (".5", 0.5),
        ("1,250.75", 1250.75),
        ("14 points", None),
        ("1/2", None),
        ("1e3", None),
        ("inf", None),
        ("nan", None),
        ("12,34", None),
        ("", None),
    ],
)
def test_parse_number(text, value):
    assert parse_number(text) == value


def test_normalise_question():
    assert normalise_question("How many points did the Lions win by?") == (
        "how many points did the lions win by"
    )
    assert normalise_question("how  many POINTS did the Lions' win_by") == (
        "how many points did the lions win by"
    )
    assert normalise_question("Janet’s ducks") == "janet s ducks"


def test_gsm8k_file_gives_one_reference_and_the_solution_as_evidence():
    bank = load_gsm8k_jsonl(GSM8K)
    assert (bank.dataset, bank.rows, len(bank.sources), bank.skipped) == ("gsm8k", 12, 12, {})
    first = bank.sources[0]
    assert first.id == first.cluster == "gsm8k:0"
    assert first.question.startswith("Janet’s ducks lay 16 eggs per day.")
    assert first.references == (18.0,)
    assert first.evidence == (
        "Janet sells 16 - 3 - 4 = <<16-3-4=9>>9 duck eggs a day.\n"
        "She makes 9 * 2 = $<<9*2=18>>18 every day at the farmer’s market."
    )
    assert [s.references[0] for s in bank.sources] == [
        18, 3, 70000, 540, 20, 64, 260, 160, 45, 460, 366, 694,
    ]  # fmt: skip
    assert bank.sources[11].id == "gsm8k:11"


def test_gsm8k_final_line_with_commas_reads(tmp_path):
    path = tmp_path / "gsm8k.jsonl"
    path.write_text(json.dumps({"question": "How much?", "answer": "It is 1,600.\n#### 1,600"}))
    (source,) = load_gsm8k_jsonl(path).sources
    assert source.references == (1600.0,) and source.evidence == "It is 1,600."


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ("So 5.\n#### five", "'#### five' does not state a finite number"),
        ("So it grows.\n#### inf", "'#### inf' does not state a finite number"),
        ("So nothing.\n#### nan", "'#### nan' does not state a finite number"),
        ("#### ", "'####' does not state a finite number"),
        ("The answer is 5.", "must end in a line '#### N'"),
        ("", "must be non-empty text"),
        (7, "must be non-empty text"),
    ],
)
def test_gsm8k_bad_answers_are_located(tmp_path, answer, message):
    path = tmp_path / "bad.jsonl"
    good = {"question": "Q?", "answer": "So 5.\n#### 5"}
    path.write_text(json.dumps(good) + "\n" + json.dumps({"question": "Q2?", "answer": answer}))
    with pytest.raises(InputError, match=message) as caught:
        load_gsm8k_jsonl(path)
    error = caught.value
    assert (error.source, error.line, error.item_id, error.field) == (
        str(path),
        2,
        "gsm8k:1",
        "answer",
    )


def test_drop_admits_one_finite_scalar_number_and_counts_the_rest_by_reason():
    bank = load_drop_json(DROP)
    assert (bank.rows, len(bank.sources)) == (13, 9)
    assert bank.skipped == {
        "date_reference": 1,  # "1848", typed date
        "no_numeric_reference": 2,  # "the battle", "Smith"
        "several_numeric_references": 1,  # "2" and "3": a multi-span answer
    }
    by_id = {s.id: s for s in bank.sources}
    assert {i: s.references for i, s in by_id.items()} == {
        "drop:q-nfl1-margin": (14.0,),
        "drop:q-nfl1-fg": (52.0,),
        "drop:q-nfl2-count": (3.0,),  # "3" twice: one distinct number
        "drop:q-hist3-growth": (1250.0,),  # "1,250"
        "drop:q-census4-pct": (87.5,),
        "drop:q-weather6-low": (-4.0,),
        "drop:q-nfl8-margin": (14.0,),  # "14 points" states no number; "14" is typed number
        "drop:q-nfl10-td": (3.0,),
        "drop:q-census11-households": (3150.0,),
    }
    margin = by_id["drop:q-nfl1-margin"]
    assert (margin.dataset, margin.cluster) == ("drop", "nfl_1")
    assert margin.evidence.startswith("The Lions beat the Bears 24-10.")
    assert margin.normalised_question == by_id["drop:q-nfl8-margin"].normalised_question
    # dates only behind the option; a number in a span of another type never
    dated = load_drop_json(DROP, dates=True)
    assert dated.skipped.get("date_reference") is None and len(dated.sources) == 10
    assert {s.id: s.references for s in dated.sources}["drop:q-hist3-year"] == (1848.0,)
    assert load_bank(DROP, "drop") == bank and load_bank(DROP, "drop", dates=True) == dated


def test_a_number_typed_as_a_span_is_not_a_number_reference(tmp_path):
    row = {
        "section_id": "s",
        "query_id": "q",
        "passage": "p",
        "question": "How many?",
        "answers_spans": {"spans": ["7"], "types": ["span"]},
    }
    path = tmp_path / "drop.jsonl"
    path.write_text(json.dumps(row) + "\n")
    assert load_drop_json(path).skipped == {"not_a_number_type": 1}
    row["answers_spans"]["types"] = ["number", "number"]
    path.write_text(json.dumps(row) + "\n")
    with pytest.raises(InputError, match="one type per span"):
        load_drop_json(path)


def test_drop_as_a_json_array_reads_the_same(tmp_path):
    rows = [json.loads(line) for line in DROP.read_text().splitlines()]
    path = tmp_path / "drop.json"
    path.write_text(json.dumps(rows, indent=1))
    assert load_drop_json(path) == load_drop_json(DROP)


@pytest.mark.parametrize(
    ("change", "item_id", "field", "message"),
    [
        ({"answers_spans": {"spans": "14"}}, "drop:q", "answers_spans.spans", "list of texts"),
        ({"answers_spans": None}, "drop:q", "answers_spans.spans", "list of texts"),
        ({"query_id": ""}, None, "query_id", "non-empty text"),
        ({"section_id": 3}, "drop:q", "section_id", "non-empty text"),
        ({"passage": " "}, "drop:q", "passage", "non-empty text"),
    ],
)
def test_drop_bad_rows_are_located(tmp_path, change, item_id, field, message):
    row = {
        "section_id": "s",
        "query_id": "q",
        "passage": "P.",
        "question": "How many?",
        "answers_spans": {"spans": ["14"], "types": ["number"]},
    }
    path = tmp_path / "bad.jsonl"
    path.write_text("\n" + json.dumps(row | change) + "\n")
    with pytest.raises(InputError, match=message) as caught:
        load_drop_json(path)
    error = caught.value
    assert (error.source, error.line, error.item_id, error.field) == (str(path), 2, item_id, field)


def test_drop_array_entries_are_located_by_index(tmp_path):
    path = tmp_path / "drop.json"
    path.write_text(json.dumps([{"query_id": "a"}, 5]))
    with pytest.raises(InputError, match="must be a list of texts") as caught:
        load_drop_json(path)
    assert (caught.value.source, caught.value.field) == (f"{path}[0]", "answers_spans.spans")
    path.write_text(json.dumps([json.loads(DROP.read_text().splitlines()[0]), 5]))
    with pytest.raises(InputError, match="expected a JSON object, got int") as caught:
        load_drop_json(path)
    assert caught.value.source == f"{path}[1]"


def test_a_repeated_query_id_and_a_missing_file_are_errors(tmp_path):
    path = tmp_path / "twice.jsonl"
    line = DROP.read_text().splitlines()[0]
    path.write_text(f"{line}\n{line}\n")
    with pytest.raises(InputError, match="appears twice") as caught:
        load_drop_json(path)
    assert (caught.value.line, caught.value.item_id) == (2, "drop:q-nfl1-margin")
    with pytest.raises(InputError, match="file not found"):
        load_gsm8k_jsonl(tmp_path / "absent.jsonl")


def _hub_folder(root: Path, config: str, split: str, table: dict) -> Path:
    """A folder laid out as a hub dataset: one parquet file for one configuration's split."""
    from datasets import Dataset

    (root / config).mkdir(parents=True)
    Dataset.from_dict(table).to_parquet(root / config / f"{split}-00000-of-00001.parquet")
    (root / "README.md").write_text(
        f"---\nconfigs:\n- config_name: {config}\n  data_files:\n"
        f"  - split: {split}\n    path: {config}/{split}-*\n---\n"
    )
    return root


def test_hub_copies_give_the_same_sources_as_the_files(tmp_path):
    gsm8k_rows = [json.loads(line) for line in GSM8K.read_text().splitlines()]
    gsm8k = _hub_folder(
        tmp_path / "gsm8k",
        "main",
        "test",
        {key: [row[key] for row in gsm8k_rows] for key in ("question", "answer")},
    )
    assert load_gsm8k_hf(str(gsm8k)) == load_gsm8k_jsonl(GSM8K)
    drop_rows = [json.loads(line) for line in DROP.read_text().splitlines()]
    drop = _hub_folder(
        tmp_path / "drop",
        "default",
        "train",
        {key: [row[key] for row in drop_rows] for key in drop_rows[0]},
    )
    assert load_drop_hf(str(drop)) == load_drop_json(DROP)
    with pytest.raises(InputError, match="split 'validation'"):
        load_drop_hf(str(drop), split="validation")


def test_a_local_folder_is_read_afresh_not_from_the_cache_of_a_namesake(tmp_path):
    rows = [json.loads(line) for line in DROP.read_text().splitlines()]

    def folder(parent: str, kept: list[dict]) -> str:
        table = {key: [row[key] for row in kept] for key in kept[0]}
        return str(_hub_folder(tmp_path / parent / "drop", "default", "train", table))

    assert load_drop_hf(folder("a", rows[:4])).rows == 4
    assert load_drop_hf(folder("b", rows)).rows == len(rows)  # same folder name, other rows
