"""One extension round of the later cue search: parents grown by one token, kept round-robin.

Each parent is extended in each chosen proposal context by its ``next_tokens`` likeliest next
tokens; an extension must be admissible (the proposals' checks, round trip included) and not
already tested. Each parent/context bucket is sorted by decreasing next-token log-probability,
then text, and the buckets are read round-robin (parent order, then context order) until
``per_round`` new strings are kept.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from readout_audit.judge.search._plan import Bridge, Programme
from readout_audit.judge.search._proposals import PROPOSAL_CONTEXTS, context_ids, inadmissible
from readout_audit.model import ScoringModel


def extend_bridges(
    model: ScoringModel,
    parents: Sequence[Bridge],
    tested: Collection[str],
    programme: Programme,
    round_number: int,
) -> list[Bridge]:
    """The round's new bridges, in round-robin order."""
    codec = model.codec
    special = set(codec.tokenizer.all_special_ids)
    prompts = [context_ids(codec, PROPOSAL_CONTEXTS[i]) for i in programme.contexts]
    buckets: list[list[Bridge]] = []
    for parent in parents:
        dists = model.next_token_logprobs([[*prompt, *parent.token_ids] for prompt in prompts])
        for dist in dists:
            bucket = []
            for token, logprob in dist.top(programme.next_tokens):
                ids = (*parent.token_ids, token)
                text = codec.decode(ids)
                if token in special or text in tested or inadmissible(text, ids, codec):
                    continue
                bucket.append(
                    Bridge(
                        text=text,
                        token_ids=ids,
                        origin=f"round {round_number}",
                        logprob=logprob,
                        parent=parent.text,
                    )
                )
            buckets.append(sorted(bucket, key=lambda b: (-(b.logprob or 0.0), b.text)))
    kept: dict[str, Bridge] = {}
    for depth in range(max(map(len, buckets), default=0)):
        for bucket in buckets:
            if len(kept) == programme.per_round:
                return list(kept.values())
            if depth < len(bucket) and bucket[depth].text not in kept:
                kept[bucket[depth].text] = bucket[depth]
    return list(kept.values())
