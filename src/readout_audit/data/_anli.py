"""ANLI (seed 003) as logic items: premise, hypothesis and an entailment label per row.

Rounds are the hub's splits (``train_r1`` … ``test_r3``); the paper fits offsets on R1 and
evaluates on R2. Entailment is true, neutral unknown and contradiction false.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from readout_audit._exceptions import InputError
from readout_audit.data._hub import hub_rows
from readout_audit.data._logic import LogicItem, LogicLabel, _json_lines, _text, _unique

ANLI_HUB_ID = "facebook/anli"
_LABELS: dict[int | str, LogicLabel] = {
    0: "true",
    1: "unknown",
    2: "false",
    "e": "true",
    "n": "unknown",
    "c": "false",
}
"""The hub's class indices and the original release's letters."""


def _anli_row(raw: dict[str, Any], where: str) -> list[LogicItem]:
    item_id = raw.get("uid")
    if not isinstance(item_id, str) or not item_id.strip():
        raise InputError(f"{item_id!r} is not a non-empty id", source=where, field="uid")
    label = raw.get("label")
    if isinstance(label, str):
        label = label.strip().lower()
    if isinstance(label, bool) or not isinstance(label, int | str) or label not in _LABELS:
        raise InputError(
            f"{label!r} is not 0, 1, 2 (entailment, neutral, contradiction) or e, n, c",
            source=where,
            item_id=item_id,
            field="label",
        )
    premise_field = "premise" if "premise" in raw else "context"
    premise = _text(raw, premise_field, where, item_id)
    reason = raw.get("reason")
    return [
        LogicItem(
            id=item_id,
            context=premise,
            statement=_text(raw, "hypothesis", where, item_id),
            label=_LABELS[label],
            cluster="premise-" + hashlib.sha256(premise.encode("utf-8")).hexdigest()[:16],
            metadata={"reason": reason} if isinstance(reason, str) and reason else {},
        )
    ]


def load_anli_hf(
    dataset: str = ANLI_HUB_ID,
    *,
    split: str = "dev_r1",
    revision: str | None = None,
    allow_download: bool = False,
) -> list[LogicItem]:
    """One split of ANLI from a Hugging Face dataset id (pinned by ``revision``) or local copy.

    Rows hold ``uid``, ``premise``, ``hypothesis``, ``label`` (0 entailment, 1 neutral,
    2 contradiction) and ``reason``; the ``uid`` is the id, the hypothesis the statement, the
    annotator's reason (when given) is kept in the metadata, and the hypotheses written about
    one premise share a cluster. Without ``allow_download`` only the local cache or a local
    folder is read.
    """
    source = f"{dataset}:{split}"
    rows = hub_rows(dataset, None, split, revision, allow_download)
    items = [_anli_row(row, f"{source}[{i}]")[0] for i, row in enumerate(rows)]
    return _unique(items, source)


def load_anli_jsonl(path: str | Path) -> list[LogicItem]:
    """ANLI's original release (``R1/dev.jsonl`` …) or the hub's rows as JSON lines.

    The premise is ``context`` in the original release and ``premise`` on the hub; labels are
    the letters e, n, c or the hub's 0, 1, 2. Items are as :func:`load_anli_hf` gives them.
    """
    return _json_lines(path, _anli_row)
