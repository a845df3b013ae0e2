"""The typed record written for every scored item × variant."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field

from readout_audit.prompt._render import RenderedContext
from readout_audit.readout._classes import PTrueClass, TokenClass
from readout_audit.readout._continuation import ContinuationClass, letter_pull, read_continuation
from readout_audit.readout._position import PositionReadout

RECORD_SCHEMA_VERSION = 2
UPGRADABLE_VERSIONS = (1,)
"""Older record versions that ``read_run`` reads by upgrading each line to this version."""


class ScoreRecord(RenderedContext, PositionReadout):
    """One line of ``records.jsonl``: the item, its rendering and everything read there.

    Field meanings are documented in ``docs/records.md``; ``schema_version`` changes whenever a
    field changes meaning or is removed.
    """

    model_config = ConfigDict(extra="forbid")

    schema_version: int = RECORD_SCHEMA_VERSION
    item_id: str
    variant: str
    """Prompt variant scored: ``production`` (no stem) or ``stem`` (answer stem prefilled)."""
    options: list[str]
    target: str | float | bool | None = None
    cluster: str
    """Resampling cluster (the item id when the item names none)."""
    metadata: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def upgraded(cls, raw: dict[str, Any]) -> dict[str, Any]:
        """A record line of an older version in this version's fields.

        Version 2 changed only the constrained-option audit's fields, so other kinds' lines
        are unchanged.
        """
        return {**raw, "schema_version": RECORD_SCHEMA_VERSION}

    def predicted_option(self) -> str | None:
        """The option with the highest full-option log-likelihood, or None if any is unscored."""
        if any(lp is None for lp in self.option_logprobs):
            return None
        scores = [lp for lp in self.option_logprobs if lp is not None]
        return self.options[max(range(len(scores)), key=scores.__getitem__)]

    def matches_target(self, option: str) -> bool:
        """Whether an option is the record's target (as text, or as a number)."""
        target = self.target
        if isinstance(target, str):
            return option.strip() == target.strip()
        if isinstance(target, float | int) and not isinstance(target, bool):
            try:
                return float(option) == float(target)
            except ValueError:
                return False
        return False

    def choice_correct(self) -> bool | None:
        """Whether the log-likelihood choice is the target; None without a target or a choice."""
        if self.target is None or isinstance(self.target, bool):
            return None
        chosen = self.predicted_option()
        return None if chosen is None else self.matches_target(chosen)


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


class PTrueRecord(ScoreRecord):
    """A record of the P(True) audit: one (question, answer) pair under one readout."""

    readout: str
    """library, plain, renormalised, labels_in_place, moved or deleted."""
    answer: str
    """The answer judged (the model's own greedy answer unless the item supplied one)."""
    correct: bool
    """The answer's correctness against the item's gold labels."""
    confidence: float | None
    """The readout's confidence: log P(True) for library, plain and deleted, else a
    renormalised probability of True (or of its label A)."""
    removed_mass: float | None = None
    """library and deleted: the end-of-sequence probability lm-polygraph's first step removes."""
    item_letters: list[str] = Field(default_factory=lambda: ["A", "B", "C", "D"])
    """The quoted item's own letters (for the argmax class)."""
    argmax_class: PTrueClass | None = None
    """What holds the position: the readout's option, True/False, a label, an item letter, …"""


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
