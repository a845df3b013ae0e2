"""Forced-choice logic items (seed 003): a context, a statement, a true/false/unknown label.

Loaders read ProofWriter and FOLIO in the Logic-LLM multiple-choice layout (a JSON array of
``id, context, question, options, answer``) and in their original releases' JSON lines.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

from readout_audit._exceptions import InputError
from readout_audit._util import loads_line
from readout_audit.data._item import IdentifiedItem
from readout_audit.data._jsonl import read_json, read_lines

LogicLabel = Literal["true", "false", "unknown"]
LABELS: tuple[LogicLabel, ...] = ("true", "false", "unknown")
"""The fixed label set, in the order scores are kept."""
_LABEL_WORDS: dict[str, LogicLabel] = {
    "true": "true",
    "false": "false",
    "unknown": "unknown",
    "uncertain": "unknown",  # FOLIO's word for it
}
LOGIC_LLM_QUESTION = re.compile(
    r"^Based on the above information, is the following statement true, false, or "
    r"(?:unknown|uncertain)\?"
    r"\s*(?P<statement>.+)$",
    re.S,
)
_OPTION = re.compile(r"^(?P<letter>[A-Z])\)\s*(?P<word>\S.*)$")


class LogicItem(IdentifiedItem):
    """A statement to judge from a context; ``label`` is None for an unlabelled fit row."""

    context: str
    statement: str
    label: LogicLabel | None = None
    depth: int | None = None
    """Reasoning depth where the source gives it (ProofWriter's QDep, the generator's hops)."""


def _label(word: Any, where: str, item_id: str | None, field: str) -> LogicLabel:
    label = _LABEL_WORDS.get(str(word).strip().lower()) if isinstance(word, str | bool) else None
    if label is None:
        raise InputError(
            f"{word!r} is not true, false, unknown or uncertain",
            source=where,
            item_id=item_id,
            field=field,
        )
    return label


def _text(raw: Mapping[str, Any], field: str, where: str, item_id: str | None) -> str:
    value = raw.get(field)
    if not isinstance(value, str) or not value.strip():
        raise InputError("must be non-empty text", source=where, item_id=item_id, field=field)
    return value


def _logic_llm_item(raw: Any, where: str) -> LogicItem:
    if not isinstance(raw, dict):
        raise InputError(f"expected a JSON object, got {type(raw).__name__}", source=where)
    item_id = str(raw.get("id", "")) or None
    question = _text(raw, "question", where, item_id)
    match = LOGIC_LLM_QUESTION.match(question.strip())
    if match is None:
        raise InputError(
            "does not ask whether a statement is true, false, or unknown",
            source=where,
            item_id=item_id,
            field="question",
        )
    options = raw.get("options")
    letters: dict[str, LogicLabel] = {}
    for option in options if isinstance(options, list) else []:
        parsed = _OPTION.match(str(option).strip())
        if parsed is None:
            raise InputError(
                f"{option!r} is not 'X) word'", source=where, item_id=item_id, field="options"
            )
        letters[parsed["letter"]] = _label(parsed["word"], where, item_id, "options")
    answer = raw.get("answer")
    if answer not in letters:
        raise InputError(
            f"{answer!r} is not one of the options' letters {sorted(letters)}",
            source=where,
            item_id=item_id,
            field="answer",
        )
    theory = re.sub(r"_Q\d+$", "", item_id or "")
    return LogicItem(
        id=item_id or "",
        context=_text(raw, "context", where, item_id),
        statement=match["statement"].strip(),
        label=letters[answer],
        cluster=theory if theory != item_id else None,
    )


def load_logic_llm(path: str | Path) -> list[LogicItem]:
    """ProofWriter or FOLIO as Logic-LLM ships them: one JSON array of multiple-choice items.

    Questions of one ProofWriter theory (ids ``…_Q1``, ``…_Q2``) share a cluster.
    """
    where = str(path)
    data = read_json(path)
    if not isinstance(data, list):
        raise InputError("expected a JSON array of items", source=where)
    return _unique([_logic_llm_item(raw, f"{where}[{i}]") for i, raw in enumerate(data)], where)


def _json_lines(
    path: str | Path, read: Callable[[dict[str, Any], str], list[LogicItem]]
) -> list[LogicItem]:
    items: list[LogicItem] = []
    for number, line in enumerate(read_lines(path), 1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        raw = loads_line(line, source=str(path), line=number)
        if not isinstance(raw, dict):
            raise InputError(f"expected a JSON object, got {type(raw).__name__}", source=where)
        items += read(raw, where)
    return _unique(items, str(path))


def _proofwriter_theory(raw: dict[str, Any], where: str) -> list[LogicItem]:
    theory_id = str(raw.get("id", "")) or None
    context = _text(raw, "theory", where, theory_id)
    questions = raw.get("questions")
    if not isinstance(questions, dict) or not questions:
        raise InputError(
            "must map question ids to questions", source=where, item_id=theory_id, field="questions"
        )
    items = []
    for qid, question in questions.items():
        item_id = f"{theory_id}_{qid}"
        if not isinstance(question, dict):
            raise InputError("must be an object", source=where, item_id=item_id, field="questions")
        depth = question.get("QDep")
        items.append(
            LogicItem(
                id=item_id,
                context=context,
                statement=_text(question, "question", where, item_id),
                label=_label(question.get("answer"), where, item_id, "answer"),
                depth=depth if isinstance(depth, int) else None,
                cluster=theory_id,
            )
        )
    return items


def load_proofwriter_jsonl(path: str | Path) -> list[LogicItem]:
    """ProofWriter's original release: one theory per line with its ``questions``.

    Answers are true, false or "Unknown", ``QDep`` is the proof depth, and the questions of a
    theory share a cluster.
    """
    return _json_lines(path, _proofwriter_theory)


def _folio_example(raw: dict[str, Any], where: str) -> list[LogicItem]:
    item_id = str(raw.get("example_id", raw.get("id", ""))) or where.rsplit(":", 1)[-1]
    premises = raw.get("premises")
    if isinstance(premises, list) and all(isinstance(p, str) for p in premises):
        premises = "\n".join(premises)
    if not isinstance(premises, str) or not premises.strip():
        raise InputError(
            "must be text or a list of sentences", source=where, item_id=item_id, field="premises"
        )
    story = raw.get("story_id")
    return [
        LogicItem(
            id=item_id,
            context=premises,
            statement=_text(raw, "conclusion", where, item_id),
            label=_label(raw.get("label"), where, item_id, "label"),
            cluster=str(story) if story is not None else None,
        )
    ]


def load_folio_jsonl(path: str | Path) -> list[LogicItem]:
    """FOLIO's original release: ``premises``, ``conclusion`` and ``label`` per line.

    Premises are text (a list of sentences in v1), labels True/False/Uncertain, and the
    examples of one story share a cluster.
    """
    return _json_lines(path, _folio_example)


def _unique(items: list[LogicItem], where: str) -> list[LogicItem]:
    seen: set[str] = set()
    for item in items:
        if item.id in seen:
            raise InputError("appears twice", source=where, item_id=item.id, field="id")
        seen.add(item.id)
    return items
