"""Multiple-choice loaders: MMLU's CSV layout and MMLU as a Hugging Face dataset (local copy)."""

from __future__ import annotations

import pytest

from readout_audit import InputError
from readout_audit.data import load_mmlu_csv, load_mmlu_hf

ROWS = {
    "geography": [
        ("Which river is the longest?", ["Nile", "Thames", "Seine", "Rhine"], 0),
        ("Which is a desert?", ["Alps", "Sahara", "Andes", "Urals"], 1),
    ],
    "astronomy": [("Which is a planet?", ["Sun", "Moon", "Mars", "Vega"], 2)],
}


@pytest.fixture(scope="module")
def hub_copy(tmp_path_factory):
    """A folder laid out as the hub's cais/mmlu: one parquet file per subset, configs in README."""
    from datasets import Dataset

    root = tmp_path_factory.mktemp("mmlu")
    configs = []
    everything = []
    for subject, rows in ROWS.items():
        table = {
            "question": [q for q, _, _ in rows],
            "subject": [subject] * len(rows),
            "choices": [c for _, c, _ in rows],
            "answer": [a for _, _, a in rows],
        }
        everything += [
            dict(zip(table, values, strict=True)) for values in zip(*table.values(), strict=True)
        ]
        (root / subject).mkdir()
        Dataset.from_dict(table).to_parquet(root / subject / "test-00000-of-00001.parquet")
        configs.append(
            f"- config_name: {subject}\n  data_files:\n  - split: test\n"
            f"    path: {subject}/test-*\n"
        )
    (root / "all").mkdir()
    Dataset.from_list(everything).to_parquet(root / "all" / "test-00000-of-00001.parquet")
    configs.append("- config_name: all\n  data_files:\n  - split: test\n    path: all/test-*\n")
    (root / "README.md").write_text("---\nconfigs:\n" + "".join(configs) + "---\n")
    return root


def test_hub_layout_loads_one_subset(hub_copy):
    items = load_mmlu_hf(str(hub_copy), "geography")
    assert [i.id for i in items] == ["geography_test/1", "geography_test/2"]
    assert items[1].choices == ("Alps", "Sahara", "Andes", "Urals") and items[1].answer == "B"
    assert items[0].cluster == "geography" and items[0].metadata == {"subject": "geography"}


def test_hub_all_subset_keeps_each_rows_subject(hub_copy):
    items = load_mmlu_hf(str(hub_copy), "all")
    assert [(i.id, i.answer) for i in items] == [
        ("geography_test/1", "A"),
        ("geography_test/2", "B"),
        ("astronomy_test/1", "C"),
    ]


def test_hub_and_csv_layouts_give_the_same_items(hub_copy, tmp_path):
    rows = ROWS["geography"]
    (tmp_path / "geography_test.csv").write_text(
        "".join(f'"{q}",{",".join(c)},{"ABCD"[a]}\n' for q, c, a in rows)
    )
    from_csv = load_mmlu_csv(tmp_path / "geography_test.csv")
    from_hub = load_mmlu_hf(str(hub_copy), "geography")
    assert [i.model_dump() for i in from_csv] == [i.model_dump() for i in from_hub]


def test_missing_dataset_offline_names_the_dataset(tmp_path):
    with pytest.raises(InputError, match="offline: pass --allow-download") as caught:
        load_mmlu_hf("no-such-owner/no-such-dataset", "geography", revision="0" * 40)
    assert caught.value.source == "no-such-owner/no-such-dataset"


def test_missing_subset_is_an_input_error(hub_copy):
    with pytest.raises(InputError, match="subset 'botany'"):
        load_mmlu_hf(str(hub_copy), "botany")


def test_cli_hf_source_defaults_to_the_all_subset_and_the_test_split(hub_copy):
    from readout_audit.data import load_mc_source

    assert [i.id for i in load_mc_source(f"hf:{hub_copy}")] == [
        "geography_test/1",
        "geography_test/2",
        "astronomy_test/1",
    ]
    assert len(load_mc_source(f"hf:{hub_copy}", "geography", "test")) == 2


def test_mmlu_pro_rows_are_lettered_to_their_last_option(tmp_path):
    """MMLU-Pro's layout (the paper's D1): ``options`` of varying length, a letter answer."""
    from datasets import Dataset

    ten = [f"option {n}" for n in range(10)]
    table = {
        "question_id": [70, 71],
        "question": ["Which is tenth?", "Which is third?"],
        "options": [ten, ten[:7]],
        "answer": ["J", "C"],
        "answer_index": [9, 2],
        "category": ["business", "law"],
    }
    (tmp_path / "data").mkdir()
    Dataset.from_dict(table).to_parquet(tmp_path / "data" / "test-00000-of-00001.parquet")
    (tmp_path / "README.md").write_text(
        "---\nconfigs:\n- config_name: default\n  data_files:\n  - split: test\n"
        "    path: data/test-*\n---\n"
    )
    items = load_mmlu_hf(str(tmp_path), "default")
    assert [(i.id, i.answer, len(i.choices), i.cluster) for i in items] == [
        ("business_test/1", "J", 10, "business"),
        ("law_test/1", "C", 7, "law"),
    ]
    assert items[0].letters == tuple("ABCDEFGHIJ") and items[1].letters == tuple("ABCDEFG")


def test_a_folder_of_one_subjects_dev_and_test_files_gives_distinct_ids(tmp_path):
    """``geo_dev.csv`` and ``geo_test.csv`` once both gave ``geo/1``: ids name their file."""
    for split in ("dev", "test"):
        (tmp_path / f"geo_{split}.csv").write_text(
            "".join(f'"{split} {q}",{",".join(c)},{"ABCD"[a]}\n' for q, c, a in ROWS["geography"])
        )
    items = load_mmlu_csv(tmp_path)
    assert [i.id for i in items] == ["geo_dev/1", "geo_dev/2", "geo_test/1", "geo_test/2"]
    assert {i.cluster for i in items} == {"geo"}
    assert items[2].question.startswith("test ")
