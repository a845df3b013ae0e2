"""ANLI loaders: the hub's layout (a local copy) and the original release's JSON lines."""

from __future__ import annotations

import json

import pytest

from readout_audit import InputError
from readout_audit.data import load_anli_hf, load_anli_jsonl

PREMISE = "The Tiber flows through Rome. It is the third-longest river in Italy."
ROWS = {  # written for these tests in ANLI's fields
    "dev_r1": [
        ("r1-a", PREMISE, "The Tiber flows through Italy.", 0, "Rome is in Italy."),
        ("r1-b", PREMISE, "The Tiber is the longest river in Italy.", 2, ""),
        ("r1-c", "Ada wrote the first program.", "Ada owned a cat.", 1, "Not stated."),
    ],
    "dev_r2": [("r2-a", "Bo is tall.", "Bo is short.", 2, "Tall is not short.")],
}


@pytest.fixture(scope="module")
def hub_copy(tmp_path_factory):
    """A folder laid out as the hub's facebook/anli: one parquet file per round's split."""
    from datasets import Dataset

    root = tmp_path_factory.mktemp("anli")
    (root / "plain_text").mkdir()
    splits = []
    for split, rows in ROWS.items():
        columns = ("uid", "premise", "hypothesis", "label", "reason")
        table = {column: [row[i] for row in rows] for i, column in enumerate(columns)}
        Dataset.from_dict(table).to_parquet(root / "plain_text" / f"{split}-00000-of-00001.parquet")
        splits.append(f"  - split: {split}\n    path: plain_text/{split}-*\n")
    (root / "README.md").write_text(
        "---\nconfigs:\n- config_name: plain_text\n  data_files:\n" + "".join(splits) + "---\n"
    )
    return root


def test_hub_layout_maps_labels_and_clusters_by_premise(hub_copy):
    items = load_anli_hf(str(hub_copy))
    assert [(i.id, i.label) for i in items] == [
        ("r1-a", "true"),
        ("r1-b", "false"),
        ("r1-c", "unknown"),
    ]
    first, second, third = items
    assert (first.context, first.statement) == (PREMISE, "The Tiber flows through Italy.")
    assert first.cluster == second.cluster != third.cluster
    assert first.metadata == {"reason": "Rome is in Italy."} and second.metadata == {}
    assert [i.id for i in load_anli_hf(str(hub_copy), split="dev_r2")] == ["r2-a"]


def test_original_jsonl_gives_the_same_items(hub_copy, tmp_path):
    path = tmp_path / "dev.jsonl"
    letters = {0: "e", 1: "n", 2: "c"}
    path.write_text(
        "".join(
            json.dumps(
                {"uid": u, "context": p, "hypothesis": h, "label": letters[y], "reason": r}
                | {"model_label": "c", "emturk": False, "genre": "wiki", "tag": ""}
            )
            + "\n"
            for u, p, h, y, r in ROWS["dev_r1"]
        )
    )
    from_file = load_anli_jsonl(path)
    from_hub = load_anli_hf(str(hub_copy))
    assert [i.model_dump() for i in from_file] == [i.model_dump() for i in from_hub]


def test_hub_rows_as_json_lines_load_too(tmp_path):
    path = tmp_path / "rows.jsonl"
    row = {"uid": "x", "premise": "Bo is tall.", "hypothesis": "Bo is short.", "label": 2}
    path.write_text(json.dumps(row) + "\n")
    (item,) = load_anli_jsonl(path)
    assert (item.id, item.context, item.label) == ("x", "Bo is tall.", "false")


@pytest.mark.parametrize(
    ("change", "item_id", "field", "message"),
    [
        ({"label": "x"}, "x", "label", "'x' is not 0, 1, 2"),
        ({"label": 3}, "x", "label", "3 is not 0, 1, 2"),
        ({"label": True}, "x", "label", "True is not"),
        ({"hypothesis": ""}, "x", "hypothesis", "non-empty text"),
        ({"premise": None}, "x", "premise", "non-empty text"),
        ({"uid": 7}, None, "uid", "7 is not a non-empty id"),
    ],
)
def test_bad_rows_name_line_item_and_field(tmp_path, change, item_id, field, message):
    path = tmp_path / "bad.jsonl"
    row = {"uid": "x", "premise": "Bo is tall.", "hypothesis": "Bo is short.", "label": 2}
    path.write_text("\n" + json.dumps(row | change) + "\n")
    with pytest.raises(InputError, match=message) as caught:
        load_anli_jsonl(path)
    assert (caught.value.source, caught.value.item_id, caught.value.field) == (
        f"{path}:2",
        item_id,
        field,
    )


def test_a_repeated_uid_is_an_error(tmp_path):
    path = tmp_path / "twice.jsonl"
    row = {"uid": "x", "premise": "Bo is tall.", "hypothesis": "Bo is short.", "label": "c"}
    path.write_text(json.dumps(row) + "\n" + json.dumps(row) + "\n")
    with pytest.raises(InputError, match="appears twice") as caught:
        load_anli_jsonl(path)
    assert (caught.value.item_id, caught.value.field) == ("x", "id")


def test_missing_split_offline_names_the_dataset(hub_copy):
    with pytest.raises(InputError, match="split 'test_r9'") as caught:
        load_anli_hf(str(hub_copy), split="test_r9")
    assert caught.value.source == str(hub_copy)
