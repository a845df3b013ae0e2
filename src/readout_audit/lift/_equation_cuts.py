r"""Equation-suffix cuts (section 4): slice a display's body at a relation or operator site.

The body is the display's text with ``\label{..}`` and ``\tag{..}`` removed, lines
right-stripped and leading and trailing blank lines dropped. ``prefix + target`` is that body;
``cut_offset`` and ``target_end`` are the cleaned-text offsets of the target's first and
(one past) last characters, so ``equation_body`` of ``text[cut_offset:target_end]`` is the target.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from readout_audit.lift._cut import Cut
from readout_audit.lift._displays import Display, find_displays
from readout_audit.lift._select import CutSettings, PaperStats, context_before, finish, new_cut
from readout_audit.lift._sources import TexPaper
from readout_audit.lift._tex import escaped

RELATIONS = (
    ":=", "=", "<", ">",
    r"\le", r"\leq", r"\ge", r"\geq", r"\approx", r"\simeq", r"\sim", r"\cong", r"\equiv",
    r"\propto", r"\in", r"\to", r"\rightarrow", r"\Rightarrow", r"\longrightarrow",
    r"\Longrightarrow", r"\mapsto",
)  # fmt: skip
"""The relations and operators a cut may follow; a command name must end at a non-letter."""

_RELATION = re.compile(
    "|".join(
        re.escape(r) + ("(?![a-zA-Z@])" if r.startswith("\\") else "")
        for r in sorted(RELATIONS, key=len, reverse=True)
    )
)
_LABEL_OR_TAG = re.compile(r"\\(?:label|tag\*?)\s*\{")
_NO_SIGN_AFTER = set("_^\\{([")


def without_labels(raw: str, offset: int) -> list[tuple[str, int]]:
    r"""Characters of ``raw`` with their text offsets, ``\label{..}`` and ``\tag{..}`` left out."""
    kept: list[tuple[str, int]] = []
    pos = 0
    while (match := _LABEL_OR_TAG.search(raw, pos)) is not None:
        kept += [(c, offset + i) for i, c in enumerate(raw[pos : match.start()], pos)]
        depth, pos, after_backslash = 1, match.end(), False
        while pos < len(raw) and depth:
            if not after_backslash:
                depth += {"{": 1, "}": -1}.get(raw[pos], 0)
            after_backslash = not after_backslash and raw[pos] == "\\"
            pos += 1
    return kept + [(c, offset + i) for i, c in enumerate(raw[pos:], pos)]


def equation_body(raw: str, offset: int = 0) -> tuple[str, list[int]]:
    """A display's body as the cut rule reads it, and each character's offset in the text.

    ``raw`` is the text between the delimiters and ``offset`` where it starts.
    """
    lines: list[list[tuple[str, int]]] = [[]]
    for char, at in without_labels(raw, offset):
        if char == "\n":
            lines[-1].append((char, at))
            lines.append([])
        else:
            lines[-1].append((char, at))
    stripped = []
    for line in lines:
        newline = line[-1:] if line and line[-1][0] == "\n" else []
        content = line[: len(line) - len(newline)]
        while content and content[-1][0].isspace():
            content.pop()
        stripped.append((content, newline))
    while stripped and not stripped[0][0]:
        stripped.pop(0)
    while stripped and not stripped[-1][0]:
        stripped.pop()
    if stripped:
        stripped[-1] = (stripped[-1][0], [])
    chars = [pair for content, newline in stripped for pair in (*content, *newline)]
    return "".join(c for c, _ in chars), [at for _, at in chars]


def sites(body: str) -> list[tuple[int, str]]:
    r"""Every cut site of a body: (position after the operator and its whitespace, operator).

    Relations anywhere; ``+``/``-`` at brace depth <= 1, not first, not after ``_^\{([``.
    """
    found: dict[int, str] = {}

    def add(end: int, operator: str) -> None:
        while end < len(body) and body[end].isspace():
            end += 1
        found.setdefault(end, operator)

    for match in _RELATION.finditer(body):
        if not escaped(body, match.start()):
            add(match.end(), match.group())
    depth = 0
    for i, char in enumerate(body):
        if char in "{}" and not escaped(body, i):
            depth += 1 if char == "{" else -1
        elif char in "+-" and i > 0 and depth <= 1 and body[i - 1] not in _NO_SIGN_AFTER:
            add(i + 1, char)
    return sorted(found.items())


def cut_display(
    paper: TexPaper, display: Display, settings: CutSettings
) -> tuple[Cut | None, str | None]:
    """The display's cut, or None and the reason it has none (see :data:`REASONS`)."""
    if display.start < settings.min_context:
        return None, "context"
    if display.graphics:
        return None, "graphics"
    raw = paper.text[display.body_start : display.body_end]
    body, offsets = equation_body(raw, display.body_start)
    length = len(body)
    low, high = length // 3, math.ceil(2 * length / 3)
    middle = [(pos, op) for pos, op in sites(body) if low <= pos <= high and pos < length]
    if not middle:
        return None, "no_site"
    middle.sort(key=lambda site: (abs(site[0] - length / 2), site[0]))
    for pos, operator in middle:
        if settings.min_target <= length - pos <= settings.max_target:
            cut = new_cut(
                paper,
                "equation",
                f"eq{display.index}",
                env=display.env,
                opening=display.opening,
                closing=display.closing,
                operator=operator,
                display_start=display.start,
                cut_offset=offsets[pos],
                target_end=offsets[-1] + 1,
                context=context_before(paper.text, display.start, settings),
                prefix=body[:pos],
                target=body[pos:],
            )
            return cut, None
    short = length - middle[0][0] < settings.min_target
    return None, "target_short" if short else "target_long"


def cut_equations(
    paper: TexPaper, settings: CutSettings | None = None
) -> tuple[list[Cut], PaperStats]:
    """A paper's equation-suffix cuts (at most one per display, ``per_paper`` per paper)."""
    settings = settings or CutSettings()
    displays = find_displays(paper.text)
    rejected: Counter[str] = Counter()
    cuts = []
    for display in displays:
        cut, reason = cut_display(paper, display, settings)
        if cut is None:
            rejected[str(reason)] += 1
        else:
            cuts.append(cut)
    return finish(paper, len(displays), cuts, rejected, settings)
