"""Image paths stay inside the image folder: no ``../``, absolute path or link out of it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from PIL import Image

from readout_audit import InputError
from readout_audit.data._yesno import load_pope, load_yesno_items


def _jpeg(path: Path) -> Path:
    Image.new("RGB", (4, 4), "red").save(path, format="JPEG")
    return path


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """An image folder holding one real JPEG, beside a real JPEG outside it."""
    images = tmp_path / "images"
    images.mkdir()
    _jpeg(images / "inside.jpg")
    _jpeg(tmp_path / "outside.jpg")
    return images


def _pope(tmp_path: Path, image: str) -> Path:
    path = tmp_path / "coco_pope_random.json"
    row = {"question_id": 1, "image": "inside.jpg", "text": "Is it red?", "label": "yes"}
    path.write_text(json.dumps(row) + "\n" + json.dumps({**row, "question_id": 2, "image": image}))
    return path


@pytest.mark.parametrize("image", ["../outside.jpg", "sub/../../outside.jpg", "ABSOLUTE"])
def test_an_image_outside_the_folder_is_refused_naming_the_item(tmp_path, folder, image):
    image = str(tmp_path / "outside.jpg") if image == "ABSOLUTE" else image
    with pytest.raises(InputError, match="is outside the image folder") as caught:
        load_pope(_pope(tmp_path, image), folder)
    assert (caught.value.item_id, caught.value.field, caught.value.line) == ("2", "image", 2)


def test_a_link_inside_the_folder_to_a_file_outside_is_refused(tmp_path, folder):
    os.symlink(tmp_path / "outside.jpg", folder / "link.jpg")
    with pytest.raises(InputError, match=r"'link\.jpg' is outside the image folder") as caught:
        load_pope(_pope(tmp_path, "link.jpg"), folder)
    assert caught.value.field == "image"


def test_names_links_and_absolute_paths_that_stay_inside_are_read(tmp_path, folder):
    os.symlink(folder / "inside.jpg", folder / "alias.jpg")
    for image in ("alias.jpg", str(folder / "inside.jpg"), "./sub/../inside.jpg"):
        (folder / "sub").mkdir(exist_ok=True)
        assert load_pope(_pope(tmp_path, image), folder)[1].image == str(folder / image)


def test_jsonl_items_are_checked_the_same_way(tmp_path, folder):
    path = tmp_path / "yn.jsonl"
    row = {"id": "a", "question": "Is it red?", "label": "yes", "image": "../outside.jpg"}
    path.write_text(json.dumps(row) + "\n")
    with pytest.raises(InputError, match="outside the image folder") as caught:
        load_yesno_items(path, folder)
    assert (caught.value.item_id, caught.value.field) == ("a", "image")
