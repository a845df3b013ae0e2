"""The printed-design generator, checked against the paper's example by reading texts back."""

from __future__ import annotations

from collections import Counter

import pytest
from test_controlled_logic import parse_ask, parse_context, solve

from readout_audit import (
    CONTROLLED_SPLITS,
    NONCE_VOCABULARY,
    InputError,
    generate_controlled_logic,
    generate_paper_logic,
)

N = 60
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
INVERT = {"true": "false", "false": "true", "unknown": "unknown"}
POLARITY = {"true": "positive", "false": "negative", "unknown": "none"}


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
    return {split: generate_paper_logic(split, N, seed=0) for split in CONTROLLED_SPLITS}


def test_the_printed_example_has_the_printed_design():
    assert design(parse_context(PRINTED), "Ivo", "bright") == PRINTED_DESIGN
    assert expected_design("true", 2) == PRINTED_DESIGN


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


def test_the_solver_agrees_with_every_label_depth_and_chain(splits):
    for split, items in splits.items():
        for item in items:
            _, _, entity, prop = parse_ask(item.metadata["question"])
            assert parse_ask(item.statement)[2:] == (entity, prop)
            label, chain, _ = solve(parse_context(item.context), entity, prop)
            assert label == item.label, item.id
            assert len(chain) - 1 == item.depth and chain == item.metadata["chain"], item.id
            assert (item.metadata["entity"], item.metadata["property"]) == (entity, prop)
            assert item.metadata["split"] == split and item.id == f"{split}-{items.index(item):04d}"


def test_labels_are_balanced_and_depths_cycle(splits):
    for split, items in splits.items():
        assert Counter(i.label for i in items) == {"true": 20, "false": 20, "unknown": 20}
        wanted = (3, 4, 5) if split == "depth" else (1, 2)
        depths = Counter((i.label, i.depth) for i in items)
        assert {d for _, d in depths} == set(wanted)
        for label in ("true", "false", "unknown"):
            counts = [depths[label, d] for d in wanted]
            assert max(counts) - min(counts) <= 1


def test_metadata_names_the_generator_and_the_polarity(splits):
    controlled = generate_controlled_logic("counterfactual", 6)
    paper = splits["counterfactual"][:6]
    assert [set(i.metadata) for i in paper] == [set(i.metadata) for i in controlled]
    for items, generator in ((paper, "paper-logic"), (controlled, "controlled-logic")):
        for item in items:
            assert item.metadata["generator"] == generator
            assert item.metadata["polarity"] == POLARITY[item.label]
    for items in splits.values():
        for item in items:
            assert item.metadata["polarity"] == POLARITY[item.label]
            # the polarity is the one of the P rule on the chain (after any inversion)
            on_chain = [k for k, place in item_design(item)["p_rules"] if place == "end"]
            assert on_chain == {"positive": ["every"], "negative": ["no"]}.get(
                item.metadata["polarity"], []
            )


def test_counterfactual_items_invert_their_source_in_order(splits):
    swap = {"every": "no", "no": "every", "fact": "fact", "link": "link"}
    for item in splits["counterfactual"]:
        source = parse_context(item.metadata["source_context"])
        rules = parse_context(item.context)
        assert [(swap[k], a, b) for _, k, a, b in source] == [(k, a, b) for _, k, a, b in rules]
        _, _, entity, prop = parse_ask(item.statement)
        assert solve(source, entity, prop)[0] == item.metadata["source_label"]
        assert item.metadata["source_label"] == INVERT[item.label]


def test_lexical_split_uses_only_paraphrases_and_the_others_only_canonical_forms(splits):
    for split, items in splits.items():
        family = "paraphrased" if split == "lexical" else "canonical"
        for item in items:
            forms = {f for f, _, _, _ in parse_context(item.context)}
            forms |= {parse_ask(item.statement)[0], parse_ask(item.metadata["question"])[0]}
            assert forms == {family}, item.id
            assert item.metadata["template_family"] == family


def neutral_theory(item):
    """The sentences without order, template or polarity."""
    return frozenset(
        ("rule" if k in ("every", "no") else k, a, b) for _, k, a, b in parse_context(item.context)
    )


def test_splits_are_disjoint_and_use_the_shared_vocabulary(splits):
    everything = [i for items in splits.values() for i in items]
    assert len({i.context for i in everything}) == len(everything)
    assert len({neutral_theory(i) for i in everything}) == len(everything)
    other_seed = generate_paper_logic("train", N, seed=1)
    assert not {neutral_theory(i) for i in other_seed} & {neutral_theory(i) for i in everything}
    vocabulary = {word for words in NONCE_VOCABULARY.values() for word in words}
    used = {w for i in everything for _, _, a, b in parse_context(i.context) for w in (a, b)}
    assert used <= vocabulary and "joto" not in vocabulary


def test_deterministic_per_split_and_seed(splits):
    again = generate_paper_logic("lexical", N, seed=0)
    assert [i.model_dump() for i in again] == [i.model_dump() for i in splits["lexical"]]
    other = generate_paper_logic("lexical", N, seed=1)
    assert [i.context for i in other] != [i.context for i in again]
    assert other[0].metadata["seed"] == 1


def test_bad_arguments_name_the_field():
    with pytest.raises(InputError, match="known: train, fit, id") as caught:
        generate_paper_logic("ood")
    assert caught.value.field == "split"
