"""Records as one flat table: a row per record, a column per field, for CSV, parquet and pandas.

The columns come from the record type, so every run of a kind gives the same columns in the
same order (the fields' order), even with no records; only an object of named values (lm-eval's
metrics of a document) gives a column per name its records hold. Each cell is the value
``records.jsonl`` holds, by one rule:

* a nested model (``greedy``) becomes one column per field, named with a dot (``greedy.text``);
* an object of named values of one scalar type (``lm_eval_metrics``, ``readout_choices``,
  ``decisions``) becomes one typed column per name the records hold, named with a dot
  (``lm_eval_metrics.acc``), in the order the records first show the names;
* a field of one scalar type (text, integer, number, true/false, a choice of words) is a typed
  column with missing values where the record holds null;
* anything else (a list such as ``options``, ``gold`` or ``top``, an object of values of any
  type such as ``metadata`` or keyed by token id such as ``set_logprobs``, a field that may hold
  values of several types such as ``target``) is its compact JSON text (``[" yes"," no"]``,
  ``" Mars"``, ``4.0``), null staying a missing value.

An integer column holding a value past 2^63 - 1 (a ``doc_id`` up to 2^64 - 1) is unsigned
(``UInt64``), or its decimal text when it holds negative values too. In CSV, a text cell that
opens with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return gets a leading ``'`` (OWASP's
defence against formula injection), so a spreadsheet shows it instead of running it; numbers,
and text that is a plain number, are written as they are.
"""

from __future__ import annotations

import functools
import io
import json
import os
import re
import types
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel

from readout_audit._exceptions import ReadoutError
from readout_audit._util import write_bytes_atomic

if TYPE_CHECKING:
    import pandas

TableFormat = Literal["csv", "parquet"]
FORMATS: tuple[TableFormat, ...] = ("csv", "parquet")

_DTYPES = {str: "string", int: "Int64", float: "Float64", bool: "boolean"}
"""Scalar field types and their pandas dtypes (nullable: a null is a missing value)."""
_INT64_MAX = (1 << 63) - 1
CSV_LINE_END = "\r\n"
"""RFC 4180's line end: with it Python's CSV writer quotes a cell holding a carriage return too
(with a bare line feed it leaves one unquoted, and the row breaks where it stands)."""
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")


@dataclass(frozen=True)
class Column:
    """One column: its dotted name, where its value sits in a record, and its pandas dtype."""

    name: str
    path: tuple[str, ...]
    dtype: str
    """A nullable pandas dtype (``string`` for JSON text)."""
    json_text: bool = False
    """Whether the cell is the value's JSON text."""
    named: bool = False
    """An object of named scalars: one column per name the records hold (see
    :func:`table_columns`)."""


def _optional(annotation: Any) -> Any:
    """``annotation`` without ``None`` when it is ``X | None``; otherwise as it is."""
    if get_origin(annotation) in (Union, types.UnionType):
        args = [a for a in get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return annotation


def _scalar_dtype(annotation: Any) -> str | None:
    """The dtype of a field of one scalar type (a ``Literal`` of one type counts), else None."""
    if get_origin(annotation) is Literal:
        kinds = {type(value) for value in get_args(annotation)}
        return _DTYPES.get(kinds.pop()) if len(kinds) == 1 else None
    return _DTYPES.get(annotation)


@functools.cache
def record_columns(record_type: type[BaseModel]) -> tuple[Column, ...]:
    """The table's columns for a record type, in field order, nested models flattened.

    An object of named scalars is one ``named`` column here, its names' columns coming from
    the records (:func:`table_columns`).
    """

    def walk(model: type[BaseModel], path: tuple[str, ...]) -> Iterable[Column]:
        for name, info in model.model_fields.items():
            inner = _optional(info.annotation)
            here = (*path, name)
            if isinstance(inner, type) and issubclass(inner, BaseModel):
                yield from walk(inner, here)
            elif (dtype := _named_scalars(inner)) is not None:
                yield Column(".".join(here), here, dtype, named=True)
            else:
                dtype = _scalar_dtype(inner)
                yield Column(".".join(here), here, dtype or "string", json_text=dtype is None)

    return tuple(walk(record_type, ()))


def _named_scalars(annotation: Any) -> str | None:
    """The dtype of an object field of named values of one scalar type (``dict[str, float]``)."""
    if get_origin(annotation) is not dict:
        return None
    key, value = get_args(annotation)
    return _scalar_dtype(_optional(value)) if key is str else None


def _raw(record: BaseModel) -> dict[str, Any]:
    """The record as ``records.jsonl`` holds it."""
    raw: dict[str, Any] = json.loads(record.model_dump_json())
    return raw


def table_columns(record_type: type[BaseModel], raws: Sequence[dict[str, Any]]) -> list[Column]:
    """The record type's columns, each object of named scalars as one column per name.

    The names are those the records (as ``records.jsonl`` holds them) show, in the order they
    first show them: an empty run has none of these columns.
    """
    columns: list[Column] = []
    for column in record_columns(record_type):
        if not column.named:
            columns.append(column)
            continue
        names: dict[str, None] = {}
        for raw in raws:
            value: Any = raw
            for key in column.path:
                value = value.get(key) if isinstance(value, dict) else None
            names.update(dict.fromkeys(value or ()))
        columns += [
            Column(f"{column.name}.{name}", (*column.path, name), column.dtype) for name in names
        ]
    return columns


def _row(raw: dict[str, Any], columns: Iterable[Column]) -> list[Any]:
    """A record's cells in the columns' order, from the values records.jsonl holds."""
    cells = []
    for column in columns:
        value: Any = raw
        for key in column.path:
            value = value.get(key) if isinstance(value, dict) else None
        if value is not None and column.json_text:
            value = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        cells.append(value)
    return cells


def flatten_record(record: BaseModel) -> dict[str, Any]:
    """One record as a table row: dotted column name → cell, by the rule of this module."""
    raw = _raw(record)
    columns = table_columns(type(record), [raw])
    return dict(zip((c.name for c in columns), _row(raw, columns), strict=True))


def _pandas() -> Any:
    try:
        import pandas
    except ImportError:
        raise ReadoutError(
            "tables of records need pandas (and pyarrow for parquet): pip install pandas pyarrow"
        ) from None
    return pandas


def _series(pd: Any, column: Column, cells: list[Any]) -> pandas.Series:
    """A column's cells with its dtype; integers past int64 as ``UInt64``, or their text."""
    dtype = column.dtype
    if dtype == "Int64" and any(c is not None and c > _INT64_MAX for c in cells):
        if all(c is None or c >= 0 for c in cells):
            dtype = "UInt64"
        else:
            dtype, cells = "string", [None if c is None else str(c) for c in cells]
    return pd.Series(cells, dtype=dtype)


def records_frame(records: Sequence[Any], record_type: type[BaseModel]) -> pandas.DataFrame:
    """The records as a pandas DataFrame: a row per record, the columns of ``record_type``."""
    pd = _pandas()
    raws = [_raw(record) for record in records]
    columns = table_columns(record_type, raws)
    rows = [_row(raw, columns) for raw in raws]
    return pd.DataFrame(
        {c.name: _series(pd, c, [row[i] for row in rows]) for i, c in enumerate(columns)},
        columns=[c.name for c in columns],
    )


def csv_text(text: str) -> str:
    """A CSV text cell a spreadsheet shows rather than runs (OWASP: formula injection).

    Text opening with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return gets a leading
    ``'``; a plain number's text (``-4.0``) stays as it is.
    """
    if text.startswith(_FORMULA_START) and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


def export_path(run_dir: str | Path, table_format: TableFormat) -> Path:
    """Where a run's table goes by default: ``RUN.csv`` (or ``.parquet``) beside the run."""
    directory = Path(run_dir)
    if directory.name in ("", ".", ".."):
        directory = Path(os.path.abspath(directory))
    return directory.parent / f"{directory.name}.{table_format}"


def write_frame(frame: pandas.DataFrame, out: Path, table_format: TableFormat) -> Path:
    """Write a frame as CSV (UTF-8, CRLF, a header row, no index) or parquet, whole or not at all.

    CSV text cells that a spreadsheet would run as a formula are written as :func:`csv_text`.
    """
    if table_format == "csv":
        text = frame.copy()
        for name in text.columns:
            if text[name].dtype == "string":
                text[name] = text[name].map(csv_text, na_action="ignore").astype("string")
        data = text.to_csv(index=False, lineterminator=CSV_LINE_END).encode("utf-8")
    else:
        buffer = io.BytesIO()
        try:
            frame.to_parquet(buffer, index=False)
        except ImportError as error:
            raise ReadoutError(f"parquet needs pyarrow: pip install pyarrow ({error})") from None
        data = buffer.getvalue()
    out.parent.mkdir(parents=True, exist_ok=True)
    write_bytes_atomic(out, data)
    return out
