"""The RACE-H loader: the paper's grouping, word floor, shuffle and choice on a local hub copy."""

from __future__ import annotations

import hashlib
import random

import pytest
from click.testing import CliRunner

from readout_audit import InputError, read_run
from readout_audit._cli import main
from readout_audit.data import load_race


def words(name: str, count: int, sep: str = " ") -> str:
    """An article of exactly ``count`` whitespace-separated words, the first being ``name``."""
    return sep.join([name] + ["word"] * (count - 1))


ARTICLES = {
    "A": words("A", 250),
    "B": words("B", 199),  # one short of the floor: dropped
    "C": words("C", 100, "\n\n") + "  \t " + words("c", 100, "  "),  # 200 under mixed spacing
    "D": words("D", 300),
    "E": words("E", 201),
    "F": words("F", 200),
}


def row(example_id: str, article: str, question: str, answer: str = "A") -> dict:
    options = [f"{question} {letter}" for letter in "wxyz"]
    return {
        "example_id": example_id,
        "article": ARTICLES[article],
        "answer": answer,
        "question": question,
        "options": options,
    }


SPLITS = {
    "test": [
        row("high1.txt", "A", "A1?"),
        row("high1.txt", "A", "A2?", "B"),
        row("high2.txt", "B", "B1?"),
        row("high3.txt", "C", "C1?"),
    ],
    "validation": [
        row("high4.txt", "D", "D1?", "D"),
        row("high5.txt", "A", "A3?"),  # the same article as high1.txt: its third question
    ],
    "train": [
        row("high6.txt", "E", "E1?"),
        row("high6.txt", "E", "E2?", "C"),
        row("high7.txt", "C", "C2?", "B"),  # the same article as high3.txt: its second question
        row("high8.txt", "F", "F1?"),
    ],
}


def write_race(root, splits):
    """A folder laid out as the hub's ehovy/race: one parquet file per split under high/."""
    from datasets import Dataset

    (root / "high").mkdir()
    for split, rows in splits.items():
        Dataset.from_list(rows).to_parquet(root / "high" / f"{split}-00000-of-00001.parquet")
    configs = "".join(f"  - split: {split}\n    path: high/{split}-*\n" for split in splits)
    (root / "README.md").write_text(
        f"---\nconfigs:\n- config_name: high\n  data_files:\n{configs}---\n"
    )
    return root


@pytest.fixture(scope="module")
def race_copy(tmp_path_factory):
    return write_race(tmp_path_factory.mktemp("race"), SPLITS)


def test_passages_grouped_filtered_shuffled_and_one_question_chosen(race_copy):
    items = load_race(str(race_copy))
    # Kept passages in first-occurrence order (test, validation, train), questions in
    # encounter order; B (199 words) is dropped, C (200 words) and F (200) are kept.
    passages = [
        ["test/high1.txt/1", "test/high1.txt/2", "test/high1.txt/3"],
        ["test/high3.txt/1", "test/high3.txt/2"],
        ["validation/high4.txt/1"],
        ["train/high6.txt/1", "train/high6.txt/2"],
        ["train/high8.txt/1"],
    ]
    rng = random.Random(0)
    rng.shuffle(passages)
    expected = [rng.choice(questions) for questions in passages]
    assert expected == [
        "validation/high4.txt/1",
        "test/high3.txt/2",
        "test/high1.txt/2",
        "train/high8.txt/1",
        "train/high6.txt/2",
    ]
    assert [item.id for item in items] == expected


def test_a_question_from_a_later_split_belongs_to_the_first_occurrence(race_copy):
    item = load_race(str(race_copy))[1]  # C's second question, read from train's high7.txt
    assert item.question == "C2?"
    assert item.choices == ("C2? w", "C2? x", "C2? y", "C2? z") and item.answer == "B"
    assert item.passage == ARTICLES["C"]
    assert item.cluster == "test/high3.txt"
    assert item.metadata == {
        "split": "test",
        "example_id": "high3.txt",
        "md5": hashlib.md5(ARTICLES["C"].encode("utf-8")).hexdigest(),
    }


def test_limit_is_a_prefix(race_copy):
    items = load_race(str(race_copy))
    assert load_race(str(race_copy), limit=2) == items[:2]
    assert [i.id for i in load_race(str(race_copy), limit=3)] == [i.id for i in items[:3]]


def test_word_floor_and_seed_are_parameters(race_copy):
    everything = load_race(str(race_copy), min_words=0)
    assert sorted(item.cluster for item in everything) == [
        "test/high1.txt",
        "test/high2.txt",
        "test/high3.txt",
        "train/high6.txt",
        "train/high8.txt",
        "validation/high4.txt",
    ]
    assert [i.id for i in load_race(str(race_copy), seed=1)] != [
        i.id for i in load_race(str(race_copy))
    ]


def test_missing_dataset_offline_names_the_dataset():
    with pytest.raises(InputError, match="offline: pass --allow-download") as caught:
        load_race("no-such-owner/no-such-dataset")
    assert caught.value.source == "no-such-owner/no-such-dataset"


@pytest.mark.parametrize(
    ("column", "value", "message"),
    [
        ("answer", "E", "answer 'E' is not one of the choice letters A, B, C, D"),
        ("options", ["ok", " "], "every choice must have text"),
        ("question", None, "Input should be a valid string"),
        ("article", None, "expected text, got NoneType"),
        ("example_id", None, "expected text, got NoneType"),
    ],
)
def test_a_bad_row_names_its_split_row_and_column(tmp_path, column, value, message):
    splits = {split: [dict(r) for r in rows] for split, rows in SPLITS.items()}
    splits["train"][2][column] = value  # a row whose question is never chosen
    with pytest.raises(InputError, match="row 3 is not a RACE row") as caught:
        load_race(str(write_race(tmp_path, splits)))
    error = caught.value
    assert (error.source, error.line, error.field) == (f"{tmp_path}:high/train", 3, column)
    assert error.message.endswith(message)


@pytest.mark.model
def test_audit_options_reads_race_items(race_copy, tmp_path):
    out = tmp_path / "run"
    arguments = ["audit", "options", "--items", f"race:{race_copy}", "--out", str(out)]
    result = CliRunner().invoke(
        main,
        [*arguments, "--limit", "2", "--spec", "answer", "--variants", "production"],
    )
    assert result.exit_code == 0, result.output
    # the first two of the shuffled list (records come in the order they were scored)
    assert {r.item_id for r in read_run(out).records} == {
        "validation/high4.txt/1",
        "test/high3.txt/2",
    }
    bad = CliRunner().invoke(main, [*arguments, "--split", "test"])
    assert bad.exit_code == 1 and "does not apply to race:" in bad.output
