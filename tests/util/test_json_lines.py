"""The one JSON-lines reader and writer: newline framing only, cut lines, terminal-safe text."""

from __future__ import annotations

import json

import pytest

from readout_audit import InputError, load_items
from readout_audit._util._jsonl import (
    JsonlAppender,
    dumps_line,
    iter_values,
    read_lines,
    split_lines,
    write_text_atomic,
)
from readout_audit._util._text import terminal_safe

SEPARATORS = "a\u2028b\u2029c\u0085d\x0ce\x1cf"


def test_lines_split_on_newline_only_and_separators_are_escaped(tmp_path):
    line = dumps_line({"text": SEPARATORS})
    assert "\u2028" not in line and "\u2029" not in line and "\u0085" not in line
    assert json.loads(line)["text"] == SEPARATORS
    assert SEPARATORS.splitlines() != [SEPARATORS]  # what str.splitlines would have done
    assert split_lines(f"{SEPARATORS}\r\nnext\n") == [SEPARATORS, "next"]
    path = tmp_path / "values.jsonl"
    writer = JsonlAppender(path)
    writer.write({"text": SEPARATORS})
    writer.write_text(json.dumps({"raw": "\u2028"}, ensure_ascii=False))  # escaped on the way
    writer.close()
    assert "\u2028" not in path.read_text(encoding="utf-8")
    assert [v for _, v in iter_values(path, append_only=True)] == [
        {"text": SEPARATORS},
        {"raw": "\u2028"},
    ]


def test_a_cut_last_line_is_reported_and_dropped_before_appending(tmp_path):
    path = tmp_path / "records.jsonl"
    path.write_bytes(b'{"a": 1}\n{"a": 2}\n{"a": 3, "b": "unfin')
    read = read_lines(path, append_only=True)
    assert [n for n, _ in read.lines] == [1, 2] and read.cut == '{"a": 3, "b": "unfin'
    assert read.complete_bytes == len(b'{"a": 1}\n{"a": 2}\n')
    as_items = read_lines(path)  # in an item file an unterminated last line is a line
    assert len(as_items.lines) == 3 and as_items.cut is None
    writer = JsonlAppender(path)
    writer.write({"a": 3})
    writer.close()
    assert path.read_bytes() == b'{"a": 1}\n{"a": 2}\n{"a": 3}\n'


def test_an_item_file_with_a_raw_line_separator_loads(tmp_path):
    path = tmp_path / "items.jsonl"
    raw = '{"id": "sep", "prompt": "one\u2028two\u0085three", "options": [" x", " y"]}'
    path.write_text(raw + "\n" + '{"id": "b", "prompt": "p", "options": [" z"]}', encoding="utf-8")
    items = load_items(path)
    assert [i.id for i in items] == ["sep", "b"]
    assert items[0].prompt == "one\u2028two\u0085three"


def test_a_malformed_line_names_file_and_line(tmp_path):
    path = tmp_path / "items.jsonl"
    path.write_text('{"id": "a", "prompt": "p", "options": [" x"]}\n{"id": \n')
    with pytest.raises(InputError, match=r"items.jsonl:2: malformed JSON"):
        load_items(path)


WORDS = "café 漢字 مرحبا \U0001f469\u200d\U0001f4bb"
"""Accents, CJK, Arabic letters, an emoji with a zero-width joiner: all shown as they are."""


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("\x1b[31mred\x1b[0m", "red"),
        ("\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"),
        ("\x1b]0;title\x07after", "after"),
        ("bell\x07 and \x9b2Jclear", "bell\ufffd and clear"),
        ("[/bold] [red]x[/red]", "[/bold] [red]x[/red]"),
        ("tab\tand\nnewline", "tab\tand\nnewline"),
        ("nul\x00del\x7f", "nul\ufffddel\ufffd"),
        ("pay\u202efdp.exe", "pay<U+202E>fdp.exe"),
        ("\u2066\u2067\u2068\u2069", "<U+2066><U+2067><U+2068><U+2069>"),
        ("\u202a\u202b\u202c\u202d", "<U+202A><U+202B><U+202C><U+202D>"),
        ("\u200e\u200f\u061c", "<U+200E><U+200F><U+061C>"),
        (WORDS, WORDS),
    ],
)
def test_terminal_safe_text_keeps_words_and_drops_sequences(raw, shown):
    assert terminal_safe(raw) == shown


def test_an_atomic_write_leaves_every_other_file_alone(tmp_path):
    """The temporary file is new each time: a file named like the old fixed one is kept."""
    target, bystander = tmp_path / "report.html", tmp_path / "report.html.tmp"
    bystander.write_text("someone else's")
    write_text_atomic(target, "first")
    write_text_atomic(target, "second")
    assert target.read_text() == "second" and bystander.read_text() == "someone else's"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html", "report.html.tmp"]
