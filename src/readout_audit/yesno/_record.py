"""The yes/no audit's record: one question, every readout from the same forward pass."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from readout_audit.log import ScoreRecord


class YesNoRecord(ScoreRecord):
    """A record of the yes/no audit: one question, every readout from the same forward pass.

    ``options`` are the declared surface forms (yes forms, then no forms), scored in context
    like any option; ``form_answers`` says which answer each form gives.
    """

    label: Literal["yes", "no"]
    split: str
    image: str | None = None
    form_answers: list[Literal["yes", "no"]]
    first_token_id: int
    """The first generated token (greedy), as the paper recommends logging for every question."""
    first_token: str
    """Its decoded string."""
    yes_ids: list[int]
    """The dynamic yes set (seed 002's Listing 1): yes forms that are one token encoded alone."""
    no_ids: list[int]
    multi_token_forms: list[str]
    """Declared forms that are not one token encoded alone, so not in the dynamic sets."""
    first_token_in_sets: bool
    """Whether the first generated token is in the dynamic yes or no set."""
    legacy_pair: list[int] | None
    """The legacy two-token readout's (yes id, no id), if run."""
    legacy_set: list[list[int]] | None
    """The legacy fixed-id readout's [yes ids, no ids], if run."""
    algorithm1_set: list[list[int]] | None = None
    """Algorithm 1's [Y, N]: the legacy set plus the diagnostic's additions, if extended."""
    in_context_set: list[list[int]] | None = None
    """The in-context extension's [yes ids, no ids]: forms one token after the rendered prompt."""
    set_logprobs: dict[int, float | None]
    """Log-probability of every id any readout compares (dynamic sets and legacy ids)."""
    set_tokens: dict[int, str] = Field(default_factory=dict)
    """The decoded string of every id any readout compares."""
    decisions: dict[str, Literal["yes", "no"] | None]
    """Each readout's answer: legacy_pair, legacy_set, algorithm1, dynamic, dynamic_in_context,
    string_parse (the ones run)."""
    parsed_answer: Literal["yes", "no"] | None
    """The first yes/no word of the greedy text (None: none; string_parse then reads yes)."""
    parse_offset: int | None
    parse_in_first_token: bool
    """Whether that word starts in the first generated token (else the text did not begin at
    the answer, the failure seed 002 found in one harness)."""

    def logit_sets(self) -> dict[str, tuple[list[int], list[int]]]:
        """The (yes ids, no ids) each logit readout of this record compared, by readout."""
        sets: dict[str, tuple[list[int], list[int]]] = {}
        if self.legacy_pair is not None:
            sets["legacy_pair"] = ([self.legacy_pair[0]], [self.legacy_pair[1]])
        for name, pair in (("legacy_set", self.legacy_set), ("algorithm1", self.algorithm1_set)):
            if pair is not None:
                sets[name] = (pair[0], pair[1])
        sets["dynamic"] = (self.yes_ids, self.no_ids)
        if self.in_context_set is not None:
            sets["dynamic_in_context"] = (self.in_context_set[0], self.in_context_set[1])
        return sets
