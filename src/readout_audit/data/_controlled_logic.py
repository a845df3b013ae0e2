"""The controlled-logic benchmark (seed 003, Appendix B): seeded multi-hop deduction on nonce words.

Every example is one theory of shuffled sentences about two entities and one question:

* two entities, each a member of a chain of ``depth + 1`` categories: "Ivo is a marn. Every
  marn is a pavo. Every pavo is a dax." (depth 2: the number of category-to-category hops, as
  in the paper's depth-2 example marn → pavo → joto → bright);
* four rules about the queried property P, always two positive ("Every X is P.") and two
  negative ("No X is P."): one on the end of the first entity's chain, three on the ends of
  three decoy links ("Every wug is a sarn.") that no entity reaches;
* two rules about a second property Q, one on each chain's end, each of random polarity.

The question asks about the first entity (label true or false, by the polarity of the rule on
its chain's end) or about the second (unknown: no P rule is on its chain). Every label thus
sees the same sentence counts, the same 2 + 2 polarity split of P rules and the same graph;
only which entity is asked about and the polarity of one rule decide it, so neither words nor
templates reveal the label. Labels come from forward chaining over the sentences, which is
complete here (positive memberships, rules ending in P or not P, no entity reaches both).

Splits (depth in hops; ``canonical`` and ``paraphrased`` template families):

* ``train``, ``fit``, ``id``: depth 1-2, canonical; the same distribution (probe training rows,
  the offset-fit set, the in-domain test).
* ``depth``: depth 3-5, canonical.
* ``lexical``: depth 1-2; every sentence, the question and the statement in a paraphrased
  template ("All marn things are pavo things."), none in a canonical form.
* ``counterfactual``: a depth 1-2 canonical source theory with every property rule's polarity
  inverted ("Every X is P." ↔ "No X is P.", for P and Q), in the source's sentence order; true
  and false swap, unknown stays. The source's context and label are kept in the metadata.

Each split draws from its own generator ``numpy.random.default_rng([seed, split index])``.
Labels are planned in the order true, false, unknown (depths cycling within each label) and the
plan is shuffled, so counts differ by at most one. Splits are disjoint by construction: a
theory's key (its sentences, order-free, template-free and polarity-free) is hashed with
SHA-256 and a split keeps only keys whose hash is its own index modulo the number of splits,
redrawing the others and its own repeats. No theory (hence no context, nor any polarity
inversion of one) is shared by two splits, of this seed or any other, and a split's content
does not depend on which other splits are generated.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, Literal

import numpy as np

from readout_audit._exceptions import InputError
from readout_audit.data._logic import LABELS, LogicItem, LogicLabel

CONTROLLED_SPLITS = ("train", "fit", "id", "depth", "lexical", "counterfactual")
"""The generator's splits; a split's index here seeds its generator and owns its theories."""

_CATEGORIES = (
    "marn", "pavo", "wug", "dax", "sarn", "mip", "blick", "fep", "zorp", "lorp",
    "nerk", "quiv", "rilt", "slen", "tove", "vark", "yimp", "zib", "glorp", "frell",
    "dorb", "plim", "snib", "trel", "wemb", "grob", "fendle", "crell", "mup", "tazz",
)  # fmt: skip
"""Nonce category nouns, shared by every split."""
_PROPERTIES = (
    "bright", "fragile", "warm", "heavy", "loud", "smooth",
    "bitter", "quick", "round", "soft", "sharp", "quiet",
)  # fmt: skip
"""Property adjectives, shared by every split."""
_ENTITIES = (
    "Ivo", "Bex", "Dov", "Fen", "Gil", "Hap", "Jun", "Kel",
    "Lom", "Nix", "Pim", "Rue", "Sol", "Tam", "Vin", "Wen",
)  # fmt: skip
"""Nonce entity names, shared by every split."""
NONCE_VOCABULARY: dict[str, tuple[str, ...]] = {
    "entity": _ENTITIES,
    "category": _CATEGORIES,
    "property": _PROPERTIES,
}
"""The generators' words by kind: what a template-only view of a generated text blanks out."""

_Kind = Literal["fact", "link", "every", "no"]
_Sentence = tuple[_Kind, str, str]
"""(kind, subject, object): entity is a category, category is a category, category is (not) P."""
_Family = Literal["canonical", "paraphrased"]

_TEMPLATES: dict[_Family, dict[str, tuple[str, ...]]] = {
    "canonical": {
        "fact": ("{a} is a {b}.",),
        "link": ("Every {a} is a {b}.",),
        "every": ("Every {a} is {b}.",),
        "no": ("No {a} is {b}.",),
        "question": ("Is {a} {b}?",),
        "statement": ("{a} is {b}.",),
    },
    "paraphrased": {
        "fact": (
            "{a} belongs to the {b} kind.",
            "{a} counts as one of the {b} things.",
            "Among the {b} things is {a}.",
        ),
        "link": (
            "All {a} things are {b} things.",
            "Anything that is a {a} is also a {b}.",
            "Each {a} is a kind of {b}.",
        ),
        "every": (
            "All {a} things are {b}.",
            "Anything that is a {a} is {b}.",
            "{A} things are always {b}.",
        ),
        "no": (
            "No {a} things are {b}.",
            "Nothing that is a {a} is {b}.",
            "{A} things are never {b}.",
        ),
        "question": (
            "Is it true that {a} is {b}?",
            "Does {a} have the property of being {b}?",
            "Would {a} be described as {b}?",
        ),
        "statement": (
            "{a} has the property of being {b}.",
            "Being {b} applies to {a}.",
            "{a} can be described as {b}.",
        ),
    },
}
_INVERTED: dict[_Kind, _Kind] = {"every": "no", "no": "every", "fact": "fact", "link": "link"}
_INVERTED_LABEL: dict[LogicLabel, LogicLabel] = {
    "true": "false",
    "false": "true",
    "unknown": "unknown",
}
_POLARITY: dict[LogicLabel, str] = {"true": "positive", "false": "negative", "unknown": "none"}
"""The polarity of the P rule on the asked entity's chain, which is what decides the label."""


@dataclass(frozen=True)
class _Theory:
    sentences: tuple[_Sentence, ...]
    entity: str
    prop: str
    chain: tuple[str, ...]
    """The queried entity's categories, its own first: ``depth + 1`` of them."""

    @property
    def key(self) -> str:
        """The sentences without order, template or polarity: what split ownership hashes."""
        neutral = sorted(
            ("rule" if k in ("every", "no") else k, a, b) for k, a, b in self.sentences
        )
        return "\n".join(" ".join(sentence) for sentence in neutral)

    def inverted(self) -> _Theory:
        """Every property rule's polarity flipped, the rest unchanged."""
        flipped = tuple((_INVERTED[k], a, b) for k, a, b in self.sentences)
        return _Theory(flipped, self.entity, self.prop, self.chain)


def _entailed(sentences: tuple[_Sentence, ...], entity: str, prop: str) -> LogicLabel:
    """Whether the sentences make ``entity`` ``prop`` (true), not ``prop`` (false) or neither.

    Forward chaining from the entity's memberships through the category links; a theory that
    gives the entity both is a generator bug.
    """
    reached = {b for k, a, b in sentences if k == "fact" and a == entity}
    frontier = set(reached)
    while frontier:
        frontier = {b for k, a, b in sentences if k == "link" and a in frontier} - reached
        reached |= frontier
    found = {k for k, a, b in sentences if k in ("every", "no") and a in reached and b == prop}
    if found == {"every", "no"}:
        raise RuntimeError(f"the theory makes {entity} both {prop} and not {prop}")
    return "true" if "every" in found else "false" if "no" in found else "unknown"


def _chain_links(chain: tuple[str, ...]) -> list[_Sentence]:
    return [("link", a, b) for a, b in pairwise(chain)]


def _draw(rng: np.random.Generator, label: LogicLabel, depth: int) -> _Theory:
    """A theory whose question has ``label``, its chains ``depth`` hops long."""
    first, second = (_ENTITIES[i] for i in rng.choice(len(_ENTITIES), 2, replace=False))
    prop, other = (_PROPERTIES[i] for i in rng.choice(len(_PROPERTIES), 2, replace=False))
    names = [_CATEGORIES[i] for i in rng.choice(len(_CATEGORIES), 2 * depth + 8, replace=False)]
    asked, unasked = tuple(names[: depth + 1]), tuple(names[depth + 1 : 2 * depth + 2])
    roots, ends = names[2 * depth + 2 : 2 * depth + 5], names[2 * depth + 5 :]
    positive = label == "true" or (label == "unknown" and bool(rng.integers(2)))
    rest: tuple[_Kind, ...] = ("every", "no", "no") if positive else ("every", "every", "no")
    q_kinds: list[_Kind] = ["every" if flip else "no" for flip in rng.integers(2, size=2)]
    sentences: list[_Sentence] = [("fact", first, asked[0]), ("fact", second, unasked[0])]
    sentences += _chain_links(asked) + _chain_links(unasked)
    sentences += [("link", root, end) for root, end in zip(roots, ends, strict=True)]
    sentences.append(("every" if positive else "no", asked[-1], prop))
    sentences += [(kind, end, prop) for kind, end in zip(rest, ends, strict=True)]
    sentences += [(q_kinds[0], asked[-1], other), (q_kinds[1], unasked[-1], other)]
    if label == "unknown":
        return _Theory(tuple(sentences), second, prop, unasked)
    return _Theory(tuple(sentences), first, prop, asked)


_Draw = Callable[[np.random.Generator, LogicLabel, int], _Theory]
"""(rng, label, depth) -> a theory whose question has that label, its chain that many hops."""


def _owned(key: str, split_index: int) -> bool:
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % len(CONTROLLED_SPLITS) == split_index


def _text(template: str, a: str, b: str) -> str:
    return template.format(a=a, A=a.capitalize(), b=b)


@dataclass(frozen=True)
class _Layout:
    """How a theory is written: sentence order and each sentence's template variant."""

    family: _Family
    order: tuple[int, ...]
    variants: tuple[int, ...]
    """One per sentence in construction order, then the question's and the statement's."""

    def variant(self, kind: str, index: int) -> str:
        templates = _TEMPLATES[self.family][kind]
        return templates[self.variants[index] % len(templates)]

    def context(self, theory: _Theory) -> str:
        sentences = theory.sentences
        return " ".join(
            _text(self.variant(sentences[i][0], i), *sentences[i][1:]) for i in self.order
        )

    def ask(self, theory: _Theory) -> tuple[str, str]:
        """(question, statement) about the theory's entity and property."""
        count = len(theory.sentences)
        question = _text(self.variant("question", count), theory.entity, theory.prop)
        return question, _text(self.variant("statement", count + 1), theory.entity, theory.prop)


def _check(split: str, n: int, seed: int) -> int:
    if split not in CONTROLLED_SPLITS:
        raise InputError(
            f"unknown split {split!r}; known: {', '.join(CONTROLLED_SPLITS)}", field="split"
        )
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InputError(f"expected a whole number of examples >= 1, got {n!r}", field="n")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InputError(f"expected a whole number >= 0, got {seed!r}", field="seed")
    return CONTROLLED_SPLITS.index(split)


def _generate(
    split: str, n: int, seed: int, draw: _Draw, *, generator: str, salt: str
) -> list[LogicItem]:
    """``n`` label-balanced examples of one split, each theory drawn by ``draw``.

    The machinery both generators share: the label plan, split ownership (a theory's key is
    hashed after ``salt``), the layout, the counterfactual inversion, the solver's check and
    the metadata (``generator`` names the generator).
    """
    index = _check(split, n, seed)
    rng = np.random.default_rng([seed, index])
    depths = (3, 4, 5) if split == "depth" else (1, 2)
    plan = [(LABELS[i % 3], depths[(i // 3) % len(depths)]) for i in range(n)]
    family: _Family = "paraphrased" if split == "lexical" else "canonical"
    seen: set[str] = set()
    items = []
    for number, slot in enumerate(rng.permutation(n)):
        label, depth = plan[slot]
        source_label = _INVERTED_LABEL[label] if split == "counterfactual" else label
        theory = draw(rng, source_label, depth)
        while theory.key in seen or not _owned(salt + theory.key, index):
            theory = draw(rng, source_label, depth)
        seen.add(theory.key)
        count = len(theory.sentences)
        layout = _Layout(
            family, tuple(rng.permutation(count)), tuple(rng.integers(3, size=count + 2))
        )
        metadata: dict[str, Any] = {}
        if split == "counterfactual":
            metadata = {"source_context": layout.context(theory), "source_label": source_label}
            theory = theory.inverted()
        question, statement = layout.ask(theory)
        if _entailed(theory.sentences, theory.entity, theory.prop) != label:
            raise RuntimeError(f"generated {split} example {number} is not {label}")
        item_id = f"{split}-{number:04d}"
        metadata |= {
            "split": split,
            "seed": seed,
            "question": question,
            "entity": theory.entity,
            "property": theory.prop,
            "chain": list(theory.chain),
            "template_family": family,
            "generator": generator,
            "polarity": _POLARITY[label],
        }
        items.append(
            LogicItem(
                id=item_id,
                cluster=item_id,
                context=layout.context(theory),
                statement=statement,
                label=label,
                depth=depth,
                metadata=metadata,
            )
        )
    return items


def generate_controlled_logic(split: str, n: int = 1000, seed: int = 0) -> list[LogicItem]:
    """``n`` label-balanced examples of one controlled-logic split (see the module docstring).

    Deterministic in (split, n, seed); ids are ``<split>-<number>`` (``lexical-0007``), each
    its own cluster, and ``depth`` the hops. ``metadata`` holds the split, the generator seed,
    the question ("Is Ivo bright?"; ``statement`` is "Ivo is bright."), the entity, the
    property, the chain of categories, the template family, ``generator``
    ("controlled-logic"), ``polarity`` (of the P rule on the asked entity's chain:
    "positive", "negative" or "none", i.e. the label) and, for ``counterfactual``, the source
    theory's ``source_context`` and ``source_label``. Every split, ``fit`` included, carries
    its labels; the protocol decides which it uses.
    """
    return _generate(split, n, seed, _draw, generator="controlled-logic", salt="")
