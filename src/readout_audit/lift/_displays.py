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
    r"|(?P<verb>\\verb\*?(?P<delim>[^a-zA-Z\s*]))"
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


def tokens(text: str, pos: int = 0) -> Iterator[Token]:
    """The structure tokens of ``text`` from ``pos`` on, verbatim material as single tokens."""
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
            closing = text.find(match.group("delim"), pos)
            if closing >= 0 and "\n" not in text[pos:closing]:
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


def closing_token(text: str, opener: Token) -> tuple[Token | None, bool]:
    """The token closing a display opened by ``opener``, and whether the body draws."""
    depth, graphics = 1, False
    for token in tokens(text, opener.end):
        graphics |= (token.kind == "begin" and token.name in GRAPHICS_ENVS) or (
            token.kind == "word" and token.name in GRAPHICS_COMMANDS
        )
        if opener.kind == "begin" and token.name == opener.name:
            depth += {"begin": 1, "end": -1}.get(token.kind, 0)
            if depth == 0:
                return token, graphics
        elif (opener.kind, token.kind) in {("open", "close"), ("dollars", "dollars")}:
            return token, graphics
    return None, graphics


def is_opener(token: Token) -> bool:
    r"""Whether a token opens a display: a display environment, ``\[`` or ``$$``."""
    return token.kind in ("open", "dollars") or (
        token.kind == "begin" and token.name in DISPLAY_ENVS
    )


def find_displays(text: str) -> list[Display]:
    r"""Every display of a cleaned text in source order; the outermost wins, none overlap.

    A display never closed is not a display (scanning resumes after its opener).
    """
    displays: list[Display] = []
    pos = 0
    while True:
        opener = next((t for t in tokens(text, pos) if is_opener(t)), None)
        if opener is None:
            return displays
        closing, graphics = closing_token(text, opener)
        if closing is None:
            pos = opener.end
            continue
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
        pos = closing.end
