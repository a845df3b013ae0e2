"""Declared options encoded as continuations of the rendered context, never in isolation."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from readout_audit.model import TextCodec, TokenDistribution
from readout_audit.prompt import Rendering

MASS_FLOOR = 0.5
"""The diagnostic floor: a median option mass below it is collapse."""


@dataclass(frozen=True)
class OptionEncoding:
    """One option's tokens after the context, or None where the boundary is not preserved."""

    option: str
    token_ids: tuple[int, ...] | None
    """``tok(context + option)[len(tok(context)):]`` when ``tok(context)`` is its prefix."""

    @property
    def boundary_preserved(self) -> bool:
        """Whether the context's tokens are a prefix of the context+option tokens."""
        return self.token_ids is not None

    @property
    def first_id(self) -> int | None:
        """The option's first token in context (None when the boundary is not preserved)."""
        return self.token_ids[0] if self.token_ids else None


def encode_in_context(
    codec: TextCodec, rendering: Rendering, options: Sequence[str]
) -> list[OptionEncoding]:
    """Encode each option as ``tokenize(context + option)`` minus the context's own tokens.

    If the context's tokens are not a prefix of that encoding (the option's first characters
    merge with the context's last token), the option's boundary is not preserved.
    """
    context = list(rendering.text_ids)
    encodings = []
    for option in options:
        whole = rendering.encode_continued(codec, option)
        preserved = len(whole) > len(context) and whole[: len(context)] == context
        tokens = tuple(whole[len(context) :]) if preserved else None
        encodings.append(OptionEncoding(option=option, token_ids=tokens))
    return encodings


def distinct_first_tokens(encodings: Sequence[OptionEncoding]) -> bool | None:
    """Whether every option starts with its own token (None if any boundary is broken)."""
    firsts = [e.first_id for e in encodings]
    if any(first is None for first in firsts):
        return None
    return len(set(firsts)) == len(firsts)


def option_mass_lower(encodings: Sequence[OptionEncoding], dist: TokenDistribution) -> float | None:
    """Σ p(t | c) over the distinct first tokens a partial distribution holds.

    A lower bound of μ(c) where a served top-k lacks some (None when a boundary is not kept).
    """
    firsts = {e.first_id for e in encodings}
    if None in firsts:
        return None
    values = [dist.logprob(t) for t in sorted(t for t in firsts if t is not None)]
    return sum(math.exp(v) for v in values if v is not None)


def option_mass(encodings: Sequence[OptionEncoding], dist: TokenDistribution) -> float | None:
    """μ(c) = Σ p(t | c) over the options' *distinct* first tokens, each counted once.

    None (never 0) when any option's boundary is not preserved, or when a partial distribution
    lacks one of the first tokens.
    """
    firsts = {e.first_id for e in encodings}
    if None in firsts:
        return None
    total = 0.0
    for token_id in sorted(t for t in firsts if t is not None):
        logprob = dist.logprob(token_id)
        if logprob is None:
            return None
        total += math.exp(logprob)
    return total
