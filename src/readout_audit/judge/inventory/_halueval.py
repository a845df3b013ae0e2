"""HaluEval's question-answering task as judge sources (seed 004's decomposition datasets).

HaluEval QA rows (``qa_data.json``, JSON lines; the hub's ``pminervini/HaluEval``, configuration
``qa``, split ``data``) hold ``knowledge`` (the evidence passage), ``question``,
``right_answer`` and ``hallucinated_answer``. Row n is ``halueval:n``; its declared cluster is
its knowledge passage (SHA-256 of the text, so two questions on one passage share it). Only a
right answer that states one finite number (a count, a year) is a reference; other rows are
counted as skipped (``non_numeric_answer``).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from readout_audit.judge.inventory._datasets import Where, _bank, _file_rows, _hub, _text
from readout_audit.judge.inventory._sources import (
    Source,
    SourceBank,
    normalise_question,
    parse_number,
)

HALUEVAL_HUB_ID = "pminervini/HaluEval"
NON_NUMERIC_ANSWER = "non_numeric_answer"


def halueval_source(raw: dict[str, Any], index: int, where: Where) -> Source | str:
    """One HaluEval QA row (0-based ``index``) as a numeric source, or why it is left out."""
    source_id = f"halueval:{index}"
    knowledge = _text(raw, "knowledge", where, source_id)
    question = _text(raw, "question", where, source_id)
    value = parse_number(_text(raw, "right_answer", where, source_id))
    if value is None:
        return NON_NUMERIC_ANSWER
    return Source(
        id=source_id,
        dataset="halueval",
        cluster="knowledge:" + hashlib.sha256(knowledge.encode()).hexdigest()[:16],
        question=question,
        references=(value,),
        evidence=knowledge,
        normalised_question=normalise_question(question),
    )


def load_halueval_json(path: str | Path, *, limit: int | None = None) -> SourceBank:
    """HaluEval QA rows as JSON lines or one JSON array (its first ``limit`` rows)."""
    return _bank("halueval", _file_rows(path), halueval_source, limit)


def load_halueval_hf(
    dataset: str = HALUEVAL_HUB_ID,
    *,
    subset: str = "qa",
    split: str = "data",
    revision: str | None = None,
    allow_download: bool = False,
    limit: int | None = None,
) -> SourceBank:
    """HaluEval QA from a hub dataset id (or local copy): configuration ``qa``, split ``data``."""
    rows = _hub(dataset, subset, split, revision, allow_download)
    return _bank("halueval", rows, halueval_source, limit)
