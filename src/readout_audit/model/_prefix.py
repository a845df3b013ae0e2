"""Which token prefixes a batch of contexts shares, so that each is encoded once.

Prefixes are compared as token ids, never as text, so a shared prefix always ends on a token
boundary of every context below it. Each context keeps at least its last token for the batch's
own forward, which reads its next-token distribution.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Literal, get_args

PrefixSharing = Literal["auto", "on", "off"]
PREFIX_SHARING: tuple[str, ...] = get_args(PrefixSharing)
"""Whether shared prefixes are encoded once; ``auto`` chooses by device: :func:`shares_prefixes`."""

MIN_SHARED_TOKENS = 16
"""Shortest prefix worth a forward of its own: below it, encoding the tokens again per context
costs less than one more pass over the weights."""


@dataclass(frozen=True)
class PrefixPlan:
    """The prefixes to encode (each after its parent) and each context's shared depth."""

    nodes: list[tuple[int, ...]]
    """Shared prefixes, shortest first: every node's parent comes before it."""
    parents: list[int | None]
    """Index in ``nodes`` of the longest node that is a prefix of each node (None: none)."""
    depths: list[int]
    """Per context: the length of its prefix read from ``nodes`` (0: none)."""


def shares_prefixes(setting: str, device_type: str) -> bool:
    """Whether a model on ``device_type`` encodes shared prefixes once under ``setting``.

    ``auto`` shares on the CPU, where a forward costs its tokens (an options ladder x1.49 and an
    MMLU 5-shot run x3.58 faster), and not on an accelerator, where a forward costs its launches
    and sharing's extra forwards and copies made a ladder x0.48 and an MMLU run x0.95.
    """
    if setting not in PREFIX_SHARING:
        raise ValueError(f"prefix sharing is one of {', '.join(PREFIX_SHARING)}, got {setting!r}")
    return setting == "on" or (setting == "auto" and device_type == "cpu")


def shared_length(a: Sequence[int], b: Sequence[int]) -> int:
    """How many leading tokens ``a`` and ``b`` share."""
    n = min(len(a), len(b))
    return next((i for i in range(n) if a[i] != b[i]), n)


def plan_prefixes(
    contexts: Sequence[tuple[int, ...]],
    min_tokens: int = MIN_SHARED_TOKENS,
    limits: Sequence[int] | None = None,
    known: Sequence[tuple[int, ...]] = (),
) -> PrefixPlan:
    """Each context's longest prefix shared with another or a ``known`` one, and their branches.

    ``known`` prefixes are already encoded (the previous batch's). A prefix is kept when at
    least ``min_tokens`` long; it is one token short of its context at most, or ``limits[i]``
    tokens long for context ``i``. Sorted by token ids, a context's longest prefix shared with
    any other sequence is shared with a neighbour.
    """
    if limits is None:
        limits = [len(context) - 1 for context in contexts]
    keyed = [*contexts, *known]
    order = sorted(range(len(keyed)), key=keyed.__getitem__)
    depths = [0] * len(contexts)
    for a, b in pairwise(order):
        shared = shared_length(keyed[a], keyed[b])
        for i in (a, b):
            if i < len(contexts):
                depths[i] = max(depths[i], min(shared, limits[i]))
    depths = [d if d >= min_tokens else 0 for d in depths]
    wanted = {contexts[i][:d] for i, d in enumerate(depths) if d}
    ranked = sorted(wanted)
    for first, second in pairwise(ranked):
        shared = shared_length(first, second)
        if shared >= min_tokens:
            wanted.add(first[:shared])
    nodes = sorted(wanted, key=len)
    index = {node: k for k, node in enumerate(nodes)}
    lengths = sorted({len(node) for node in nodes}, reverse=True)
    parents = [
        next((index[node[:n]] for n in lengths if n < len(node) and node[:n] in index), None)
        for node in nodes
    ]
    return PrefixPlan(nodes, parents, depths)


FAMILY_TOKENS = 64
"""Leading tokens two contexts must share to be batched together as one family (a few-shot
block, an item's ladder rungs, a judge's instruction): more than a chat template's opening."""


def execution_order(contexts: Sequence[Sequence[int]], family: int = FAMILY_TOKENS) -> list[int]:
    """The order to score contexts in: families sharing a long prefix together, shortest first.

    Contexts sorted by their token ids fall into runs whose neighbours share at least
    ``family`` leading tokens; each run is kept together (so one batch encodes its prefix once
    and the next batch finds it cached) and ordered by length, as are the contexts that share
    no such prefix, so similar lengths still pad least. Equal contexts stay adjacent.
    """
    keyed = [tuple(c) for c in contexts]
    lexical = sorted(range(len(keyed)), key=keyed.__getitem__)
    runs: list[list[int]] = []
    for index in lexical:
        if runs and shared_length(keyed[runs[-1][-1]], keyed[index]) >= family:
            runs[-1].append(index)
        else:
            runs.append([index])

    def by_length(index: int) -> tuple[int, tuple[int, ...]]:
        return len(keyed[index]), keyed[index]

    families = [sorted(run, key=by_length) for run in runs if len(run) > 1]
    families.sort(key=lambda run: by_length(run[0]))
    singles = sorted((run[0] for run in runs if len(run) == 1), key=by_length)
    return [i for run in families for i in run] + singles


TAIL_SLACK = 1.25
"""Padded positions allowed per real one when contexts' remainders are batched together."""


def tail_groups(tails: Sequence[int], slack: float = TAIL_SLACK) -> list[list[int]]:
    """Rows grouped by the length of what remains after their shared prefix, shortest first.

    Each group's padded forward computes at most ``slack`` times its real tokens.
    """
    groups: list[list[int]] = []
    current: list[int] = []
    total = 0
    for row in sorted(range(len(tails)), key=tails.__getitem__):
        if current and (len(current) + 1) * tails[row] > slack * (total + tails[row]):
            groups.append(current)
            current, total = [], 0
        current.append(row)
        total += tails[row]
    if current:
        groups.append(current)
    return groups
