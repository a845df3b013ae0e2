"""A GGUF file's weights type, read from its header alone.

``gguf.GGUFReader`` builds every field and tensor record (the vocabulary's arrays included),
about 10 s for SmolLM2 on one core; the key-value section is walked here until
``general.file_type`` and the reader is the fallback for what this walk does not handle.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import BinaryIO

FILE_TYPE_KEY = "general.file_type"
_SCALARS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q"}
_SCALARS |= {12: "d"}
"""GGUF value types of fixed size → struct codes (8 is a string, 9 an array)."""
_STRING, _ARRAY = 8, 9


class _Unhandled(Exception):
    """A header this walk does not read (GGUF v1, big-endian, an unknown value type)."""


def _read(handle: BinaryIO, code: str) -> int | float | bool:
    size = struct.calcsize("<" + code)
    data = handle.read(size)
    if len(data) != size:
        raise _Unhandled("the header ends early")
    value: int | float | bool = struct.unpack("<" + code, data)[0]
    return value


def _skip_string(handle: BinaryIO) -> None:
    handle.seek(int(_read(handle, "Q")), 1)


def _skip_value(handle: BinaryIO, kind: int) -> None:
    if kind in _SCALARS:
        handle.seek(struct.calcsize("<" + _SCALARS[kind]), 1)
    elif kind == _STRING:
        _skip_string(handle)
    elif kind == _ARRAY:
        item, count = int(_read(handle, "I")), int(_read(handle, "Q"))
        if item in _SCALARS:
            handle.seek(count * struct.calcsize("<" + _SCALARS[item]), 1)
        else:
            for _ in range(count):
                _skip_value(handle, item)
    else:
        raise _Unhandled(f"value type {kind}")


def _header_file_type(handle: BinaryIO) -> int | None:
    if handle.read(4) != b"GGUF" or int(_read(handle, "I")) not in (2, 3):
        raise _Unhandled("not a little-endian GGUF v2/v3 file")
    _read(handle, "Q")  # tensors
    for _ in range(int(_read(handle, "Q"))):
        key = handle.read(int(_read(handle, "Q"))).decode("utf-8", errors="replace")
        kind = int(_read(handle, "I"))
        if key == FILE_TYPE_KEY and kind in _SCALARS:
            return int(_read(handle, _SCALARS[kind]))
        _skip_value(handle, kind)
    return None


def gguf_quantisation(path: str | Path) -> str | None:
    """The weights type of a GGUF file (``Q4_1``, ``F16``, ...), or None if it says none."""
    import gguf

    try:
        with open(path, "rb") as handle:
            file_type = _header_file_type(handle)
    except _Unhandled:
        field_ = gguf.GGUFReader(str(path)).fields.get(FILE_TYPE_KEY)
        file_type = None if field_ is None else int(field_.parts[field_.data[0]][0])
    if file_type is None:
        return None
    return gguf.LlamaFileType(file_type).name.removeprefix("MOSTLY_")
