"""GSM8K and DROP as judge sources, from a hub dataset id (or local copy) or a JSON(L) file.

GSM8K rows hold ``question`` and ``answer`` (a worked solution ending in ``#### N``); DROP rows
hold ``section_id`` (the passage: the cluster), ``query_id``, ``passage``, ``question`` and
``answers_spans`` ``{spans, types}``, whose spans that read as finite numbers are the references.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from readout_audit._exceptions import InputError
from readout_audit._util._jsonl import iter_values
from readout_audit.data._hub import hub_rows
from readout_audit.data._jsonl import read_json
from readout_audit.judge.inventory._sources import (
    Source,
    SourceBank,
    normalise_question,
    parse_number,
)

GSM8K_HUB_ID = "openai/gsm8k"
DROP_HUB_ID = "ucinlp/drop"
NO_NUMERIC_REFERENCE = "no_numeric_reference"

Where = tuple[str, int | None]
"""Where a row was read: its source text and line number (None for a hub row or array entry)."""
RowReader = Callable[[dict[str, Any], int, Where], Source | None]


def _error(
    message: str, where: Where, item_id: str | None = None, field: str | None = None
) -> InputError:
    return InputError(message, source=where[0], line=where[1], item_id=item_id, field=field)


def _text(raw: dict[str, Any], name: str, where: Where, item_id: str | None) -> str:
    value = raw.get(name)
    if not isinstance(value, str) or not value.strip():
        raise _error("must be non-empty text", where, item_id, name)
    return value


def gsm8k_source(raw: dict[str, Any], index: int, where: Where) -> Source:
    """One GSM8K row (0-based ``index`` in its split) as a source with one reference."""
    source_id = f"gsm8k:{index}"
    question = _text(raw, "question", where, source_id)
    lines = _text(raw, "answer", where, source_id).rstrip().split("\n")
    final = lines[-1].strip()
    if not final.startswith("####"):
        raise _error("must end in a line '#### N'", where, source_id, "answer")
    value = parse_number(final.removeprefix("####"))
    if value is None:
        raise _error(f"{final!r} does not state a finite number", where, source_id, "answer")
    return Source(
        id=source_id,
        dataset="gsm8k",
        cluster=source_id,
        question=question,
        references=(value,),
        evidence="\n".join(lines[:-1]).rstrip(),
        normalised_question=normalise_question(question),
    )


def _spans(raw: dict[str, Any], where: Where, item_id: str) -> list[str]:
    answers = raw.get("answers_spans")
    spans = answers.get("spans") if isinstance(answers, dict) else None
    if not isinstance(spans, list) or not all(isinstance(span, str) for span in spans):
        raise _error("must be a list of texts", where, item_id, "answers_spans.spans")
    return spans


def drop_source(raw: dict[str, Any], index: int, where: Where) -> Source | None:
    """One DROP row as a source; None when no answer span is a finite number."""
    del index  # a DROP row carries its own id
    query_id = _text(raw, "query_id", where, None)
    source_id = f"drop:{query_id}"
    references: list[float] = []
    for span in _spans(raw, where, source_id):
        value = parse_number(span)
        if value is not None and value not in references:
            references.append(value)
    if not references:
        return None
    question = _text(raw, "question", where, source_id)
    return Source(
        id=source_id,
        dataset="drop",
        cluster=_text(raw, "section_id", where, source_id),
        question=question,
        references=tuple(references),
        evidence=_text(raw, "passage", where, source_id),
        normalised_question=normalise_question(question),
    )


def _bank(
    dataset: str, rows: Iterator[tuple[dict[str, Any], Where]], read: RowReader
) -> SourceBank:
    sources: list[Source] = []
    seen: set[str] = set()
    count = 0
    for index, (raw, where) in enumerate(rows):
        count += 1
        if not isinstance(raw, dict):
            raise _error(f"expected a JSON object, got {type(raw).__name__}", where)
        source = read(raw, index, where)
        if source is None:
            continue
        if source.id in seen:
            raise _error("appears twice", where, source.id, "id")
        seen.add(source.id)
        sources.append(source)
    skipped = {NO_NUMERIC_REFERENCE: count - len(sources)} if count > len(sources) else {}
    return SourceBank(dataset=dataset, sources=sources, rows=count, skipped=skipped)


def _file_rows(path: str | Path) -> Iterator[tuple[dict[str, Any], Where]]:
    path = Path(path)
    if not path.is_file():
        raise InputError("no such file", source=str(path))
    with path.open("rb") as handle:
        is_array = handle.read(4096).lstrip().startswith(b"[")
    if not is_array:
        for line, raw in iter_values(path):
            yield raw, (str(path), line)
        return
    for index, raw in enumerate(read_json(path)):
        yield raw, (f"{path}[{index}]", None)


def _hub(
    dataset: str, subset: str | None, split: str, revision: str | None, allow: bool
) -> Iterator[tuple[dict[str, Any], Where]]:
    for index, raw in enumerate(hub_rows(dataset, subset, split, revision, allow)):
        yield raw, (f"{dataset}:{split}[{index}]", None)


def load_gsm8k_jsonl(path: str | Path) -> SourceBank:
    """GSM8K's JSON lines (``test.jsonl``), row n becoming ``gsm8k:n`` (0-based)."""
    return _bank("gsm8k", _file_rows(path), gsm8k_source)


def load_gsm8k_hf(
    dataset: str = GSM8K_HUB_ID,
    *,
    subset: str = "main",
    split: str = "test",
    revision: str | None = None,
    allow_download: bool = False,
) -> SourceBank:
    """GSM8K from a hub dataset id (or local copy): the ``main`` configuration's test split."""
    return _bank("gsm8k", _hub(dataset, subset, split, revision, allow_download), gsm8k_source)


def load_drop_json(path: str | Path) -> SourceBank:
    """DROP rows in the hub's layout, as JSON lines or one JSON array."""
    return _bank("drop", _file_rows(path), drop_source)


def load_drop_hf(
    dataset: str = DROP_HUB_ID,
    *,
    split: str = "train",
    revision: str | None = None,
    allow_download: bool = False,
) -> SourceBank:
    """DROP from a hub dataset id (or local copy); the paper draws from the training split."""
    return _bank("drop", _hub(dataset, None, split, revision, allow_download), drop_source)
