r"""Displayed equations and TeX structure in a cleaned paper.

One tokenizer reads what the cutters need: ``\begin``/``\end``, ``\[``/``\]``, ``$$``, unescaped
braces, blank lines, and control sequences (so ``\\[2pt]`` is a line break, not a display). It
steps over verbatim-like environments and ``\verb`` spans whole, since package manuals show TeX
source there.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

DISPLAY_ENVS = frozenset(
    name + star
    for name in ("equation", "align", "gather", "multline", "eqnarray")
    for star in ("", "*")
)
VERBATIM_ENVS = frozenset({"verbatim", "verbatim*", "Verbatim", "lstlisting", "minted", "comment"})
GRAPHICS_ENVS = frozenset({"tikzpicture", "tikzcd", "picture"})
GRAPHICS_COMMANDS = frozenset({r"\includegraphics"})

_TOKEN = re.compile(
    r"(?P<env>\\(?P<which>begin|end)\s*\{(?P<name>[^{}\n]*)\})"
    r"|(?P<verb>\\verb\*?(?P<delim>[!-)+-@\[-`{-~]))"
    r"|(?P<open>\\\[)|(?P<close>\\\])"
    r"|(?P<word>\\[a-zA-Z@]+)|(?P<symbol>\\.)"
    r"|(?P<dollars>\$\$)|(?P<brace>[{}])|(?P<blank>\n\n+)",
    re.DOTALL,
)


@dataclass(frozen=True)
class Token:
    """One piece of TeX structure: its kind, span and (for environments) name."""

    kind: str
    """begin, end, open (``\\[``), close (``\\]``), dollars, brace, blank, word or verbatim."""
    start: int
    end: int
    name: str = ""
    """The environment's name, the brace or the control word."""


def tokens(text: str) -> Iterator[Token]:
    r"""The structure tokens of ``text``, verbatim material as single tokens, in linear time.

    A ``\verb`` span ends at its delimiter (printable ASCII, not a letter nor ``*``) on the
    same line. A line's end is found once, and each delimiter's next occurrence is searched
    for from where the last search ended: with at most 41 delimiters, a line of many unclosed
    ``\verb`` spans costs a bounded number of passes over it, not one per span.
    """
    pos, line_end = 0, -1
    # a delimiter's next occurrence on the current line from its last search (else the line end)
    next_delimiter: dict[str, int] = {}
    while (match := _TOKEN.search(text, pos)) is not None:
        start, pos = match.start(), match.end()
        if match.group("env"):
            name = match.group("name").strip()
            if match.group("which") == "begin" and name in VERBATIM_ENVS:
                closing = text.find(rf"\end{{{name}}}", pos)
                pos = len(text) if closing < 0 else closing + len(rf"\end{{{name}}}")
                yield Token("verbatim", start, pos, name)
            else:
                yield Token(match.group("which"), start, pos, name)
        elif match.group("verb"):
            if pos > line_end:
                line_end = text.find("\n", pos)
                line_end = len(text) if line_end < 0 else line_end
                next_delimiter.clear()
            delimiter = match.group("delim")
            closing = next_delimiter.get(delimiter, -1)
            if closing < pos:
                found = text.find(delimiter, pos, line_end)
                closing = line_end if found < 0 else found
                next_delimiter[delimiter] = closing
            if closing < line_end:
                pos = closing + 1
            yield Token("verbatim", start, pos, r"\verb")
        elif match.group("symbol") is None:
            kind = next(
                k for k in ("open", "close", "word", "dollars", "brace", "blank") if match.group(k)
            )
            yield Token(kind, start, pos, match.group())


@dataclass(frozen=True)
class Display:
    """A displayed equation: its delimiters and the span of its body in the cleaned text."""

    index: int
    """Its place among the paper's displays in source order (the cut key is ``eq<index>``)."""
    env: str
    r"""The environment's name, or ``\[`` or ``$$``."""
    start: int
    """Offset of the opening delimiter."""
    body_start: int
    body_end: int
    end: int
    """Offset just after the closing delimiter."""
    graphics: bool
    """Whether the body draws (tikzpicture, tikzcd, picture, ``\\includegraphics``)."""

    @property
    def opening(self) -> str:
        """The opening delimiter as the scaffold writes it."""
        return rf"\begin{{{self.env}}}" if self.env in DISPLAY_ENVS else self.env

    @property
    def closing(self) -> str:
        """The closing delimiter as the scaffold writes it."""
        if self.env in DISPLAY_ENVS:
            return rf"\end{{{self.env}}}"
        return r"\]" if self.env == r"\[" else "$$"


def is_opener(token: Token) -> bool:
    r"""Whether a token opens a display: a display environment, ``\[`` or ``$$``."""
    return token.kind in ("open", "dollars") or (
        token.kind == "begin" and token.name in DISPLAY_ENVS
    )


def _closers(scanned: list[Token]) -> list[int | None]:
    r"""For each opener's index, the index of the token that would close it (else None).

    ``\[`` closes at the next ``\]``, ``$$`` at the next ``$$``, an environment at the ``\end``
    that brings its own name's depth back to zero (a stack per name): one pass each way.
    """
    closers: list[int | None] = [None] * len(scanned)
    following: dict[str, int | None] = {"close": None, "dollars": None}
    for index in range(len(scanned) - 1, -1, -1):
        kind = scanned[index].kind
        if kind == "open":
            closers[index] = following["close"]
        elif kind == "dollars":
            closers[index] = following["dollars"]
        if kind in following:
            following[kind] = index
    open_by_name: dict[str, list[int]] = {}
    for index, token in enumerate(scanned):
        if token.kind == "begin":
            open_by_name.setdefault(token.name, []).append(index)
        elif token.kind == "end" and open_by_name.get(token.name):
            closers[open_by_name[token.name].pop()] = index
    return closers


def _draws(token: Token) -> bool:
    r"""Whether a token draws: a graphics environment or ``\includegraphics``."""
    return (token.kind == "begin" and token.name in GRAPHICS_ENVS) or (
        token.kind == "word" and token.name in GRAPHICS_COMMANDS
    )


def find_displays(text: str) -> list[Display]:
    r"""Every display of a cleaned text in source order; the outermost wins, none overlap.

    A display never closed is not a display (scanning resumes after its opener). Linear in
    the text: one scan, then each opener's closer is looked up, not searched for.
    """
    scanned = list(tokens(text))
    closers = _closers(scanned)
    drawn = [0]  # drawn[i]: tokens before index i that draw
    for token in scanned:
        drawn.append(drawn[-1] + _draws(token))
    displays: list[Display] = []
    index = 0
    while index < len(scanned):
        opener, closer = scanned[index], closers[index]
        if not is_opener(opener) or closer is None:
            index += 1
            continue
        closing = scanned[closer]
        graphics = drawn[closer] > drawn[index + 1]
        displays.append(
            Display(
                len(displays),
                opener.name,
                opener.start,
                opener.end,
                closing.start,
                closing.end,
                graphics,
            )
        )
        index = closer + 1
    return displays
