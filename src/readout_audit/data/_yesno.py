"""Yes/no items: generic JSONL, POPE question files (with an image folder), the demo set."""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationInfo, field_validator

from readout_audit._exceptions import InputError
from readout_audit._util import loads_line
from readout_audit.data._item import IdentifiedItem
from readout_audit.data._jsonl import load_as, parse_as, read_lines

_POPE_SPLIT = re.compile(r"pope_([a-z]+)")


class YesNoItem(IdentifiedItem):
    """A yes/no question with its label; ``image`` makes it a vision-language item."""

    question: str
    label: Literal["yes", "no"]
    prompt: str | None = None
    """The item's own raw prompt holding the question, used verbatim instead of the chat
    template and scored at its end (e.g. LLaVA's ``USER: <image>\n{question} ASSISTANT:``)."""
    image: str | None = None
    """Image file, relative to the image folder given at load time; it (or an absolute path)
    must resolve, symlinks followed, to a file inside that folder."""
    split: str = "all"
    """Reported separately (POPE: random, popular, adversarial)."""

    @field_validator("label", mode="before")
    @classmethod
    def _label_in_any_case(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("question")
    @classmethod
    def _question_has_text(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        return value

    @field_validator("prompt")
    @classmethod
    def _prompt_holds_the_question(cls, value: str | None, info: ValidationInfo) -> str | None:
        question = info.data.get("question")
        if value is not None and question is not None and question not in value:
            raise ValueError(f"must contain the item's question {question!r} verbatim")
        return value


def _with_images(items: list[YesNoItem], images: str | Path | None) -> list[YesNoItem]:
    """Resolve image names against the folder; each must be an existing file inside it.

    Symlinks are followed before the check, so neither ``../``, an absolute path nor a link
    can make an item file read a file outside the folder it was given.
    """
    if images is None:
        return items
    folder = Path(images)
    if not folder.is_dir():
        raise InputError("image folder not found", source=str(folder))
    root = folder.resolve()
    resolved = []
    for item in items:
        if item.image is None:
            raise item.error("has no image", "image")
        path = folder / item.image
        if not path.resolve().is_relative_to(root):
            raise item.error(f"{item.image!r} is outside the image folder {folder}", "image")
        if not path.is_file():
            raise item.error(f"image file {path} not found", "image")
        resolved.append(item.model_copy(update={"image": str(path)}))
    return resolved


def load_yesno_items(path: str | Path, images: str | Path | None = None) -> list[YesNoItem]:
    """Load JSONL yes/no items: id, question, label, optional prompt, image and split.

    With ``images``, every item's image is resolved against that folder and must exist.
    """
    items = load_as(YesNoItem, path)
    return _with_images(items, images)


def load_pope(
    path: str | Path, images: str | Path | None = None, split: str | None = None
) -> list[YesNoItem]:
    """Load a POPE question file: JSON lines of ``question_id``, ``image``, ``text``, ``label``.

    The split defaults to the file name's (``coco_pope_adversarial.json`` → adversarial); the
    image is each question's cluster, since questions about one image are not independent.
    """
    path = Path(path)
    if split is None:
        found = _POPE_SPLIT.search(path.stem)
        split = found.group(1) if found else path.stem
    items = []
    seen: dict[str, int] = {}
    for number, text in enumerate(read_lines(path), start=1):
        if not text.strip():
            continue
        raw = loads_line(text, source=str(path), line=number)
        if not isinstance(raw, dict) or not {"question_id", "text", "label"} <= set(raw):
            raise InputError(
                "expected question_id, image, text and label", source=str(path), line=number
            )
        converted = {
            "id": raw["question_id"],
            "question": raw["text"],
            "label": raw["label"],
            "image": raw.get("image"),
            "split": split,
            "cluster": raw.get("image"),
        }
        item = parse_as(YesNoItem, converted, source=str(path), line=number)
        if item.id in seen:
            raise InputError(
                f"duplicate question_id (first on line {seen[item.id]})",
                source=str(path),
                line=number,
                item_id=item.id,
                field="question_id",
            )
        seen[item.id] = number
        items.append(item)
    if not items:
        raise InputError("no questions found", source=str(path))
    return _with_images(items, images)


def demo_yesno_path() -> Path:
    """Path of the packaged yes/no demo items."""
    return Path(str(resources.files("readout_audit.data") / "demo" / "yesno.jsonl"))


def demo_yesno_items() -> list[YesNoItem]:
    """Text yes/no questions written for this project, balanced between yes and no."""
    return load_yesno_items(demo_yesno_path())
