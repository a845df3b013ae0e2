"""Items named by a source string: a file's layout found from its name or content, or a hub set.

What ``--items`` (and ``--fit``, ``--eval``, ``--shots-from``) accept, as one library call each,
so a notebook reads the same items the command line does.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from readout_audit._exceptions import InputError
from readout_audit._util import decode_json, read_input_text, split_lines
from readout_audit.data._anli import load_anli_hf, load_anli_jsonl
from readout_audit.data._jsonl import load_as, read_lines
from readout_audit.data._logic import (
    LogicItem,
    load_folio_jsonl,
    load_logic_llm,
    load_proofwriter_jsonl,
)
from readout_audit.data._mc import MCItem, load_mc_items, load_mmlu_csv, load_mmlu_hf
from readout_audit.data._polygraph import LIBRARY_SHOTS, polygraph_mmlu_items
from readout_audit.data._qa import QAItem, load_qa_items
from readout_audit.data._race import RACE_REVISION, load_race
from readout_audit.data._yesno import YesNoItem, demo_yesno_items, load_pope, load_yesno_items


def load_mc_source(
    source: str,
    subset: str | None = None,
    split: str | None = None,
    *,
    allow_download: bool = False,
) -> list[MCItem]:
    """Multiple-choice items: JSONL, MMLU's CSV layout, ``hf:`` MMLU or ``race:`` RACE-H.

    ``hf:<dataset-id-or-dir>[@revision]`` reads ``subset`` (all) and ``split`` (test);
    ``race:`` reads the paper's shuffled RACE-H list (test, validation and train in turn).
    """
    prefix, _, rest = source.partition(":")
    dataset, _, revision = rest.partition("@")
    if prefix == "race":
        if split is not None:
            raise InputError(
                "does not apply to race:, which reads test, validation and train in turn",
                field="split",
            )
        return load_race(
            dataset,
            subset or "high",
            revision=revision or RACE_REVISION,
            allow_download=allow_download,
        )
    if prefix == "hf":
        return load_mmlu_hf(
            dataset,
            subset or "all",
            split=split or "test",
            revision=revision or None,
            allow_download=allow_download,
        )
    path = Path(source)
    if path.is_dir() or path.suffix == ".csv":
        return load_mmlu_csv(path)
    return load_mc_items(path)


def _is_mmlu(source: str) -> bool:
    return source.startswith("hf:") or Path(source).is_dir() or source.endswith(".csv")


@dataclass(frozen=True)
class QASource:
    """The QA items a source gives, and what a command should warn about them."""

    items: list[QAItem]
    warnings: tuple[str, ...] = ()


def load_qa_source(
    source: str,
    *,
    shots_from: str | None = None,
    shots: int = LIBRARY_SHOTS,
    allow_download: bool = False,
) -> list[QAItem]:
    """QA JSONL as given, or MMLU (CSV, folder or ``hf:``) in lm-polygraph's layout.

    The ``shots`` examples come from the dev rows of ``shots_from`` (an ``hf:`` source reads
    its own); :func:`read_qa_source` also says when they are rows of the evaluated items.
    """
    return read_qa_source(
        source, shots_from=shots_from, shots=shots, allow_download=allow_download
    ).items


def _row(item: MCItem) -> tuple[str, tuple[str, ...]]:
    return item.question.strip(), tuple(item.choices)


def read_qa_source(
    source: str,
    *,
    shots_from: str | None = None,
    shots: int = LIBRARY_SHOTS,
    allow_download: bool = False,
    limit: int | None = None,
) -> QASource:
    """The first ``limit`` items of :func:`load_qa_source`, warning of few-shot leakage.

    An evaluated MMLU item that is also a row the examples are drawn from (the same id, or
    the same question and choices: ``--shots-from`` naming the items' own file) may be shown
    its own answer; the warning counts such items.
    """
    if not _is_mmlu(source):
        return QASource(load_qa_items(Path(source))[:limit])
    examples: list[MCItem] = []
    if shots > 0:
        if shots_from is None and not source.startswith("hf:"):
            raise InputError(
                "MMLU CSV items need their dev rows for lm-polygraph's examples "
                "(--shots-from), or no examples (--shots 0)",
                field="shots_from",
            )
        examples = load_mc_source(shots_from or source, "all", "dev", allow_download=allow_download)
    items = load_mc_source(source, "all", "test", allow_download=allow_download)
    converted = polygraph_mmlu_items(items, examples, n_shot=shots)[:limit]
    ids, rows = {e.id for e in examples}, {_row(e) for e in examples}
    shared = {item.id for item in items if item.id in ids or _row(item) in rows}
    leaked = sum(item.id in shared for item in converted)
    if not leaked:
        return QASource(converted)
    return QASource(
        converted,
        (
            f"{leaked} of the {len(converted)} evaluated items are also rows the few-shot "
            f"examples are drawn from ({shots_from or source}): an item may be shown with its "
            "own answer (leakage); draw the examples from other rows (MMLU's dev split)",
        ),
    )


def load_yesno_source(source: Path | None, images: Path | None = None) -> list[YesNoItem]:
    """A POPE question file (found by its fields), yes/no JSONL, or the built-in demo set.

    ``None`` reads the demo questions; ``images`` is a vision-language model's image folder.
    """
    if source is None:
        return demo_yesno_items()
    first = next((line for line in split_lines(read_input_text(source)) if line.strip()), "")
    if '"question_id"' in first and '"text"' in first:
        return load_pope(source, images)
    return load_yesno_items(source, images)


def load_logic_file(path: Path) -> list[LogicItem]:
    """Logic items from a file, its layout found from its content.

    A JSON array is Logic-LLM's layout (ProofWriter, FOLIO); JSON lines are ProofWriter's
    theories (``theory``, ``questions``), FOLIO's (``premises``, ``conclusion``), ANLI's
    (``premise``, ``hypothesis``) or this project's items (``context``, ``statement``).
    """
    if path.suffix == ".json":
        return load_logic_llm(path)
    first = next((line for line in read_lines(path) if line.strip()), "")
    try:
        keys = set(decode_json(first)) if first else set()
    except (ValueError, TypeError):  # the loader chosen below names the problem
        keys = set()
    if {"theory", "questions"} <= keys:
        return load_proofwriter_jsonl(path)
    if {"premises", "conclusion"} <= keys:
        return load_folio_jsonl(path)
    if {"premise", "hypothesis"} <= keys:
        return load_anli_jsonl(path)
    return load_as(LogicItem, path)


def _split_of(item: LogicItem) -> str | None:
    split = item.metadata.get("split")
    return split if isinstance(split, str) else None


def load_logic_source(
    source: str, pooled: list[LogicItem] | None = None, *, allow_download: bool = False
) -> list[LogicItem]:
    """A split named by ``source``: of the ``pooled`` items, of ANLI, or a whole file.

    A name among the ``pooled`` items' ``split`` metadata selects them;
    ``anli:[DATASET[@REV]:]SPLIT`` reads ANLI; anything else is a file (:func:`load_logic_file`).
    """
    pooled = pooled or []
    named = [item for item in pooled if _split_of(item) == source]
    if named:
        return named
    if source.startswith("anli:"):
        spec = source.removeprefix("anli:")
        dataset, _, split = spec.rpartition(":")
        name, _, revision = dataset.partition("@")
        return load_anli_hf(
            name or "facebook/anli",
            split=split,
            revision=revision or None,
            allow_download=allow_download,
        )
    path = Path(source)
    if not os.path.lexists(path):  # a link loop or a FIFO is refused by the file's own gate
        known = sorted({s for item in pooled if (s := _split_of(item))})
        hint = f" (splits of --items: {', '.join(known)})" if known else ""
        raise InputError(f"{source!r} is neither a file nor a split{hint}", field="source")
    return load_logic_file(path)


def named_source(source: str) -> tuple[str, str]:
    """``NAME=SOURCE``, or SOURCE named by its split or file stem."""
    name, sep, rest = source.partition("=")
    if sep and name and "/" not in name:
        return name, rest
    stem = Path(source).stem if Path(source).suffix else source.rpartition(":")[2]
    return stem, source
