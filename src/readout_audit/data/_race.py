"""RACE-H as the constrained-option paper samples it: one question per long passage, shuffled."""

from __future__ import annotations

import hashlib
import random
from typing import Any

from readout_audit._exceptions import InputError
from readout_audit.data._hub import hub_rows
from readout_audit.data._jsonl import parse_as
from readout_audit.data._mc import MCItem

RACE_HUB_ID = "ehovy/race"
RACE_REVISION = "2fec9fd81f1dc971569a9b729c43f2f0e6436637"
"""The paper's pinned revision of ``ehovy/race`` (Appendix A.1)."""
RACE_SPLITS = ("test", "validation", "train")
"""The order the splits are read in; a passage's first occurrence in it decides its position."""
_COLUMNS = {"choices": "options", "passage": "article"}
"""MCItem fields named by the RACE column they come from, for errors."""


def load_race(
    dataset: str = RACE_HUB_ID,
    config: str = "high",
    *,
    revision: str | None = RACE_REVISION,
    allow_download: bool = False,
    min_words: int = 200,
    seed: int = 0,
    limit: int | None = None,
) -> list[MCItem]:
    """The paper's shuffled RACE-H list (Appendix A.1); every sample is a prefix (``limit``).

    Rows (``example_id``, ``article``, ``question``, ``options``, ``answer`` letter) are read
    from the splits test, validation, train in stored order and grouped by the MD5 of the
    UTF-8 article: a passage keeps its first occurrence's position and collects its questions
    in encounter order. Passages of at least ``min_words`` words (``len(article.split())``,
    runs of whitespace) are kept and shuffled with ``random.Random(seed)``; the same generator
    then picks each passage's question with ``rng.choice(questions)``, in shuffled order, so a
    shorter ``limit`` gives a prefix of a longer one. Item ids are
    ``<split>/<example_id>/<question number within the passage>`` of the first occurrence;
    the passage (``<split>/<example_id>``) is the cluster. Every row is validated, not only the
    chosen ones. Without ``allow_download`` only the local cache or a local folder is read.
    """
    passages: dict[str, list[MCItem]] = {}
    for split in RACE_SPLITS:
        source = f"{dataset}:{config}/{split}"
        for number, row in enumerate(
            hub_rows(dataset, config, split, revision, allow_download), start=1
        ):
            for column in ("example_id", "article"):
                if not isinstance(row.get(column), str):
                    raise InputError(
                        f"row {number} is not a RACE row: expected text, got "
                        f"{type(row.get(column)).__name__}",
                        source=source,
                        line=number,
                        field=column,
                    )
            digest = hashlib.md5(row["article"].encode("utf-8")).hexdigest()
            questions = passages.setdefault(digest, [])
            if questions:
                cluster, first = questions[0].cluster, questions[0].metadata
            else:
                cluster = f"{split}/{row['example_id']}"
                first = {"split": split, "example_id": row["example_id"], "md5": digest}
            raw = {
                "id": f"{cluster}/{len(questions) + 1}",
                "question": row.get("question"),
                "choices": row.get("options"),
                "answer": row.get("answer"),
                "passage": row["article"],
                "cluster": cluster,
                "metadata": first,
            }
            questions.append(_row_item(raw, source, number))
    kept = [questions for questions in passages.values() if _long(questions[0], min_words)]
    rng = random.Random(seed)
    rng.shuffle(kept)
    return [rng.choice(questions) for questions in kept[:limit]]


def _long(item: MCItem, min_words: int) -> bool:
    """Whether the item's passage has at least ``min_words`` whitespace-separated words."""
    return len((item.passage or "").split()) >= min_words


def _row_item(raw: dict[str, Any], source: str, number: int) -> MCItem:
    """One row as an MCItem; a bad row's error names the row and its RACE column."""
    try:
        return parse_as(MCItem, raw, source=source, line=number)
    except InputError as error:
        field = error.field or "answer"  # MCItem's one whole-item check is the answer letter
        head, bracket, tail = field.partition("[")
        raise InputError(
            f"row {number} is not a RACE row: {error.message}",
            source=source,
            line=number,
            item_id=error.item_id,
            field=_COLUMNS.get(head, head) + bracket + tail,
        ) from None
