"""Yes/no readouts (seed 002): tokenizer-derived token sets, max-logit rules, string parsing."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from readout_audit.model import TextCodec
from readout_audit.readout._options import OptionEncoding

Answer = Literal["yes", "no"]
YES_FORMS = ("yes", "Yes", " yes", " Yes")
"""Seed 002's four yes forms (§3.1, Table 10): the default dynamic set's, as in Listing 1."""
NO_FORMS = ("no", "No", " no", " No")
"""Seed 002's four no forms."""
UPPER_YES_FORMS = ("YES", " YES")
"""Upper-case yes forms the in-context extension adds to the declared ones."""
UPPER_NO_FORMS = ("NO", " NO")
"""Upper-case no forms the in-context extension adds."""
LLAMA_PAIR = (3582, 1217)
"""The legacy two-token readout's ids: LLaMA-2's ``yes`` and ``no``."""
LLAMA_SET = ((3582, 8241, 4874, 3869), (1217, 3782, 694, 1939))
"""The legacy eight-token sets: LLaMA-2's yes, Yes, ' yes', ' Yes' and no, No, ' no', ' No'."""
ParseRule = Literal["substring", "word"]
"""``substring``: the first ``yes`` or ``no`` anywhere, in any case (paper 002, so ``Nothing``
reads no); ``word``: the first standalone yes/no word (this project's stricter option)."""
_PATTERNS: dict[str, re.Pattern[str]] = {
    "substring": re.compile(r"(yes|no)", re.IGNORECASE),
    "word": re.compile(r"\b(yes|no)\b", re.IGNORECASE),
}
_FORM = re.compile(r"[\s\u2581\u0120]*(yes|no)[\s\u2581\u0120]*", re.IGNORECASE)
"""yes or no in any case, with whitespace or word-boundary markers (SentencePiece ▁,
byte-level BPE Ġ) around it."""


@dataclass(frozen=True)
class TokenSets:
    """The yes and no token ids a readout compares, and the forms that could not join them."""

    yes: tuple[int, ...]
    no: tuple[int, ...]
    multi_token: tuple[tuple[str, tuple[int, ...] | None], ...] = ()
    """Declared forms that are not one token, with their tokens (None where, encoded after the
    prompt, the form merges with the prompt's last token)."""

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


def yes_no_form(surface: str) -> Answer | None:
    """The answer a token's surface spells when it is a yes/no form, else None.

    A form is ``yes`` or ``no`` in any case with any whitespace or word-boundary marker around
    it (``Yes``, `` yes``, ``YES``, ``▁Yes``, ``ĠNo``): seed 002's case and space variants.
    """
    match = _FORM.fullmatch(surface)
    return None if match is None else ("yes" if match.group(1).lower() == "yes" else "no")


def sets_from_encodings(
    encodings: Sequence[OptionEncoding], answers: Sequence[Answer]
) -> TokenSets:
    """Keep the forms that are exactly one token; report the rest."""
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


def listing1_sets(codec: TextCodec, yes_forms: Sequence[str], no_forms: Sequence[str]) -> TokenSets:
    """Seed 002's Listing 1: the forms encoded alone, the one-token ones kept by their id.

    Each form is ``tok.encode(form, add_special_tokens=False)`` with no prompt before it; a form
    that is one token joins its set (``enc(s)[0] if len(enc(s)) == 1``), the rest are reported.
    """
    forms = [*yes_forms, *no_forms]
    yes: list[Answer] = ["yes"] * len(yes_forms)
    no: list[Answer] = ["no"] * len(no_forms)
    encodings = [OptionEncoding(form, tuple(codec.encode(form))) for form in forms]
    return sets_from_encodings(encodings, yes + no)


def algorithm1_diagnostic(
    first_tokens: Sequence[int], surfaces: Mapping[int, str], fixed: TokenSets | None
) -> dict[str, Any]:
    """Seed 002's Algorithm 1, lines 7-8, on the first tokens t_k of a sample.

    Every t_k outside Y ∪ N (``fixed``) is ``missing`` (line 7); those whose surface is a yes
    or no form are proposed for Y or N (line 8). A missing token that is no yes/no form has no
    side, so it is only reported. Without fixed sets, the tokens are listed and none proposed.
    """
    emitted = Counter(first_tokens)
    found = {t: {"token": surfaces[t], "form": yes_no_form(surfaces[t])} for t in emitted}
    order = [t for t, _ in emitted.most_common()]
    missing = [] if fixed is None else [t for t in order if t not in fixed.ids]

    def listed(ids: Sequence[int]) -> dict[str, Any]:
        return {str(t): {**found[t], "count": emitted[t]} for t in ids}

    return {
        "Y": list(fixed.yes) if fixed else None,
        "N": list(fixed.no) if fixed else None,
        "emitted": listed(order),
        "missing": listed(missing),
        "proposed_yes": sorted(t for t in missing if found[t]["form"] == "yes"),
        "proposed_no": sorted(t for t in missing if found[t]["form"] == "no"),
    }


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


def parse_yes_no(text: str, first_token_chars: int, rule: ParseRule = "substring") -> ParsedAnswer:
    """String parsing as POPE-style harnesses do it: the first yes/no substring (or word).

    ``first_token_chars`` is the length of the first generated token's decoded text; a match
    found after it means the text did not begin at the answer token.
    """
    match = _PATTERNS[rule].search(text)
    if match is None:
        return ParsedAnswer(answer=None, offset=None, in_first_token=False)
    word = match.group(1).lower()
    return ParsedAnswer(
        answer="yes" if word == "yes" else "no",
        offset=match.start(),
        in_first_token=match.start() < first_token_chars,
    )
