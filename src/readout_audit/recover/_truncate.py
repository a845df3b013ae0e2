"""Long items truncated at a token limit, as the paper's runs do (seed 003, Appendix B).

The paper truncates its prompts at 1,024 tokens. Cutting the rendered tokens would drop the
chat template's opening or the answer slot the readouts sit on, so an item too long for the
limit loses the first words of its context instead: the fewest that make the rendered prompt
and its longest candidate fit. The statement, the instruction and the slot stay whole; the
record keeps how many words and tokens were dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from readout_audit._exceptions import InputError
from readout_audit.data import LogicItem
from readout_audit.scoring import PreparedItem

MAX_TOKENS = 1024
"""The paper's token limit (Appendix B, format-matched reruns)."""


def _length(prepared: PreparedItem) -> int:
    longest = max(len(e.token_ids or ()) for e in prepared.encodings)
    return len(prepared.rendering.token_ids) + longest


@dataclass(frozen=True)
class Fitted:
    """An item as scored: its prepared prompt, its (maybe shortened) source, what was dropped."""

    prepared: PreparedItem
    source: LogicItem
    dropped_words: int = 0
    """Words cut from the start of the context."""
    dropped_tokens: int | None = 0
    """Tokens the rendered prompt lost (None when the whole item was beyond the model's window,
    which the tokenizer was not asked to measure)."""


def fit_to_limit(
    source: LogicItem, build: Callable[[LogicItem], PreparedItem], limit: int
) -> Fitted:
    """The item within ``limit`` tokens (prompt plus longest candidate), context cut from the left.

    The fewest leading words are dropped (a binary search over the count: more words dropped
    never lengthens the prompt). An item whose prompt is too long even without a context is
    refused, naming the item and its statement.
    """
    try:
        prepared: PreparedItem | None = build(source)
    except InputError:  # longer than the model's window: cut like any item over the limit
        prepared = None
    if prepared is not None and _length(prepared) <= limit:
        return Fitted(prepared, source)
    words = source.context.split()

    def shortened(dropped: int) -> LogicItem:
        return source.model_copy(update={"context": " ".join(words[dropped:])})

    def fits(dropped: int) -> bool:
        try:
            return _length(build(shortened(dropped))) <= limit
        except InputError:  # beyond the window, in tokens or (not tokenised) in characters
            return False

    if _length(build(shortened(len(words)))) > limit:
        raise source.error(
            f"the prompt exceeds the token limit of {limit} even without its context", "statement"
        )
    low, high = 1, len(words)  # high always fits; find the fewest words dropped that fit
    while low < high:
        middle = (low + high) // 2
        if fits(middle):
            high = middle
        else:
            low = middle + 1
    kept = shortened(low)
    final = build(kept)
    full = len(prepared.rendering.token_ids) if prepared is not None else None
    lost = None if full is None else full - len(final.rendering.token_ids)
    return Fitted(final, kept, dropped_words=low, dropped_tokens=lost)
