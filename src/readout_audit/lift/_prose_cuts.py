r"""Prose/TeX cuts (section 7): split a paper between balanced TeX blocks.

A block is a paragraph: text between blank lines that lie outside every environment, brace
group and ``\[..\]``/``$$..$$`` display (a display or a list is inside one block). Layout
environments that only wrap the text (``spacing``, ``doublespace``, ...) are transparent: a body
set inside one still has its paragraphs. A cut is the start of a block; the target is the
following whole blocks while they fit ``max_target`` characters. When the first block alone is
longer, the target is its first ``max_target`` characters, so the target's end may fall inside
an environment; the cut point never does. Targets never overlap: a block inside the target of
the cut before it starts no cut.
"""

from __future__ import annotations

import bisect
from collections import Counter

from readout_audit.lift._cut import Cut
from readout_audit.lift._displays import find_displays, tokens
from readout_audit.lift._select import CutSettings, PaperStats, context_before, finish, new_cut
from readout_audit.lift._sources import TexPaper

LAYOUT_ENVIRONMENTS = frozenset(
    {
        "spacing",
        "doublespace",
        "doublespacing",
        "onehalfspace",
        "onehalfspacing",
        "singlespace",
        "singlespacing",
        "linenumbers",
        "sloppypar",
        "raggedright",
        "flushleft",
        "flushright",
        "multicols",
        "multicols*",
    }
)
"""Environments that only set how the text inside is laid out: not blocks of their own."""


def groups(text: str) -> list[tuple[int, int]]:
    r"""Spans of closed environments, brace groups and ``\[..\]``/``$$..$$`` displays, merged.

    An ``\end`` closes the nearest open environment of its name (ones opened after it stay
    unclosed); an environment or brace never closed, or a stray closer, is not a group: manuals
    quote ``\begin{aligned}`` in short-verbatim ``|..|`` spans this reader does not know.
    Linear: each name keeps the places of its open environments on the shared stack, and a
    place the stack has since been cut below is dropped when met.
    """
    spans = [(d.start, d.end) for d in find_displays(text) if d.env in (r"\[", "$$")]
    envs: list[int] = []  # the starts of the open environments, innermost last
    places: dict[str, list[tuple[int, int]]] = {}  # name: (place on envs, start), in order
    braces: list[int] = []
    for token in tokens(text):
        if token.kind in ("begin", "end") and token.name in LAYOUT_ENVIRONMENTS:
            continue  # a wrapper: its paragraphs are blocks
        if token.kind == "begin":
            places.setdefault(token.name, []).append((len(envs), token.start))
            envs.append(token.start)
        elif token.kind == "end":
            mine = places.get(token.name, [])
            while mine and (mine[-1][0] >= len(envs) or envs[mine[-1][0]] != mine[-1][1]):
                mine.pop()  # closed meanwhile with an environment opened before it
            if mine:
                place, start = mine.pop()
                spans.append((start, token.end))
                del envs[place:]
        elif token.kind == "brace" and token.name == "{":
            braces.append(token.start)
        elif token.kind == "brace" and braces:
            spans.append((braces.pop(), token.end))
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def blocks(text: str) -> list[tuple[int, int]]:
    """(start, end) of every block, in source order; separators are blank lines outside groups."""
    merged = groups(text)
    starts = [start for start, _ in merged]
    found: list[tuple[int, int]] = []
    start = 0
    for token in tokens(text):
        if token.kind != "blank":
            continue
        i = bisect.bisect_right(starts, token.start) - 1
        if i >= 0 and token.start < merged[i][1]:
            continue
        if text[start : token.start].strip():
            found.append((start, token.start))
        start = token.end
    if text[start:].strip():
        found.append((start, len(text.rstrip())))
    return [(s + len(text[s:e]) - len(text[s:e].lstrip()), e) for s, e in found]


def target_end(spans: list[tuple[int, int]], first: int, limit: int) -> int:
    """Where the target from block ``first`` ends: whole blocks within ``limit`` characters."""
    start = spans[first][0]
    end = min(spans[first][1], start + limit)
    for index in range(first + 1, len(spans)):
        if spans[index][1] - start > limit:
            break
        end = spans[index][1]
    return end


def cut_prose(paper: TexPaper, settings: CutSettings | None = None) -> tuple[list[Cut], PaperStats]:
    """A paper's prose/TeX cuts, one per qualifying block start, at most ``per_paper``."""
    settings = settings or CutSettings(kind="prose")
    spans = blocks(paper.text)
    rejected: Counter[str] = Counter()
    cuts: list[Cut] = []
    for index, (start, _) in enumerate(spans):
        if start < settings.min_context:
            rejected["context"] += 1
            continue
        target = paper.text[start : target_end(spans, index, settings.max_target)]
        if len(target) < settings.min_target:
            rejected["target_short"] += 1
            continue
        if cuts and start < cuts[-1].target_end:
            rejected["target_overlap"] += 1
            continue
        cuts.append(
            new_cut(
                paper,
                "prose",
                f"block{index}",
                display_start=start,
                cut_offset=start,
                target_end=start + len(target),
                context=context_before(paper.text, start, settings),
                prefix="",
                target=target,
            )
        )
    return finish(paper, len(spans), cuts, rejected, settings)
