"""lm-polygraph's P(True) number: the first step of a generate call, not the plain distribution."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from readout_audit.model import TokenDistribution


def first_step_logprob(
    distribution: TokenDistribution, token_id: int, suppressed: Sequence[int]
) -> tuple[float | None, float | None]:
    """(log-probability of ``token_id``, mass removed) as lm-polygraph's generate scores it.

    Its P(True) call passes ``min_new_tokens=1``, so ``transformers`` sets the end-of-sequence
    logits (``suppressed``) to minus infinity at the first step; its sanitizer then gives them
    the row's smallest finite logit before its score hook takes the log-softmax. The plain
    distribution is therefore renormalised over the other tokens. On a partial distribution
    (no smallest logit) the suppressed tokens are removed outright; the two differ by less than
    the smallest token's probability. The removed mass is the suppressed tokens' plain total.
    """
    ids = sorted(set(suppressed))
    if token_id in ids:
        return None, None
    full = distribution.full
    if full is not None:
        logprobs = full.astype(np.float64)
        removed = float(np.exp(logprobs[ids]).sum()) if ids else 0.0
        kept = np.delete(logprobs, ids)
        floor = [kept.min() + np.log(len(ids))] if ids else []
        normaliser = np.logaddexp.reduce(np.concatenate([kept, floor]))
        return float(logprobs[token_id] - normaliser), removed
    known = [distribution.logprob(i) for i in (token_id, *ids)]
    if any(value is None for value in known):
        return None, None
    target, *rest = (float(v) for v in known if v is not None)
    removed = float(np.exp(rest).sum()) if rest else 0.0
    return target - float(np.log1p(-removed)), removed
