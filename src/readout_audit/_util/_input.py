"""The one gate every input file passes: a regular file of bounded size, its errors located.

A folder, a device (``/dev/zero``), a FIFO or a symbolic-link loop is refused for what it is
before a byte is read (a FIFO would block, ``/dev/zero`` fills memory); a file over the size
limit is refused by its size. Parsed documents (JSON, TOML, YAML) are bounded alike: nesting
and integer size, so no reader downstream meets a structure deeper than it can walk.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from readout_audit._exceptions import InputError

MAX_INPUT_BYTES = 2 << 30
"""The largest file read whole (2 GiB): items, specs, run files, inventories."""
MAX_NESTING = 100
"""The deepest nesting of lists and mappings a JSON, TOML or YAML document may hold."""
MAX_NODES = 1_000_000
"""The most values a TOML or YAML document may hold once YAML's aliases are expanded."""
INT_MIN, INT_MAX = -(1 << 63), (1 << 64) - 1
"""Integers outside 64 bits are refused: no field of this project holds one."""

T = TypeVar("T")


def _mb(size: int) -> str:
    return f"{size / (1 << 20):,.0f} MiB" if size >= 1 << 20 else f"{size:,} bytes"


def check_regular(path: Path, *, limit: int | None = MAX_INPUT_BYTES, what: str = "file") -> int:
    """The size of ``path``, a regular file within ``limit`` bytes, or an ``InputError``.

    ``limit`` None is for a file never read whole (a database).
    """
    source = str(path)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise InputError(f"{what} not found", source=source) from None
    except OSError as error:
        reason = "a loop of symbolic links" if error.errno == errno.ELOOP else error.strerror
        raise InputError(f"cannot be read ({reason})", source=source) from None
    if stat.S_ISDIR(info.st_mode):
        raise InputError(f"is a folder, not a {what}", source=source)
    if not stat.S_ISREG(info.st_mode):
        raise InputError(
            f"is not a regular file (a device, FIFO or socket): not read as a {what}",
            source=source,
        )
    if limit is not None and info.st_size > limit:
        raise InputError(
            f"holds {_mb(info.st_size)}; a {what} is read whole, up to {_mb(limit)}",
            source=source,
        )
    return info.st_size


def read_input_bytes(path: Path, *, limit: int = MAX_INPUT_BYTES, what: str = "file") -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes (see :func:`check_regular`).

    The read asks for the file's own size, not the limit, so a small file never reserves a
    buffer of ``limit`` bytes (2 GiB, fatal under a memory ulimit).
    """
    size = check_regular(path, limit=limit, what=what)
    try:
        with open(path, "rb") as handle:
            data = handle.read(size + 1)
    except OSError as error:
        raise InputError(f"cannot be read ({error.strerror})", source=str(path)) from None
    if len(data) > size:
        raise InputError(f"grew while being read (from {_mb(size)}); not read", source=str(path))
    return data


def read_input_text(path: Path, *, limit: int = MAX_INPUT_BYTES, what: str = "file") -> str:
    """A regular file's UTF-8 text (see :func:`read_input_bytes`)."""
    data = read_input_bytes(path, limit=limit, what=what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(f"not UTF-8 text ({error.reason})", source=str(path)) from None


class BoundsError(ValueError):
    """A parsed document nested too deeply, too large once expanded, or with a huge integer."""


def bounded(value: T, *, max_nodes: int | None = None) -> T:
    """``value`` when its nesting, its size (``max_nodes``) and its integers are in bounds.

    Shared values (YAML's aliases) count each time they appear, so an alias bomb stops at
    ``max_nodes`` instead of being walked to its end. Raises :class:`BoundsError`.
    """
    stack: list[tuple[Any, int]] = [(value, 0)]
    seen = 0
    while stack:
        item, depth = stack.pop()
        seen += 1
        if max_nodes is not None and seen > max_nodes:
            raise BoundsError(f"holds more than {max_nodes:,} values once expanded")
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            if (
                isinstance(item, int)
                and not isinstance(item, bool)
                and not (INT_MIN <= item <= INT_MAX)
            ):
                raise BoundsError(f"an integer of {len(str(abs(item)))} digits is out of range")
            continue
        if depth >= MAX_NESTING:
            raise BoundsError(f"nested deeper than {MAX_NESTING} levels")
        stack.extend((child, depth + 1) for child in children)
    return value


def parse_bounded(parse: Callable[[], T], *, max_nodes: int | None = None) -> T:
    """``parse()``'s document, within bounds (see :func:`bounded`).

    A parser's own recursion or integer-size error (deep nesting, a 5,000-digit integer)
    becomes a :class:`BoundsError` too.
    """
    try:
        document = parse()
    except RecursionError:
        raise BoundsError(f"nested deeper than {MAX_NESTING} levels") from None
    except ValueError as error:
        if "integer string conversion" not in str(error):
            raise
        raise BoundsError("an integer of more than 4,300 digits is out of range") from None
    return bounded(document, max_nodes=max_nodes)
