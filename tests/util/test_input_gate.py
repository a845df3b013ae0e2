"""The input gate: what is not a regular file is refused unread; parsed documents are bounded."""

from __future__ import annotations

import os
import tomllib

import pytest
import yaml

from readout_audit import InputError
from readout_audit._util._input import (
    INT_MAX,
    MAX_NESTING,
    BoundsError,
    bounded,
    check_regular,
    parse_bounded,
    read_input_bytes,
    read_input_text,
)
from readout_audit._util._jsonl import decode_json, read_lines


@pytest.fixture
def specials(tmp_path):
    """A folder, a symbolic-link loop, a link to /dev/zero and a FIFO, each named like data."""
    folder = tmp_path / "folder.jsonl"
    folder.mkdir()
    loop = tmp_path / "loop.jsonl"
    loop.symlink_to(loop)
    zero = tmp_path / "zero.jsonl"
    zero.symlink_to("/dev/zero")
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    return {"folder": folder, "loop": loop, "zero": zero, "fifo": fifo}


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("folder", "is a folder, not a file"),
        ("loop", r"cannot be read \(a loop of symbolic links\)"),
        ("zero", r"is not a regular file \(a device, FIFO or socket\)"),
        ("fifo", r"is not a regular file \(a device, FIFO or socket\)"),
    ],
)
def test_what_is_not_a_regular_file_is_refused_before_a_byte_is_read(specials, name, reason):
    path = specials[name]
    for read in (read_input_bytes, read_input_text):
        with pytest.raises(InputError, match=reason) as caught:
            read(path)
        assert caught.value.source == str(path)
    with pytest.raises(InputError, match=reason):  # run files pass the same gate
        read_lines(path, append_only=True)


def test_a_file_over_the_limit_is_refused_by_its_size_unread(tmp_path):
    sparse = tmp_path / "huge.jsonl"
    with sparse.open("wb") as handle:
        handle.truncate(3 << 30)  # 3 GiB that take no room on disk
    with pytest.raises(InputError, match=r"holds 3,072 MiB; a file is read whole, up to 2,048 MiB"):
        read_input_bytes(sparse)
    small = tmp_path / "small.json"
    small.write_bytes(b"x" * 11)
    assert check_regular(small, limit=11) == 11
    with pytest.raises(InputError, match=r"holds 11 bytes; a spec file is read whole, up to 10"):
        read_input_bytes(small, limit=10, what="spec file")
    assert not (tmp_path / "missing").exists()
    with pytest.raises(InputError, match="file not found"):
        read_input_text(tmp_path / "missing")
    assert read_lines(tmp_path / "missing").lines == []  # a run file not yet written has none


def test_non_utf8_text_is_an_input_error(tmp_path):
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(b'{"id": "caf\xe9"}\n')
    with pytest.raises(InputError, match="not UTF-8 text"):
        read_input_text(path)


def test_nesting_is_bounded_at_the_stated_depth_in_every_format():
    assert bounded([[1]] * 3) == [[1]] * 3
    at_limit = "[" * MAX_NESTING + "]" * MAX_NESTING
    assert decode_json(at_limit) is not None
    over = "[" * (MAX_NESTING + 1) + "]" * (MAX_NESTING + 1)
    with pytest.raises(BoundsError, match=f"nested deeper than {MAX_NESTING} levels"):
        decode_json(over)
    deep = 100_000
    documents = {
        "json": lambda: decode_json("[" * deep + "]" * deep),
        "toml": lambda: parse_bounded(lambda: tomllib.loads("x = " + "[" * deep + "]" * deep)),
        "yaml": lambda: parse_bounded(lambda: yaml.safe_load("x: " + "[" * deep + "]" * deep)),
    }
    for name, parse in documents.items():
        with pytest.raises(BoundsError, match="nested deeper than"):
            parse()
            pytest.fail(f"{name} was not refused")


def test_integers_beyond_64_bits_are_refused_in_every_format():
    assert decode_json(str(INT_MAX)) == INT_MAX
    with pytest.raises(BoundsError, match="an integer of 20 digits is out of range"):
        decode_json(str(INT_MAX + 1))
    with pytest.raises(BoundsError, match="more than 4,300 digits"):
        parse_bounded(lambda: tomllib.loads("x = " + "9" * 5000))
    with pytest.raises(BoundsError, match="more than 4,300 digits"):
        parse_bounded(lambda: yaml.safe_load("x: " + "9" * 5000))
    with pytest.raises(BoundsError, match="out of range"):
        parse_bounded(lambda: tomllib.loads("x = " + "9" * 30))
    assert bounded({"flag": True, "n": -(2**63)}) == {"flag": True, "n": -(2**63)}


def test_a_yaml_alias_bomb_stops_at_the_node_limit_instead_of_expanding():
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    bomb = "\n".join(lines)  # 10^9 strings once expanded, a few hundred bytes as written
    with pytest.raises(BoundsError, match="more than 1,000 values once expanded"):
        parse_bounded(lambda: yaml.safe_load(bomb), max_nodes=1_000)
