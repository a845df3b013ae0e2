"""Log-probabilities no distribution has, found in a served reply before anything reads them.

A server that passed conformance may still misbehave (an echo read one position off, values
above 0, a top-k whose first entry is not the token it generated at temperature 0): such a
reply is refused as a failed request, never recorded as a fact.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from readout_audit.model._served_calls import GreedyReply, ReplyError
from readout_audit.serve import HttpCall


class ImpossibleReply(ReplyError):
    """Replies whose log-probabilities are impossible; ``calls`` are the requests to refuse."""

    def __init__(self, message: str, calls: Sequence[HttpCall]) -> None:
        super().__init__(message)
        self.calls = list(calls)


def check_logprobs(
    values: Iterable[float], what: str, budget: float, calls: Sequence[HttpCall]
) -> None:
    """Each log-probability is at most 0, give or take the float32 ``budget``."""
    highest = max(values, default=-math.inf)
    if highest > budget:
        raise ImpossibleReply(f"{what} holds a log-probability of {highest:.6g}, above 0", calls)


def check_mass(
    values: Sequence[float], what: str, budget: float, calls: Sequence[HttpCall]
) -> None:
    """Log-probabilities of distinct tokens at one position: each ≤ 0, their mass ≤ 1 (+ budget)."""
    check_logprobs(values, what, budget, calls)
    mass = math.fsum(math.exp(v) for v in values)
    if mass > 1 + budget:
        raise ImpossibleReply(f"{what} has a probability mass of {mass:.6g}, above 1", calls)


def check_greedy(reply: GreedyReply, budget: float, call: HttpCall) -> None:
    """A temperature-0 reply's top-k is a distribution whose argmax is the token it generated."""
    check_mass(list(reply.top.values()), "the top-k", budget, [call])
    if reply.token is None or not reply.top:
        return
    best = max(reply.top, key=lambda token: reply.top[token])
    generated = reply.top.get(reply.token)
    if generated is None or generated < reply.top[best] - budget:
        its = "not in it" if generated is None else f"{generated:.6g} against {reply.top[best]:.6g}"
        raise ImpossibleReply(
            f"the greedy token {reply.token!r} is not the top-k's argmax {best!r} ({its})", [call]
        )
