"""The constrained-option audit's record: one item under one rung of the prompt ladder."""

from __future__ import annotations

from typing import Any

from readout_audit.log import ScoreRecord
from readout_audit.readout import ContinuationClass, TokenClass, letter_pull, read_continuation


class OptionsRecord(ScoreRecord):
    """A record of the constrained-option audit: one item under one rung of the prompt ladder."""

    spec: str
    """The prompt spec (``forecast``, ``answer`` or a user's)."""
    item_letters: list[str]
    """The quoted item's own answer letters."""
    argmax_class: TokenClass
    """Class of the unrestricted argmax: option, answer_letter, whitespace, digit, prose, other."""
    letter_pull: bool
    """The argmax is an item letter and the continuation shows it is the item's answer letter
    (not the article of ``A clever question!`` or the pronoun of ``I think``)."""
    continuation_class: ContinuationClass
    """What the greedy continuation does first: answers_item, gives_option, recites_options,
    recites_prompt, prose or other (seed 000's Table 16)."""
    answer_then_option: bool
    """It answers the item first and a declared option follows (the paper's answer, then grid)."""
    option_anywhere: bool
    """A declared option anywhere outside a recited option list or prompt text (grid anywhere)."""
    letter_anywhere: bool
    """An item letter used as an answer anywhere outside a recited option list."""
    isolated_first_ids: list[int | None]
    """Each option's first token when encoded alone (the misleading isolated reading)."""
    isolated_mass: float | None
    """Mass of the distinct isolated first tokens at the same scored position."""
    mass_argmax_disagree: bool | None
    """The argmax is an option while the options hold under half the mass, or the reverse."""
    readout_choices: dict[str, int | None]
    """Option index chosen by each readout (loglik, acc_norm, acc_bytes, first_token, greedy)."""
    readouts_agree: bool
    """Whether every readout that chose an option chose the same one."""

    @classmethod
    def upgraded(cls, raw: dict[str, Any]) -> dict[str, Any]:
        """A version-1 line with its continuation read again by version 2's rules.

        Version 1 kept neither the quoted question nor the instructions, so an upgraded line
        cannot class a continuation as reciting them (it falls to prose or other).
        """
        text = raw["greedy"]["text"]
        metadata = raw.get("metadata", {})
        recitals = [metadata.get("question", ""), *metadata.get("instructions", [])]
        reading = read_continuation(text, raw["options"], raw["item_letters"], recitals)
        pull = letter_pull(raw["argmax_class"] == "answer_letter", raw["argmax_token"], text)
        return {
            **super().upgraded(raw),
            "continuation_class": reading.continuation_class,
            "answer_then_option": reading.answer_then_option,
            "option_anywhere": reading.option_anywhere,
            "letter_anywhere": reading.letter_anywhere,
            "letter_pull": pull,
        }
