"""The two logic generators, checked by a solver that reads the generated text back.

``generate_controlled_logic`` and ``generate_paper_logic`` share their splits, templates, label
plan, counterfactual inversion, metadata and argument checks: every test here that takes the
``generator`` fixture runs once on each; the ones marked ``CONTROLLED_ONLY`` check the
controlled-logic design alone. What is specific to the printed design is in
test_paper_logic.py, which reuses the parser and solver below.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from functools import cache
from typing import NamedTuple

import pytest

from readout_audit import InputError, LogicItem
from readout_audit.data import (
    CONTROLLED_SPLITS,
    NONCE_VOCABULARY,
    generate_controlled_logic,
    generate_paper_logic,
)

E, C, P = r"(?P<a>[A-Z][a-z]+)", r"(?P<a>[a-z]+)", r"(?P<b>[a-z]+)"
# (family, kind, pattern): kind fact (entity a is a category b), link (category a is a
# category b), every / no (category a is / is not property b). Written from the paper's
# wording and the module's documented paraphrases, not read from the generator.
SENTENCES = [
    ("canonical", "fact", rf"{E} is a {P}\."),
    ("canonical", "link", rf"Every {C} is a {P}\."),
    ("canonical", "every", rf"Every {C} is {P}\."),
    ("canonical", "no", rf"No {C} is {P}\."),
    ("paraphrased", "fact", rf"{E} belongs to the {P} kind\."),
    ("paraphrased", "fact", rf"{E} counts as one of the {P} things\."),
    ("paraphrased", "fact", rf"Among the {P} things is {E}\."),
    ("paraphrased", "link", rf"All {C} things are {P} things\."),
    ("paraphrased", "link", rf"Anything that is a {C} is also a {P}\."),
    ("paraphrased", "link", rf"Each {C} is a kind of {P}\."),
    ("paraphrased", "every", rf"All {C} things are {P}\."),
    ("paraphrased", "every", rf"Anything that is a {C} is {P}\."),
    ("paraphrased", "every", rf"{E} things are always {P}\."),
    ("paraphrased", "no", rf"No {C} things are {P}\."),
    ("paraphrased", "no", rf"Nothing that is a {C} is {P}\."),
    ("paraphrased", "no", rf"{E} things are never {P}\."),
]
ASKS = [  # (family, pattern) of questions and statements about entity a and property b
    ("canonical", rf"Is {E} {P}\?"),
    ("paraphrased", rf"Is it true that {E} is {P}\?"),
    ("paraphrased", rf"Does {E} have the property of being {P}\?"),
    ("paraphrased", rf"Would {E} be described as {P}\?"),
    ("canonical", rf"{E} is {P}\."),
    ("paraphrased", rf"{E} has the property of being {P}\."),
    ("paraphrased", rf"Being {P} applies to {E}\."),
    ("paraphrased", rf"{E} can be described as {P}\."),
]
POLARITY = {"true": "positive", "false": "negative", "unknown": "none"}
INVERT = {"true": "false", "false": "true", "unknown": "unknown"}


def parse(sentence, patterns):
    """(family, kind, a, b) of the one pattern the sentence matches."""
    found = [
        (family, kind, match["a"], match["b"])
        for family, kind, pattern in patterns
        if (match := re.fullmatch(pattern, sentence))
    ]
    assert len(found) == 1, (sentence, found)
    family, kind, a, b = found[0]
    return family, kind, a if kind in ("fact", "ask") else a.lower(), b


@cache
def parse_context(context):
    """The parsed sentences, in order (cached: every test reads the same contexts back)."""
    return tuple(parse(s, SENTENCES) for s in re.split(r"(?<=\.) ", context))


def parse_ask(text):
    return parse(text, [(family, "ask", pattern) for family, pattern in ASKS])


def solve(rules, entity, prop):
    """(label, the entity's categories in chain order, the P rules reached) by forward chaining."""
    links = {a: b for _, kind, a, b in rules if kind == "link"}
    assert len(links) == sum(kind == "link" for _, kind, _, _ in rules), "a category links twice"
    (start,) = [b for _, kind, a, b in rules if kind == "fact" and a == entity]
    chain = [start]
    while chain[-1] in links:
        chain.append(links[chain[-1]])
    fired = [(k, a) for _, k, a, b in rules if k in ("every", "no") and a in chain and b == prop]
    polarities = {kind for kind, _ in fired}
    assert polarities != {"every", "no"}, "contradictory theory"
    label = "true" if "every" in polarities else "false" if "no" in polarities else "unknown"
    return label, chain, fired


def neutral_theory(item):
    """The sentences without order, template or polarity."""
    return frozenset(
        ("rule" if k in ("every", "no") else k, a, b) for _, k, a, b in parse_context(item.context)
    )


class Generator(NamedTuple):
    name: str
    """Its ``metadata["generator"]``."""
    generate: Callable[..., list[LogicItem]]
    n: int
    """Examples per split in these tests, a third of each label."""

    def splits(self, seed=0):
        return {split: self.generate(split, self.n, seed=seed) for split in CONTROLLED_SPLITS}


CONTROLLED = Generator("controlled-logic", generate_controlled_logic, 300)
PAPER = Generator("paper-logic", generate_paper_logic, 60)


@pytest.fixture(scope="module", params=[CONTROLLED, PAPER], ids=lambda g: g.name)
def generator(request):
    return request.param


@pytest.fixture(scope="module")
def splits(generator):
    """Every split of the generator, made once per module and generator."""
    return generator.splits()


CONTROLLED_ONLY = pytest.mark.parametrize(
    "generator", [CONTROLLED], ids=lambda g: g.name, indirect=True
)
"""Runs a test on the controlled-logic generator alone (sharing its module's splits)."""


def test_labels_are_balanced(generator, splits):
    third = generator.n // 3
    for items in splits.values():
        assert Counter(i.label for i in items) == {"true": third, "false": third, "unknown": third}
    assert Counter(i.label for i in generator.generate("id", 7)) == {
        "true": 3,
        "false": 2,
        "unknown": 2,
    }


def test_the_solver_agrees_with_every_label_depth_and_chain(splits):
    for split, items in splits.items():
        for index, item in enumerate(items):
            rules = parse_context(item.context)
            _, _, entity, prop = parse_ask(item.metadata["question"])
            assert parse_ask(item.statement)[2:] == (entity, prop)
            label, chain, _ = solve(rules, entity, prop)
            assert label == item.label, item.id
            assert len(chain) - 1 == item.depth and chain == item.metadata["chain"], item.id
            assert (item.metadata["entity"], item.metadata["property"]) == (entity, prop)
            assert item.metadata["split"] == split and item.id == f"{split}-{index:04d}"
            # every entity in the theory is consistent about every property
            for _, kind, other, _ in rules:
                if kind == "fact":
                    for prop_word in {b for _, k, _, b in rules if k in ("every", "no")}:
                        solve(rules, other, prop_word)


def test_every_example_has_two_positive_and_two_negative_rules_on_the_query(splits):
    for items in splits.values():
        for item in items:
            rules = parse_context(item.context)
            _, _, entity, prop = parse_ask(item.statement)
            on_p = Counter(kind for _, kind, _, b in rules if kind in ("every", "no") and b == prop)
            assert on_p == {"every": 2, "no": 2}, item.id
            _, chain, fired = solve(rules, entity, prop)
            expected = {"true": [("every", chain[-1])], "false": [("no", chain[-1])]}
            assert fired == expected.get(item.label, []), item.id


def test_depths(splits):
    for split, items in splits.items():
        depths = Counter((i.label, i.depth) for i in items)
        wanted = (3, 4, 5) if split == "depth" else (1, 2)
        assert {d for _, d in depths} == set(wanted)
        for label in ("true", "false", "unknown"):  # each label spread evenly over the depths
            counts = [depths[label, d] for d in wanted]
            assert max(counts) - min(counts) <= 1


def test_lexical_split_uses_only_paraphrases_and_the_others_only_canonical_forms(splits):
    for split, items in splits.items():
        family = "paraphrased" if split == "lexical" else "canonical"
        for item in items:
            forms = {f for f, _, _, _ in parse_context(item.context)}
            forms |= {parse_ask(item.statement)[0], parse_ask(item.metadata["question"])[0]}
            assert forms == {family}, item.id
            assert item.metadata["template_family"] == family


def test_counterfactual_items_invert_their_source_in_order(splits):
    swap = {"every": "no", "no": "every", "fact": "fact", "link": "link"}
    for item in splits["counterfactual"]:
        source = parse_context(item.metadata["source_context"])
        rules = parse_context(item.context)
        assert [(swap[k], a, b) for _, k, a, b in source] == [(k, a, b) for _, k, a, b in rules]
        _, _, entity, prop = parse_ask(item.statement)
        assert solve(source, entity, prop)[0] == item.metadata["source_label"]
        assert item.metadata["source_label"] == INVERT[item.label]


def test_metadata_names_the_generator_and_the_polarity(generator, splits):
    for items in splits.values():
        for item in items:
            assert item.metadata["generator"] == generator.name
            assert item.metadata["polarity"] == POLARITY[item.label]


def test_splits_are_disjoint_and_use_the_shared_vocabulary(generator, splits):
    everything = [i for items in splits.values() for i in items]
    assert len({i.context for i in everything}) == len(everything)
    assert len({neutral_theory(i) for i in everything}) == len(everything)
    other_seed = generator.generate("train", generator.n, seed=1)
    assert not {neutral_theory(i) for i in other_seed} & {neutral_theory(i) for i in everything}
    vocabulary = {word for words in NONCE_VOCABULARY.values() for word in words}
    used = {w for i in everything for _, _, a, b in parse_context(i.context) for w in (a, b)}
    assert used <= vocabulary


@CONTROLLED_ONLY
def test_every_split_uses_the_whole_vocabulary(splits):
    words = {
        split: {w for i in items for _, _, a, b in parse_context(i.context) for w in (a, b)}
        for split, items in splits.items()
    }
    assert all(vocabulary == words["id"] for vocabulary in words.values())
    assert len(words["id"]) == 30 + 12 + 16  # categories, properties, entities


def test_deterministic_per_split_and_seed(generator, splits):
    again = generator.generate("lexical", generator.n, seed=0)
    assert [i.model_dump() for i in again] == [i.model_dump() for i in splits["lexical"]]
    other = generator.generate("lexical", generator.n, seed=1)
    assert [i.context for i in other] != [i.context for i in again]
    assert other[0].metadata["seed"] == 1


@CONTROLLED_ONLY
def test_hand_checked_examples(splits):
    item = splits["id"][0]
    assert item.id == item.cluster == "id-0000"
    assert item.context == (
        "Every tove is a nerk. Every vark is a tove. Every lorp is a fep. No fep is sharp. "
        "No frell is sharp. No fendle is loud. Every quiv is a grob. Every nerk is sharp. "
        "Pim is a wug. Every wug is a dorb. Fen is a vark. Every crell is a frell. "
        "Every dorb is a fendle. Every nerk is loud. Every grob is sharp."
    )
    # Pim: wug -> dorb -> fendle (two hops); fendle has a rule about loud only, and the four
    # sharp rules sit on fep, frell, grob (decoy links) and nerk (the end of Fen's chain).
    assert (item.statement, item.metadata["question"], item.label, item.depth) == (
        "Pim is sharp.",
        "Is Pim sharp?",
        "unknown",
        2,
    )
    assert item.metadata["chain"] == ["wug", "dorb", "fendle"]
    item = splits["lexical"][0]
    assert item.context == (
        "Sol belongs to the dorb kind. Sarn things are never heavy. Among the fep things is Ivo. "
        "Each lorp is a kind of sarn. Nothing that is a snib is round. Pavo things are never "
        "heavy. Anything that is a grob is heavy. Each dorb is a kind of marn. All fep things "
        "are tazz things. Anything that is a frell is also a grob. Pavo things are always round. "
        "Each vark is a kind of trel. All marn things are pavo things. All trel things are heavy. "
        "Each tazz is a kind of snib."
    )
    # Sol: dorb -> marn -> pavo, and pavo things are never heavy.
    assert (item.statement, item.metadata["question"], item.label, item.depth) == (
        "Sol has the property of being heavy.",
        "Does Sol have the property of being heavy?",
        "false",
        2,
    )


@pytest.mark.parametrize(
    ("arguments", "field", "message"),
    [
        ({"split": "ood"}, "split", "known: train, fit, id, depth, lexical, counterfactual"),
        ({"split": "id", "n": 0}, "n", ">= 1, got 0"),
        ({"split": "id", "n": True}, "n", "got True"),
        ({"split": "id", "seed": -1}, "seed", ">= 0, got -1"),
    ],
)
def test_bad_arguments_name_the_field(generator, arguments, field, message):
    with pytest.raises(InputError, match=message) as caught:
        generator.generate(**arguments)
    assert caught.value.field == field
