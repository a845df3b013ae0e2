"""Judge sources: a numeric question, its accepted references, its evidence and its cluster."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict, Field

_NUMBER = re.compile(r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|[-+]?\.\d+", re.ASCII)
"""A plain decimal in ASCII digits, optionally with thousands commas (``1,600``); no units,
fractions, exponents."""
MAX_REFERENCE = 1e15
"""The largest reference magnitude: a float holds 15 digits exactly, and 400 digits are inf."""


def parse_number(text: str) -> float | None:
    """The number a reference text states (``"1,600"`` → 1600.0), or None.

    None too for a number of magnitude :data:`MAX_REFERENCE` or more: no finite reference.
    """
    stripped = text.strip()
    if _NUMBER.fullmatch(stripped) is None:
        return None
    value = float(stripped.replace(",", ""))
    return value if abs(value) < MAX_REFERENCE else None


def normalise_question(text: str) -> str:
    """A question's comparison key: NFKC, case-folded, every run of non-alphanumerics one space."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return re.sub(r"[\W_]+", " ", folded).strip()


class Source(BaseModel):
    """One question of a numeric workload with its accepted reference values."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1)
    """Dataset-prefixed: ``gsm8k:17`` (0-based row of the test split), ``drop:<query_id>``."""
    dataset: str
    cluster: str
    """The declared cluster (DROP's passage ``section_id``; a GSM8K problem is its own)."""
    question: str
    references: tuple[float, ...] = Field(min_length=1)
    """The accepted reference values, finite, in the dataset's order without repeats; the
    first is the correct earlier value X of every candidate."""
    evidence: str
    """GSM8K: the worked solution without its ``#### N`` line; DROP: the passage."""
    normalised_question: str
    """:func:`normalise_question` of the question, for exclusions."""


@dataclass(frozen=True)
class SourceBank:
    """Every usable source of one dataset read from one place, and what was skipped."""

    dataset: str
    sources: list[Source]
    rows: int
    """Rows read (sources plus skipped)."""
    skipped: dict[str, int] = field(default_factory=dict)
    """Rows left out, by reason (DROP: ``no_numeric_reference``)."""
