r"""TeX cleaning as the lift paper's cutter reads a source: comments, ``\iffalse`` blocks, body.

Every offset of a cut indexes the text :func:`clean_tex` returns, so this is the one place that
defines it: ``%`` comments stripped (a ``%`` after an odd run of backslashes is the escaped
``\%``; ``\\%`` starts a comment), lines right-stripped, ``\iffalse ... \fi`` removed, and only
the document body kept.
"""

from __future__ import annotations

import re

from readout_audit.lift._displays import tokens

_IF = re.compile(r"\\(?:iffalse|if(?!f(?![a-zA-Z@])|thenelse)[a-zA-Z@]*|fi)(?![a-zA-Z@])")
_BEGIN_DOCUMENT = r"\begin{document}"


def escaped(text: str, index: int) -> bool:
    r"""Whether the character at ``index`` follows an odd run of backslashes (``\%``, ``\{``)."""
    run = 0
    while index - run > 0 and text[index - run - 1] == "\\":
        run += 1
    return run % 2 == 1


def strip_comment(line: str) -> str:
    r"""One line without its ``%`` comment and trailing whitespace."""
    start = 0
    while (index := line.find("%", start)) >= 0:
        if not escaped(line, index):
            return line[:index].rstrip()
        start = index + 1
    return line.rstrip()


def strip_comments(text: str) -> str:
    """Every line without its comment, right-stripped (CRLF and CR read as line ends)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return "\n".join(strip_comment(line) for line in lines)


def remove_iffalse(text: str) -> str:
    r"""The text without ``\iffalse ... \fi`` blocks (conditionals nested inside them counted).

    ``\iff`` (the relation) and ``\ifthenelse`` (which ends with no ``\fi``) are not
    conditionals; an ``\iffalse`` never closed hides the rest of the text, as in TeX.
    """
    out: list[str] = []
    kept_from = 0
    depth = 0
    for match in _IF.finditer(text):
        word = match.group()
        if depth == 0:
            if word == r"\iffalse":
                out.append(text[kept_from : match.start()])
                depth = 1
            continue
        depth += -1 if word == r"\fi" else 1
        if depth == 0:
            kept_from = match.end()
    if depth:
        kept_from = len(text)
    out.append(text[kept_from:])
    return "".join(out)


def document_body(text: str) -> str:
    r"""The text between ``\begin{document}`` and ``\end{document}`` when they are present.

    An ``\end{document}`` shown inside ``verbatim`` or ``\verb`` (as manuals do) is not the end.
    """
    begin = text.find(_BEGIN_DOCUMENT)
    if begin >= 0:
        text = text[begin + len(_BEGIN_DOCUMENT) :]
    end = next((t.start for t in tokens(text) if t.kind == "end" and t.name == "document"), None)
    return text if end is None else text[:end]


def clean_tex(text: str) -> str:
    r"""The cleaned text every cut offset indexes: comments, ``\iffalse`` blocks, preamble gone."""
    return document_body(remove_iffalse(strip_comments(text)))
