"""GSM8K and DROP as judge sources, from a hub dataset id (or local copy) or a JSON(L) file.

GSM8K rows hold ``question`` and ``answer`` (a worked solution ending in ``#### N``); DROP rows
hold ``section_id`` (the passage: the cluster), ``query_id``, ``passage``, ``question`` and
``answers_spans`` ``{spans, types}``. The paper's workload is a finite scalar numeric reference:
a DROP row is admitted only when its answer spans state exactly one distinct finite number and
every span stating it is typed ``number`` (``date`` too, when dates are admitted); the others are
counted by reason.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from itertools import islice
from pathlib import Path
from typing import Any

from readout_audit._exceptions import InputError
from readout_audit._util import check_regular, iter_values
from readout_audit.data import hub_rows, read_json
from readout_audit.judge.inventory._sources import (
    Source,
    SourceBank,
    normalise_question,
    parse_number,
)

GSM8K_HUB_ID = "openai/gsm8k"
DROP_HUB_ID = "ucinlp/drop"
NO_NUMERIC_REFERENCE = "no_numeric_reference"
SEVERAL_NUMERIC_REFERENCES = "several_numeric_references"
"""A DROP row whose spans state two or more distinct numbers (a multi-span answer)."""
DATE_REFERENCE = "date_reference"
"""A DROP row whose number is typed ``date`` (a year), when dates are not admitted."""
NOT_A_NUMBER_TYPE = "not_a_number_type"
"""A DROP row whose number sits in a span of another answer type."""

Where = tuple[str, int | None]
"""Where a row was read: its source text and line number (None for a hub row or array entry)."""
RowReader = Callable[[dict[str, Any], int, Where], Source | str]
"""A row's source, or the reason it is left out."""


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


def _spans(raw: dict[str, Any], where: Where, item_id: str) -> list[tuple[str, str | None]]:
    """(span, its answer type) pairs; the type is None where the row gives no types."""
    answers = raw.get("answers_spans")
    spans = answers.get("spans") if isinstance(answers, dict) else None
    if not isinstance(spans, list) or not all(isinstance(span, str) for span in spans):
        raise _error("must be a list of texts", where, item_id, "answers_spans.spans")
    types = answers.get("types") if isinstance(answers, dict) else None
    if types is None:
        return [(span, None) for span in spans]
    if not isinstance(types, list) or len(types) != len(spans):
        raise _error("must be a list with one type per span", where, item_id, "answers_spans.types")
    return [(span, str(kind)) for span, kind in zip(spans, types, strict=True)]


def drop_source(
    raw: dict[str, Any], index: int, where: Where, *, dates: bool = False
) -> Source | str:
    """One DROP row as a source with one finite scalar reference, or why it is left out."""
    del index  # a DROP row carries its own id
    query_id = _text(raw, "query_id", where, None)
    source_id = f"drop:{query_id}"
    spans = _spans(raw, where, source_id)
    numeric = [(v, kind) for span, kind in spans if (v := parse_number(span)) is not None]
    values = sorted({v for v, _ in numeric})
    if not values:
        return NO_NUMERIC_REFERENCE
    if len(values) > 1:
        return SEVERAL_NUMERIC_REFERENCES
    kinds = {kind for _, kind in numeric}
    if "date" in kinds and not dates:
        return DATE_REFERENCE
    if not kinds <= {"number", "date", None}:
        return NOT_A_NUMBER_TYPE
    references = values
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
    dataset: str,
    rows: Iterator[tuple[dict[str, Any], Where]],
    read: RowReader,
    limit: int | None = None,
) -> SourceBank:
    """The sources of the rows (of the first ``limit`` rows), and the rows skipped by reason."""
    sources: list[Source] = []
    seen: set[str] = set()
    skipped: dict[str, int] = {}
    count = 0
    for index, (raw, where) in enumerate(islice(rows, limit)):
        count += 1
        if not isinstance(raw, dict):
            raise _error(f"expected a JSON object, got {type(raw).__name__}", where)
        source = read(raw, index, where)
        if isinstance(source, str):
            skipped[source] = skipped.get(source, 0) + 1
            continue
        if source.id in seen:
            raise _error("appears twice", where, source.id, "id")
        seen.add(source.id)
        sources.append(source)
    return SourceBank(
        dataset=dataset, sources=sources, rows=count, skipped=dict(sorted(skipped.items()))
    )


def _file_rows(path: str | Path) -> Iterator[tuple[dict[str, Any], Where]]:
    path = Path(path)
    check_regular(path)
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


def load_gsm8k_jsonl(path: str | Path, *, limit: int | None = None) -> SourceBank:
    """GSM8K's JSON lines (``test.jsonl``, its first ``limit`` rows), row n as ``gsm8k:n``."""
    return _bank("gsm8k", _file_rows(path), gsm8k_source, limit)


def load_gsm8k_hf(
    dataset: str = GSM8K_HUB_ID,
    *,
    subset: str = "main",
    split: str = "test",
    revision: str | None = None,
    allow_download: bool = False,
    limit: int | None = None,
) -> SourceBank:
    """GSM8K from a hub dataset id (or local copy): the ``main`` configuration's test split."""
    rows = _hub(dataset, subset, split, revision, allow_download)
    return _bank("gsm8k", rows, gsm8k_source, limit)


def load_drop_json(
    path: str | Path, *, dates: bool = False, limit: int | None = None
) -> SourceBank:
    """DROP rows in the hub's layout, as JSON lines or one JSON array (its first ``limit`` rows).

    ``dates``: admit a number typed ``date`` (a year) as a reference.
    """
    return _bank("drop", _file_rows(path), partial(drop_source, dates=dates), limit)


def load_drop_hf(
    dataset: str = DROP_HUB_ID,
    *,
    split: str = "train",
    revision: str | None = None,
    allow_download: bool = False,
    dates: bool = False,
    limit: int | None = None,
) -> SourceBank:
    """DROP from a hub dataset id (or local copy); the paper draws from the training split."""
    rows = _hub(dataset, None, split, revision, allow_download)
    return _bank("drop", rows, partial(drop_source, dates=dates), limit)
