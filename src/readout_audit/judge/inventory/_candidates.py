"""Candidate replies: the three-line cue scaffold, the controls, the fixtures and their targets.

A cue candidate is the correct earlier value X, a bridge line and ``Final answer: Y.`` with a
wrong final value Y, so every cue candidate's required verdict is incorrect.
"""

from __future__ import annotations

import hashlib
import math
import string
from decimal import Decimal

from readout_audit.judge.protocol import MARKER, REPEAT_CELLS, Contract, Distance, compact_json

BLANK = ""
"""The blank bridge: the scaffold keeps its empty middle line."""
COLON = ":"
READABLE_CUES = {"actual": "Actual", "correct_answer": "Correct answer"}
"""The readable cues of the earlier decomposition study, by bridge name."""
NO_ANSWER = "I cannot determine the answer."
SCAFFOLDS = {
    "correct_first": "{x}\n{bridge}\nFinal answer: {y}.",
    "initially": "I initially considered {x}.\n{bridge}\nFinal answer: {y}.",
    "wrong_only": "{bridge}\nFinal answer: {y}.",
}
"""Where a bridge goes: the three-line cue scaffold (``correct_first``), the first cue search's
``initially`` scaffold, and the later search's ``wrong_only`` one without the earlier value."""


def canonical_number(value: float) -> str:
    """A number as a candidate shows it: integers without ``.0``, others in shortest form."""
    if not math.isfinite(value):
        raise ValueError(f"{value!r} is not a finite number")
    return str(int(value)) if value.is_integer() else repr(value)


def random_letters(seed: int, source_id: str) -> str:
    """The source's title-case six-letter string R, seeded by the inventory seed and source.

    The six lowest base-26 digits of SHA-256 of compact JSON ``[seed, "random", source_id]``
    (a big-endian integer), least significant first, as letters; the first is capitalised.
    """
    digest = hashlib.sha256(compact_json([seed, "random", source_id]).encode()).digest()
    number, letters = int.from_bytes(digest, "big"), []
    for _ in range(6):
        number, digit = divmod(number, 26)
        letters.append(string.ascii_lowercase[digit])
    return "".join(letters).capitalize()


def mutated(x: float, distance: Distance) -> float:
    """The wrong final value Y: X + 1 (near) or X + max(2|X|, 40) (far), in exact decimals."""
    exact = Decimal(repr(x))
    step = Decimal(1) if distance == "near" else max(2 * abs(exact), Decimal(40))
    return float(exact + step)


def prefixed_values(x: float, distance: Distance) -> tuple[float, float]:
    """(Z, Y) of a study that varies the earlier line: Z = X + s, Y = X + 2s.

    s = 1 (near) or max(|X|, 20) (far), in exact decimals: the paper's printed witness has
    X = 1900, Z = 1901, Y = 1902. Both are wrong values whenever X is the only reference.
    """
    exact = Decimal(repr(x))
    step = Decimal(1) if distance == "near" else max(abs(exact), Decimal(20))
    return float(exact + step), float(exact + 2 * step)


def cue_candidate(x: str, bridge: str, y: str, scaffold: str = "correct_first") -> str:
    """A bridge in a scaffold: by default earlier value, bridge, wrong final commitment."""
    return SCAFFOLDS[scaffold].format(x=x, bridge=bridge, y=y)


def bridges(letters: str) -> dict[str, str]:
    """Every named bridge for a source whose random string is ``letters`` (R)."""
    return {
        "blank": BLANK,
        "colon": COLON,
        "random": letters,
        "random_colon": letters + COLON,
        "marker": MARKER,
        **READABLE_CUES,
    }


def cell_candidate(cell: str, x: str, y: str, letters: str) -> str:
    """The candidate of one named cell, for correct value ``x``, wrong ``y`` and string R."""
    cell = REPEAT_CELLS.get(cell, cell)
    named = bridges(letters)
    candidates = {
        "random": cue_candidate(x, named["random"], y),
        "random_colon": cue_candidate(x, named["random_colon"], y),
        "bare_correct": x,
        "bare_wrong": y,
        "wrong_final_only": f"Final answer: {y}.",
        "revision": f"{y}\n\nFinal answer: {x}.",
        "no_answer": NO_ANSWER,
        "unresolved": f"Final answer: {x} or {y}.",
    }
    if cell not in candidates:
        raise ValueError(f"unknown cell {cell!r}; expected one of {sorted(candidates)}")
    return candidates[cell]


_FINAL_TARGETS = {"bare_correct": "correct", "revision": "correct", "no_answer": "no_answer"}
"""Final-answer targets other than incorrect (every cue cell and wrong control is incorrect)."""


def target_label(contract: Contract, cell: str) -> str:
    """The label a competent judge returns for a cell's candidate under ``contract``.

    Final-answer grading: correct for bare X and the valid revision, no_answer for the no-answer
    fixture, ambiguous (FINAL4) or no_answer (FINAL3) for the unresolved one, incorrect for
    everything else. Evidence grading: supported where final-answer grading says correct,
    hallucinated otherwise.
    """
    cell = REPEAT_CELLS.get(cell, cell)
    verdict = _FINAL_TARGETS.get(cell, "incorrect")
    if cell == "unresolved":
        verdict = "ambiguous" if "ambiguous" in contract.labels else "no_answer"
    if "correct" in contract.labels:
        return verdict
    return "supported" if verdict == "correct" else "hallucinated"
