"""Yes/no readouts (seed 002): tokenizer-derived token sets, max-logit rules, string parsing."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from readout_audit.readout._options import OptionEncoding

Answer = Literal["yes", "no"]
YES_FORMS = ("yes", "Yes", "YES", " yes", " Yes", " YES")
NO_FORMS = ("no", "No", "NO", " no", " No", " NO")
LLAMA_PAIR = (3582, 1217)
"""The legacy two-token readout's ids: LLaMA-2's ``yes`` and ``no``."""
LLAMA_SET = ((3582, 8241, 4874, 3869), (1217, 3782, 694, 1939))
"""The legacy eight-token sets: LLaMA-2's yes, Yes, ' yes', ' Yes' and no, No, ' no', ' No'."""
_WORD = re.compile(r"\b(yes|no)\b", re.IGNORECASE)


@dataclass(frozen=True)
class TokenSets:
    """The yes and no token ids a readout compares, and the forms that could not join them."""

    yes: tuple[int, ...]
    no: tuple[int, ...]
    multi_token: tuple[tuple[str, tuple[int, ...] | None], ...] = ()
    """Declared forms that are not one token after the prompt, with their tokens (None where
    the form merges with the prompt's last token)."""

    def __post_init__(self) -> None:
        shared = set(self.yes) & set(self.no)
        if shared:
            raise ValueError(f"token id(s) {sorted(shared)} are in both the yes and the no set")

    @property
    def ids(self) -> tuple[int, ...]:
        """Every id of both sets, sorted."""
        return tuple(sorted({*self.yes, *self.no}))

    def extended(self, yes: Iterable[int] = (), no: Iterable[int] = ()) -> TokenSets:
        """These sets with more ids added (as the new-model diagnostic may)."""
        return TokenSets(
            yes=tuple(dict.fromkeys((*self.yes, *yes))),
            no=tuple(dict.fromkeys((*self.no, *no))),
            multi_token=self.multi_token,
        )


def sets_from_encodings(
    encodings: Sequence[OptionEncoding], answers: Sequence[Answer]
) -> TokenSets:
    """Keep the forms that are exactly one token after the rendered prompt; report the rest."""
    yes: dict[int, None] = {}
    no: dict[int, None] = {}
    multi = []
    for encoding, answer in zip(encodings, answers, strict=True):
        tokens = encoding.token_ids
        if tokens is not None and len(tokens) == 1:
            (yes if answer == "yes" else no)[tokens[0]] = None
        else:
            multi.append((encoding.option, tokens))
    return TokenSets(yes=tuple(yes), no=tuple(no), multi_token=tuple(multi))


def max_logit_decision(logprobs: Mapping[int, float | None], sets: TokenSets) -> Answer | None:
    """ŷ = yes iff max over Y of ℓ > max over N of ℓ (strict: a tie reads no), seed 002.

    Log-probabilities at one position differ from logits by a shared constant, so the rule is
    the same. None when either set is empty or a partial distribution lacks all of a set's ids.
    """
    best = {}
    for name, ids in (("yes", sets.yes), ("no", sets.no)):
        values = [v for i in ids if (v := logprobs.get(i)) is not None]
        if not values:
            return None
        best[name] = max(values)
    return "yes" if best["yes"] > best["no"] else "no"


@dataclass(frozen=True)
class ParsedAnswer:
    """The first yes/no word of a generated text and where it was found."""

    answer: Answer | None
    """The first standalone ``yes`` or ``no`` (any case), or None if the text has neither."""
    offset: int | None
    """Character offset of that word in the text."""
    in_first_token: bool
    """Whether the word starts inside the first generated token (where Theorem 1 holds)."""

    @property
    def decision(self) -> Answer:
        """The parse as a yes/no decision: POPE's convention reads an unparsed text as yes."""
        return self.answer or "yes"


def parse_yes_no(text: str, first_token_chars: int) -> ParsedAnswer:
    """String parsing as POPE-style harnesses do it: the first yes/no word of the decoded text.

    ``first_token_chars`` is the length of the first generated token's decoded text; a word
    found after it means the text did not begin at the answer token.
    """
    match = _WORD.search(text)
    if match is None:
        return ParsedAnswer(answer=None, offset=None, in_first_token=False)
    word = match.group(1).lower()
    return ParsedAnswer(
        answer="yes" if word == "yes" else "no",
        offset=match.start(),
        in_first_token=match.start() < first_token_chars,
    )
