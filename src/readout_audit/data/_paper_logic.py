"""The controlled-logic benchmark as printed (seed 003, Appendix B): one entity, one chain.

What the paper prints is one depth-2 example labelled true, "Ivo is a marn. Every marn is a
pavo. Every joto is bright. No wug is bright. Every pavo is a joto. Every joto is fragile. No
dax is bright. Every sarn is bright. Question: Is Ivo bright? Answer: true (chain: marn → pavo
→ joto → bright)", and the rule that every label comes with two positive and two negative
rules about the queried property. This generator follows that design:

* one entity, a member of a chain of ``depth + 1`` categories (a membership fact and
  ``depth`` category links: marn → pavo → joto is depth 2);
* exactly four rules about the queried property P, two "Every X is P." and two "No X is P.":
  for true, "Every <chain end> is P." and one positive and two negative rules on bare
  categories (wug, dax, sarn: categories named nowhere else); for false, "No <chain end> is
  P." and two positive and one negative on bare categories; for unknown, all four on bare
  categories, none on the chain;
* one rule "Every <chain end> is Q." about a second property Q;

``depth + 6`` shuffled sentences in all, 8 at depth 2 as printed. Where the paper is silent
this generator chooses:

1. Depth counts category-to-category hops, as the printed "depth-2" example does.
2. The unknown design (four rules on bare categories) and the false design (the mirror of the
   printed true one); the paper prints a true example only.
3. The words: one entity, P, Q and the categories drawn without replacement from the
   controlled-logic generator's vocabulary (``NONCE_VOCABULARY``), so bare categories occur
   exactly once; the Q rule is positive in every source theory, as printed.
4. Splits, templates, the label plan, the counterfactual inversion (every property rule, Q's
   too) and the metadata are the controlled-logic generator's (see
   ``readout_audit.data._controlled_logic``); ``metadata["generator"]`` is "paper-logic".
5. Split ownership hashes a theory's key after the tag "paper-logic", so this generator's
   splits are disjoint from each other, and its ownership independent of the other's.

What the printed design reveals: the label is readable without following the chain. A P rule
on a category named elsewhere exists only for true and false, and it is the one on the Q
rule's category, whose polarity is the label; the controlled-logic generator's decoy links
and second entity are there to close that shortcut.
"""

from __future__ import annotations

import numpy as np

from readout_audit.data._controlled_logic import (
    _CATEGORIES,
    _ENTITIES,
    _PROPERTIES,
    _chain_links,
    _generate,
    _Kind,
    _Sentence,
    _Theory,
)
from readout_audit.data._logic import LogicItem, LogicLabel

_ON_CHAIN: dict[LogicLabel, tuple[_Kind, ...]] = {
    "true": ("every",),
    "false": ("no",),
    "unknown": (),
}
"""The P rule on the chain's end, by label."""
_ON_BARE: dict[LogicLabel, tuple[_Kind, ...]] = {
    "true": ("every", "no", "no"),
    "false": ("every", "every", "no"),
    "unknown": ("every", "every", "no", "no"),
}
"""The P rules on bare categories, by label: with the chain's, two positive and two negative."""


def _draw(rng: np.random.Generator, label: LogicLabel, depth: int) -> _Theory:
    """A theory as printed whose question has ``label``, its chain ``depth`` hops long."""
    entity = _ENTITIES[rng.integers(len(_ENTITIES))]
    prop, other = (_PROPERTIES[i] for i in rng.choice(len(_PROPERTIES), 2, replace=False))
    bare_kinds = _ON_BARE[label]
    count = depth + 1 + len(bare_kinds)
    names = [_CATEGORIES[i] for i in rng.choice(len(_CATEGORIES), count, replace=False)]
    chain, bare = tuple(names[: depth + 1]), names[depth + 1 :]
    sentences: list[_Sentence] = [("fact", entity, chain[0]), *_chain_links(chain)]
    sentences += [(kind, chain[-1], prop) for kind in _ON_CHAIN[label]]
    sentences += [(kind, name, prop) for kind, name in zip(bare_kinds, bare, strict=True)]
    sentences.append(("every", chain[-1], other))
    return _Theory(tuple(sentences), entity, prop, chain)


def generate_paper_logic(split: str, n: int = 1000, seed: int = 0) -> list[LogicItem]:
    """``n`` label-balanced examples of one split of the printed design (module docstring).

    Splits (``CONTROLLED_SPLITS``), determinism, ids, depths and ``metadata`` are those of
    ``generate_controlled_logic``, with ``metadata["generator"]`` "paper-logic"; no theory is
    shared by two splits.
    """
    return _generate(split, n, seed, _draw, generator="paper-logic", salt="paper-logic\n")
