r"""A cut of a technical paper (seed 001): visible context, visible prefix, hidden target Y.

Equation cuts slice a displayed equation at a relation or operator site; prose cuts split the
text between balanced TeX blocks. Offsets index the paper's cleaned text (comments and
``\iffalse`` blocks removed, document body only), whose SHA-256 is recorded, so a cut can be
found again in the source it came from.
"""

from __future__ import annotations

import hashlib
from typing import Literal

from pydantic import BaseModel, ConfigDict

CutKind = Literal["equation", "prose"]


def sha256_text(text: str) -> str:
    """SHA-256 of a string's UTF-8 bytes, as hex."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Cut(BaseModel):
    """One prediction task: the predictor sees ``context`` and ``prefix``; ``target`` is hidden."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    """Unique within a cut file: ``<paper>:<key>``."""
    kind: CutKind
    paper: str
    """The paper's id (its file name without ``.tex``, or the tarball's name); the cluster of
    the paper-clustered standard errors."""
    key: str
    """The equation's key within its paper (``eq<index>`` of the display in source order), or
    the prose block's (``block<index>``); at most one cut per key."""
    source: str
    """The file the text came from (inside a folder or tarball, its relative path)."""
    paper_sha256: str
    """SHA-256 of the paper's cleaned text, which every offset indexes."""
    env: str | None = None
    r"""The display's environment (``align``, ``equation*`` ...; ``\[`` or ``$$`` for the
    bracket and dollar forms); None for a prose cut."""
    opening: str = ""
    r"""The display's opening delimiter as the scaffold writes it (``\begin{align}``)."""
    closing: str = ""
    r"""Its closing delimiter (``\end{align}``), scored after the target."""
    operator: str | None = None
    """The relation or operator the equation was cut after."""
    display_start: int
    """Offset of the display's opening delimiter (the cut itself for prose)."""
    cut_offset: int
    """Offset of the cut: where the hidden target starts."""
    target_end: int
    """Offset where the target ends (the closing delimiter of an equation)."""
    context: str
    """Up to 10,000 characters before the display (before the cut for prose), right-stripped:
    what the predictor reads, and where the recent-context controls come from."""
    prefix: str
    """The visible start of the equation body (empty for prose)."""
    target: str
    """The hidden continuation Y (the rest of the equation body before its closing)."""
    target_sha256: str
    """SHA-256 of ``target``."""
