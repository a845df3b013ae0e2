"""Yes/no loaders: generic JSONL, POPE question files with an image folder, the demo set."""

from __future__ import annotations

import json

import pytest

from readout_audit import InputError
from readout_audit.data._yesno import demo_yesno_items, load_pope, load_yesno_items


def _pope_lines(rows):
    return "".join(
        json.dumps({"question_id": q, "image": img, "text": text, "label": label}) + "\n"
        for q, img, text, label in rows
    )


ROWS = [
    (1, "COCO_1.jpg", "Is there a snowboard in the image?", "yes"),
    (2, "COCO_1.jpg", "Is there a backpack in the image?", "no"),
    (3, "COCO_2.jpg", "Is there a person in the image?", "Yes"),
]


def test_pope_file_split_from_name_and_image_as_cluster(tmp_path):
    path = tmp_path / "coco_pope_adversarial.json"
    path.write_text(_pope_lines(ROWS))
    items = load_pope(path)
    assert [i.id for i in items] == ["1", "2", "3"]
    assert {i.split for i in items} == {"adversarial"}
    assert [i.cluster_key for i in items] == ["COCO_1.jpg", "COCO_1.jpg", "COCO_2.jpg"]
    assert items[2].label == "yes" and items[0].question.startswith("Is there a snowboard")


def test_pope_images_resolved_and_missing_ones_named(tmp_path):
    path = tmp_path / "coco_pope_random.json"
    path.write_text(_pope_lines(ROWS))
    images = tmp_path / "images"
    images.mkdir()
    (images / "COCO_1.jpg").write_bytes(b"x")
    with pytest.raises(InputError, match=r"COCO_2\.jpg not found") as caught:
        load_pope(path, images)
    assert caught.value.item_id == "3" and caught.value.field == "image"
    (images / "COCO_2.jpg").write_bytes(b"x")
    assert load_pope(path, images)[2].image == str(images / "COCO_2.jpg")


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"question_id": 1, "text": "Q?"}', "expected question_id, image, text and label"),
        ('{"question_id": 1, "image": "a.jpg", "text": "Q?", "label": "maybe"}', "label"),
        ("{not json", "malformed JSON"),
    ],
)
def test_bad_pope_lines(tmp_path, line, message):
    path = tmp_path / "coco_pope_popular.json"
    path.write_text(line + "\n")
    with pytest.raises(InputError, match=message) as caught:
        load_pope(path)
    assert caught.value.line == 1


def test_duplicate_question_ids_are_refused(tmp_path):
    path = tmp_path / "coco_pope_popular.json"
    path.write_text(_pope_lines([ROWS[0], ROWS[0]]))
    with pytest.raises(InputError, match="duplicate question_id"):
        load_pope(path)


def test_generic_jsonl_items(tmp_path):
    path = tmp_path / "yn.jsonl"
    path.write_text(
        '{"id": "a", "question": "Is ice cold?", "label": "YES", "split": "easy"}\n'
        '{"id": "b", "question": "  ", "label": "no"}\n'
    )
    with pytest.raises(InputError, match="must not be empty") as caught:
        load_yesno_items(path)
    assert (caught.value.line, caught.value.item_id, caught.value.field) == (2, "b", "question")


def test_demo_items_are_balanced_text_questions():
    items = demo_yesno_items()
    assert len(items) == 40 and all(i.image is None for i in items)
    for split in ("easy", "tricky"):
        labels = [i.label for i in items if i.split == split]
        assert labels.count("yes") == labels.count("no") == 10
