"""Multiple-choice items: JSONL, MMLU's original CSV layout, and MMLU as a hub dataset."""

from __future__ import annotations

import csv
import io
import string
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import field_validator, model_validator

from readout_audit._exceptions import InputError
from readout_audit._util import read_input_text, validate_line
from readout_audit.data._hub import hub_rows
from readout_audit.data._item import IdentifiedItem
from readout_audit.data._jsonl import load_as


class MCItem(IdentifiedItem):
    """A multiple-choice item as a reader sees it: question, lettered choices, answer letter."""

    question: str
    choices: tuple[str, ...]
    """Choice texts in order, lettered A, B, C and so on."""
    answer: str | None = None
    """The gold letter, if known (an integer in the file is the choice's index, from 0)."""
    passage: str | None = None
    """Source text the item is about (the writer of a note sees it; readers do not)."""
    note: str | None = None
    """A short note about the passage, shown to the forecaster and the note-only reader."""

    @field_validator("choices")
    @classmethod
    def _two_or_more_distinct(cls, choices: tuple[str, ...]) -> tuple[str, ...]:
        if len(choices) < 2:
            raise ValueError(f"must list at least two choices, got {len(choices)}")
        if len(choices) > len(string.ascii_uppercase):
            raise ValueError(f"at most 26 choices can be lettered, got {len(choices)}")
        if any(not choice.strip() for choice in choices):
            raise ValueError("every choice must have text")
        return choices

    @model_validator(mode="before")
    @classmethod
    def _answer_index_as_its_letter(cls, raw: Any) -> Any:
        """An integer answer is the choice's index (as the hub's MMLU stores it): its letter."""
        if not isinstance(raw, dict):
            return raw
        answer, choices = raw.get("answer"), raw.get("choices")
        if isinstance(answer, int) and not isinstance(answer, bool) and isinstance(choices, list):
            if not 0 <= answer < min(len(choices), len(string.ascii_uppercase)):
                raise ValueError(
                    f"answer {answer} is not a choice index (0 to {len(choices) - 1}) nor a "
                    "choice letter"
                )
            return raw | {"answer": string.ascii_uppercase[answer]}
        return raw

    @model_validator(mode="after")
    def _answer_is_a_letter_of_the_choices(self) -> MCItem:
        if self.answer is not None and self.answer not in self.letters:
            raise ValueError(
                f"answer {self.answer!r} is not one of the choice letters {', '.join(self.letters)}"
            )
        return self

    @property
    def letters(self) -> tuple[str, ...]:
        """The choice letters, A onwards."""
        return tuple(string.ascii_uppercase[: len(self.choices)])


def load_mc_items(path: str | Path) -> list[MCItem]:
    """Load multiple-choice items from JSONL (``id``, ``question``, ``choices``, ``answer``, …)."""
    return load_as(MCItem, path)


def _csv_rows(file: Path) -> Iterator[tuple[int, int, list[str]]]:
    """(row number, first physical line, fields) of a CSV file; a malformed row names its line.

    Lines count as a text editor shows them (a quoted newline starts a new one); a byte-order
    mark is not text. Malformed: a field over the csv module's limit, a stray NUL.
    """
    text = read_input_text(file).removeprefix("\ufeff")
    rows = csv.reader(io.StringIO(text, newline=""))
    number = 0
    while True:
        start = rows.line_num + 1
        try:
            row = next(rows)
        except StopIteration:
            return
        except csv.Error as error:
            message = f"unreadable CSV ({error})"
            raise InputError(message, source=str(file), line=rows.line_num) from None
        number += 1
        yield number, start, row


def load_mmlu_csv(path: str | Path) -> list[MCItem]:
    """Load MMLU in its original layout: CSV files without header, question,A,B,C,D,answer.

    ``path`` is one ``<subject>_<split>.csv`` file or a folder of them; ids are
    ``<subject>_<split>/<row>`` (the file's name and row, so two files never share an id) and
    the subject is the cluster. Errors name the file and the row's first line.
    """
    path = Path(path)
    files = sorted(path.glob("*.csv")) if path.is_dir() else [path]
    if not files:
        raise InputError("no CSV files found", source=str(path))
    items = []
    for file in files:
        subject = file.stem.rsplit("_", 1)[0]
        for number, line, row in _csv_rows(file):
            if len(row) != 6:
                raise InputError(
                    f"expected 6 columns (question, A, B, C, D, answer), got {len(row)}",
                    source=str(file),
                    line=line,
                )
            item_id = f"{file.stem}/{number}"
            raw = {
                "id": item_id,
                "question": row[0],
                "choices": row[1:5],
                "answer": row[5].strip(),
                "cluster": subject,
                "metadata": {"subject": subject},
            }
            items.append(validate_line(MCItem, raw, source=str(file), line=line, item_id=item_id))
    return items


MMLU_HUB_ID = "cais/mmlu"


def load_mmlu_hf(
    dataset: str = MMLU_HUB_ID,
    subset: str = "all",
    *,
    split: str = "test",
    revision: str | None = None,
    allow_download: bool = False,
) -> list[MCItem]:
    """Load MMLU from a Hugging Face dataset id (pinned by ``revision``) or a local copy of one.

    Rows hold ``question``, ``choices`` (a list) and ``answer`` (the choice index) and, in the
    ``all`` subset, ``subject``; ids are ``<subject>_<split>/<row within the subject>``, the
    same as :func:`load_mmlu_csv` gives for the same rows. MMLU-Pro's rows (``options``, up to ten,
    ``answer`` a letter, ``category``) load the same way, lettered A to the last option.
    Without ``allow_download`` only the local cache or a local folder is read.
    """
    rows = hub_rows(dataset, subset, split, revision, allow_download)
    items = []
    seen: Counter[str] = Counter()
    for row in rows:
        subject = str(row.get("subject") or row.get("category") or subset)
        seen[subject] += 1
        number = seen[subject]
        try:
            choices = list(row["choices"] if "choices" in row else row["options"])
            answer = row["answer"]
            letter = string.ascii_uppercase[answer] if isinstance(answer, int) else answer
            items.append(
                MCItem.model_validate(
                    {
                        "id": f"{subject}_{split}/{number}",
                        "question": row["question"],
                        "choices": choices,
                        "answer": letter,
                        "cluster": subject,
                        "metadata": {"subject": subject},
                    }
                )
            )
        except (KeyError, TypeError, IndexError, ValueError) as error:
            raise InputError(
                f"row {number} is not an MMLU row ({type(error).__name__}: {error})",
                source=f"{dataset}:{subset}/{split}",
                item_id=f"{subject}_{split}/{number}",
            ) from None
    return items
