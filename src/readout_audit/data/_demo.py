"""Built-in demo items, written by this project, that show each readout failure on a real model."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from readout_audit._util import split_lines
from readout_audit.data._item import Item
from readout_audit.data._jsonl import parse_items


def demo_items_path() -> Path:
    """Path of the packaged demo items file."""
    return Path(str(resources.files("readout_audit.data") / "demo" / "items.jsonl"))


def demo_items() -> list[Item]:
    """The demo items: quoted-item forecast with and without a stem, letters, yes/no, raw text."""
    path = demo_items_path()
    return parse_items(split_lines(path.read_text(encoding="utf-8")), source=path.name)
