"""Items and their loaders: JSONL input and the built-in demo set."""

from readout_audit.data._demo import demo_items, demo_items_path
from readout_audit.data._item import Item, Message
from readout_audit.data._jsonl import load_items, parse_item, parse_items

__all__ = [
    "Item",
    "Message",
    "demo_items",
    "demo_items_path",
    "load_items",
    "parse_item",
    "parse_items",
]
