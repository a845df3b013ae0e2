"""The printed-design generator's own design, checked against the paper's example by reading
texts back; what it shares with the controlled-logic generator (splits, labels, templates, the
counterfactual inversion, metadata, arguments) is tested on both in test_controlled_logic.py."""

from __future__ import annotations

from collections import Counter

import pytest
from test_controlled_logic import PAPER, parse_ask, parse_context, solve

from readout_audit.data import NONCE_VOCABULARY, generate_controlled_logic

PRINTED = (  # seed 003, Appendix B, "Example (depth-2, label true)"
    "Ivo is a marn. Every marn is a pavo. Every joto is bright. No wug is bright. "
    "Every pavo is a joto. Every joto is fragile. No dax is bright. Every sarn is bright."
)
PRINTED_DESIGN = {  # P and Q rules as (polarity, where: the chain's end or a bare category)
    "label": "true",
    "depth": 2,
    "sentences": 8,
    "kinds": {"fact": 1, "link": 2, "every": 3, "no": 2},
    "p_rules": [("every", "bare"), ("every", "end"), ("no", "bare"), ("no", "bare")],
    "q_rules": [("every", "end")],
}


def design(rules, entity, prop):
    """Where each rule sits: on the chain's end, elsewhere on the chain, or on a bare category."""
    label, chain, _ = solve(rules, entity, prop)
    mentions = Counter(
        word for _, kind, a, b in rules for word in {"fact": (b,), "link": (a, b)}.get(kind, (a,))
    )
    places = {c: "end" if c == chain[-1] else "chain" if c in chain else "bare" for c in mentions}
    # a bare category is named exactly once: in its own rule, linked to nothing
    assert all(mentions[c] == 1 for c, place in places.items() if place == "bare")
    entities = {a for _, kind, a, _ in rules if kind == "fact"}
    assert entities == {entity}, "one entity"
    return {
        "label": label,
        "depth": len(chain) - 1,
        "sentences": len(rules),
        "kinds": dict(Counter(kind for _, kind, _, _ in rules)),
        "p_rules": sorted(
            (k, places[a]) for _, k, a, b in rules if k in ("every", "no") and b == prop
        ),
        "q_rules": sorted(
            (k, places[a]) for _, k, a, b in rules if k in ("every", "no") and b != prop
        ),
    }


def item_design(item):
    _, _, entity, prop = parse_ask(item.statement)
    return design(parse_context(item.context), entity, prop)


def expected_design(label, depth, *, inverted=False):
    """The printed design generalised to every label and depth (polarities flipped if asked)."""
    on_chain = {"true": [("every", "end")], "false": [("no", "end")], "unknown": []}
    bare = {
        "true": ["every", "no", "no"],
        "false": ["every", "every", "no"],
        "unknown": ["every", "every", "no", "no"],
    }
    p_rules = on_chain[label] + [(k, "bare") for k in bare[label]]
    q_rules = [("no" if inverted else "every", "end")]
    return {
        "label": label,
        "depth": depth,
        "sentences": depth + 6,
        "kinds": {"fact": 1, "link": depth, "every": 2 + (not inverted), "no": 2 + inverted},
        "p_rules": sorted(p_rules),
        "q_rules": q_rules,
    }


@pytest.fixture(scope="module")
def splits():
    return PAPER.splits()


def test_the_printed_example_has_the_printed_design():
    assert design(parse_context(PRINTED), "Ivo", "bright") == PRINTED_DESIGN
    assert expected_design("true", 2) == PRINTED_DESIGN
    # the printed chain's end is not one of the generator's words
    assert "joto" not in {word for words in NONCE_VOCABULARY.values() for word in words}


def test_every_depth_2_true_item_reproduces_the_printed_design(splits):
    chosen = [i for i in splits["id"] if i.label == "true" and i.depth == 2]
    assert len(chosen) == 10
    assert all(item_design(item) == PRINTED_DESIGN for item in chosen)


def test_every_item_has_the_printed_design_for_its_label_and_depth(splits):
    for split, items in splits.items():
        for item in items:
            source_label = item.metadata.get("source_label", item.label)
            inverted = split == "counterfactual"
            assert item_design(item) == expected_design(item.label, item.depth, inverted=inverted)
            if inverted:
                source = item.model_copy(update={"context": item.metadata["source_context"]})
                assert item_design(source) == expected_design(source_label, item.depth)


def test_metadata_has_the_controlled_keys_and_the_polarity_of_the_chain_rule(splits):
    controlled = generate_controlled_logic("counterfactual", 6)
    paper = splits["counterfactual"][:6]
    assert [set(i.metadata) for i in paper] == [set(i.metadata) for i in controlled]
    for items in splits.values():
        for item in items:
            # the polarity is the one of the P rule on the chain (after any inversion)
            on_chain = [k for k, place in item_design(item)["p_rules"] if place == "end"]
            assert on_chain == {"positive": ["every"], "negative": ["no"]}.get(
                item.metadata["polarity"], []
            )
