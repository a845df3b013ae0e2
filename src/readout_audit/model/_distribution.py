"""The next-token distribution at one scored position, full or partial."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np


class TokenDistribution:
    """Next-token log-probabilities at one position.

    A local backend holds the whole float32 log-probability vector; a served backend that returns
    only its top-k and the requested token ids holds just those. Readouts ask through
    :meth:`logprob`, :meth:`top` and :meth:`argmax`, so they work the same on both.
    """

    def __init__(
        self,
        logprobs: np.ndarray | None = None,
        *,
        known: Mapping[int, float] | None = None,
    ) -> None:
        if (logprobs is None) == (known is None):
            raise ValueError("give exactly one of a full log-probability vector or known entries")
        self._full = None if logprobs is None else np.asarray(logprobs, dtype=np.float32)
        self._known = dict(known) if known is not None else {}

    @property
    def full(self) -> np.ndarray | None:
        """The whole vocabulary's log-probabilities, or None for a partial distribution."""
        return self._full

    @property
    def known_mass(self) -> float | None:
        """Probability held by a partial distribution's known tokens; None for a full one."""
        if self._full is not None:
            return None
        return float(sum(np.exp(v) for v in self._known.values()))

    def logprob(self, token_id: int) -> float | None:
        """Log-probability of ``token_id``, or None where a partial distribution lacks it."""
        if self._full is not None:
            return float(self._full[token_id])
        return self._known.get(token_id)

    def top(self, k: int) -> list[tuple[int, float]]:
        """The ``k`` most probable tokens as (id, log-probability), most probable first.

        Ties are broken by the smaller token id, so the order is deterministic.
        """
        if self._full is None:
            ranked = sorted(self._known.items(), key=lambda pair: (-pair[1], pair[0]))
            return ranked[:k]
        k = min(k, self._full.size)
        candidates = np.argpartition(-self._full, k - 1)[:k]
        # Tokens tied with the k-th value may sit outside the partition; include them all.
        threshold = self._full[candidates].min()
        candidates = np.flatnonzero(self._full >= threshold)
        order = np.lexsort((candidates, -self._full[candidates]))[:k]
        return [(int(candidates[i]), float(self._full[candidates[i]])) for i in order]

    def argmax(self) -> tuple[int, float]:
        """The unrestricted most probable token and its log-probability."""
        return self.top(1)[0]
