"""The one JSON-lines reader and writer, for items, records and caches.

Lines are framed on the newline character alone. ``str.splitlines`` also breaks on U+2028,
U+2029, U+0085 and other separators that JSON allows raw inside strings, so a record holding
one would be read as two broken lines; the writer escapes them as well, so any other reader
splits our files safely.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from readout_audit._exceptions import InputError
from readout_audit._util._input import BoundsError, parse_bounded, read_input_bytes

_SEPARATORS = {"\u2028": "\\u2028", "\u2029": "\\u2029", "\u0085": "\\u0085"}


def escape_separators(line: str) -> str:
    """A JSON text with the Unicode line separators escaped (they only occur inside strings)."""
    for raw, escaped in _SEPARATORS.items():
        line = line.replace(raw, escaped)
    return line


def dumps_line(value: Any) -> str:
    """One JSON value as one line of text, without its closing newline."""
    return escape_separators(json.dumps(value, ensure_ascii=False, allow_nan=False))


def split_lines(text: str) -> list[str]:
    """Lines of a text split on newlines only (a carriage return before one is dropped: CRLF)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


@dataclass(frozen=True)
class JsonLines:
    """A JSON-lines file read back: its complete lines and, if the last was cut off, that text."""

    path: Path
    lines: list[tuple[int, str]]
    """(1-based line number, text) of every non-blank complete line."""
    cut: str | None = None
    """The last line's text when it has no closing newline and the file is append-only."""

    @property
    def complete_bytes(self) -> int:
        """Length of the file up to the end of its last complete line."""
        size = self.path.stat().st_size if self.path.exists() else 0
        return size - len(self.cut.encode("utf-8")) if self.cut is not None else size


def read_lines(path: Path, *, append_only: bool = False) -> JsonLines:
    """Read a JSON-lines file; a missing file has no lines.

    In an ``append_only`` file (records, caches) a last line without its newline was cut off by an
    interruption and is returned as ``cut``; in an item file it is an ordinary last line.
    """
    if not os.path.lexists(path):
        return JsonLines(path, [])
    data = read_input_bytes(path)
    cut: str | None = None
    if append_only and data and not data.endswith(b"\n"):
        end = data.rfind(b"\n") + 1
        cut, data = data[end:].decode("utf-8", errors="replace"), data[:end]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(f"not UTF-8 text ({error.reason})", source=str(path)) from None
    lines = [(n, line) for n, line in enumerate(split_lines(text), start=1) if line.strip()]
    return JsonLines(path, lines, cut)


class DuplicateKeyError(ValueError):
    """A JSON object that writes one key twice (a plain decoder keeps the last silently)."""

    def __init__(self, key: str) -> None:
        super().__init__(f"the key {key!r} appears twice in one object")
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object's members as a dict; a repeated key is an error, never last-one-wins."""
    value = dict(pairs)
    if len(value) < len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKeyError(key)
            seen.add(key)
    return value


def _finite(text: str) -> float:
    """A JSON number as a float, refusing one beyond float's range (``1e999``)."""
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"the number {text[:20]} is out of range")
    return value


def _no_constant(name: str) -> Any:
    """Refuse Python's JSON extensions NaN, Infinity and -Infinity."""
    raise ValueError(f"{name} is not a JSON number")


def decode_json(text: str) -> Any:
    """Decode JSON strictly: ``json.JSONDecodeError`` when malformed, ``ValueError`` otherwise.

    The ``ValueError`` cases: a key repeated in one object (``DuplicateKeyError``), NaN,
    Infinity, numbers out of float range, and a document out of bounds (``BoundsError``:
    nested deeper than ``MAX_NESTING``, an integer beyond 64 bits); a plain decoder would keep
    the last key, return a non-number, or hand on a structure no reader can walk.
    """
    return parse_bounded(
        lambda: json.loads(
            text, object_pairs_hook=_unique_keys, parse_constant=_no_constant, parse_float=_finite
        )
    )


def loads_strict(text: str, *, source: str, line: int | None = None) -> Any:
    """Decode user-supplied JSON (see ``decode_json``), or an ``InputError`` naming the file.

    ``line`` is the line a JSON-lines value sits on; a whole document's syntax errors name
    their own line, and a repeated key is named as the error's field.
    """
    try:
        return decode_json(text)
    except json.JSONDecodeError as error:
        where = line if line is not None else error.lineno
        raise InputError(f"malformed JSON ({error.msg})", source=source, line=where) from None
    except DuplicateKeyError as error:
        message = "appears twice in one JSON object (which value is meant is unknown)"
        raise InputError(message, source=source, line=line, field=error.key) from None
    except BoundsError as error:
        raise InputError(str(error), source=source, line=line) from None
    except ValueError as error:  # NaN, Infinity, 1e999
        message = str(error).split(";")[0]
        raise InputError(f"unusable number ({message})", source=source, line=line) from None


def loads_line(text: str, *, source: str, line: int) -> Any:
    """Decode one line's JSON value strictly (see ``loads_strict``), errors naming its line."""
    return loads_strict(text, source=source, line=line)


def iter_values(path: Path, *, append_only: bool = False) -> Iterator[tuple[int, Any]]:
    """(line number, decoded value) of every complete line of a JSON-lines file."""
    for number, text in read_lines(path, append_only=append_only).lines:
        yield number, loads_line(text, source=str(path), line=number)


class JsonlAppender:
    """Appends lines to a JSON-lines file, each flushed as soon as it is written.

    Opening it first drops a last line cut off by an earlier interruption, so appending resumes
    on a clean line boundary.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        existing = read_lines(path, append_only=True)
        if existing.cut is not None:
            with path.open("r+b") as handle:
                handle.truncate(existing.complete_bytes)
        self._handle: IO[str] = path.open("a", encoding="utf-8", newline="\n")

    def write_text(self, line: str) -> None:
        """Append one JSON text (already serialised) as a line."""
        self._handle.write(escape_separators(line) + "\n")
        self._handle.flush()

    def write(self, value: Any) -> None:
        """Append one JSON value as a line."""
        self.write_text(dumps_line(value))

    def close(self) -> None:
        """Close the file."""
        self._handle.close()


def umask_mode() -> int:
    """What the umask leaves of 0666: the mode of a new file a user's tools would make."""
    mask = os.umask(0o077)  # read it back at once; a stricter mask meanwhile errs safe
    os.umask(mask)
    return 0o666 & ~mask


def _file_mode(path: Path) -> int:
    """The mode a written file gets: the one it replaces, else :func:`umask_mode`."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return umask_mode()


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Write a file whole or not at all: a fresh temporary file beside it, renamed over it.

    The temporary file's name is new each time, so no other file (nor another writer's
    temporary file) is ever overwritten on the way. The file keeps the mode of the one it
    replaces; a new one gets the umask's (``mkstemp`` alone would make every file 0600).
    """
    mode = _file_mode(path)
    handle, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as file:
            os.fchmod(file.fileno(), mode)
            file.write(data)
        os.replace(name, path)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise


def write_text_atomic(path: Path, text: str) -> None:
    """Write a UTF-8 text file whole or not at all."""
    write_bytes_atomic(path, text.encode("utf-8"))


def write_json_atomic(path: Path, data: Any) -> None:
    """Write a JSON document whole or not at all."""
    write_text_atomic(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def write_lines_atomic(path: Path, lines: Iterable[str]) -> None:
    """Write a JSON-lines file whole or not at all, one line per item."""
    write_text_atomic(path, "".join(line + "\n" for line in lines))
