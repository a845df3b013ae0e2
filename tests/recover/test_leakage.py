"""The surface leakage audit (Table 8): each row equals its feature group computed directly."""

from __future__ import annotations

import re

import numpy as np
import pytest
from sklearn.feature_extraction import DictVectorizer
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline

from readout_audit._exceptions import InputError
from readout_audit.data import CONTROLLED_SPLITS, NONCE_VOCABULARY, generate_controlled_logic
from readout_audit.data._logic import LABELS
from readout_audit.recover._leakage import LeakageText, surface_leakage, template_only

TRUE, FALSE, UNKNOWN = range(3)
POLARITY = {"true": "positive", "false": "negative", "unknown": "none"}
GROUPS = [
    "full text",
    "query only",
    "facts only",
    "prop-redacted",
    "template only",
    "metadata (no polarity)",
    "metadata (all)",
]


def texts(split, n):
    """Generated items as the audit reads them; polarity from the label where not yet given."""
    return [
        LeakageText(
            item.context,
            item.statement,
            LABELS.index(item.label),
            {"polarity": POLARITY[item.label], **item.metadata},
        )
        for item in generate_controlled_logic(split, n, seed=0)
    ]


@pytest.fixture(scope="module")
def sample():
    return texts("train", 120), {"id": texts("id", 60), "lexical": texts("lexical", 60)}


@pytest.fixture(scope="module")
def table(sample):
    train, evals = sample
    return {row.group: row for row in surface_leakage(train, evals)}


def logistic():
    """``_linear.fit_logistic``'s settings written out."""
    return LogisticRegression(C=1.0, solver="lbfgs", max_iter=1000)


def full(e):
    return f"{e.context}\n{e.statement}"


def redact(e):
    return re.sub(rf"\b{e.metadata['property']}\b", "REDACTED", full(e), flags=re.IGNORECASE)


def blank(text):
    slots = {"entity": "ENTITY", "category": "CATEGORY", "property": "ADJECTIVE"}
    for kind, words in NONCE_VOCABULARY.items():
        for word in words:
            text = re.sub(rf"\b{word}\b", slots[kind], text, flags=re.IGNORECASE)
    return text


def metadata(e, polarity):
    m = e.metadata
    features = {
        "entity": m["entity"],
        "property": m["property"],
        "chain": str(len(m["chain"])),
        "template_family": m["template_family"],
    }
    return {**features, "polarity": m["polarity"]} if polarity else features


def direct(group, train, held_out):
    """Label indices of ``group``'s classifier on the held-out examples, by scikit-learn alone."""
    labels = [e.label for e in train]
    views = {
        "full text": full,
        "query only": lambda e: e.statement,
        "facts only": lambda e: e.context,
        "prop-redacted": redact,
        "template only": lambda e: blank(full(e)),
    }
    if group in views:
        vectorizer = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True)
        model = make_pipeline(vectorizer, logistic()).fit([views[group](e) for e in train], labels)
        return model.predict([views[group](e) for e in held_out])
    polarity = group == "metadata (all)"
    model = make_pipeline(DictVectorizer(), logistic())
    model.fit([metadata(e, polarity) for e in train], labels)
    return model.predict([metadata(e, polarity) for e in held_out])


def test_every_row_equals_its_direct_computation(sample, table):
    train, evals = sample
    assert list(table) == GROUPS
    for group, row in table.items():
        assert row.n == {"id": 60, "lexical": 60}
        for name, held_out in evals.items():
            gold = np.array([e.label for e in held_out])
            expected = float(np.mean(direct(group, train, held_out) == gold))
            assert row.accuracies[name] == expected, (group, name)
    assert table["metadata (all)"].accuracies == {"id": 1.0, "lexical": 1.0}


def test_the_table_is_deterministic(sample, table):
    train, evals = sample
    assert surface_leakage(train, evals) == list(table.values())


def test_polarity_alone_decides_the_label():
    polarity = ["positive", "negative", "none"]
    names = ["ivo", "bex", "dov", "fen"]
    train = [
        LeakageText(f"{n} is here.", f"{n} is {p}.", y, {"polarity": p, "colour": c})
        for y, p in enumerate(polarity)
        for n in names
        for c in ("red", "blue")
    ]
    held_out = [
        LeakageText("sam is here.", "sam is.", y, {"polarity": p}) for y, p in enumerate(polarity)
    ]
    rows = {row.group: row for row in surface_leakage(train, {"new": held_out})}
    assert list(rows) == ["full text", "query only", "facts only", "metadata (all)"]
    assert rows["metadata (all)"].accuracies == {"new": 1.0}
    assert rows["metadata (all)"].n == {"new": 3}


def test_template_only_leaves_the_templates():
    assert template_only("Ivo is a marn. Every marn is bright.") == (
        "ENTITY is a CATEGORY. Every CATEGORY is ADJECTIVE."
    )
    assert template_only("Marn things are never BRIGHT.\nMarnish Ivory Bexes is bright.") == (
        "CATEGORY things are never ADJECTIVE.\nMarnish Ivory Bexes is ADJECTIVE."
    )


def test_no_generated_text_holds_a_placeholder_word():
    words = {"entity", "category", "adjective", "redacted"}
    for split in CONTROLLED_SPLITS:
        for e in texts(split, 30):
            assert not words & set(re.findall(r"\w+", full(e).lower())), split


def test_groups_without_their_fields_are_left_out(sample):
    train, evals = sample
    plain = [LeakageText(e.context, e.statement, e.label, {}) for e in evals["id"]]
    rows = surface_leakage(train, {**evals, "plain": plain})
    assert [row.group for row in rows] == ["full text", "query only", "facts only"]
    assert all(row.n == {"id": 60, "lexical": 60, "plain": 60} for row in rows)
    # a property word but no vocabulary entity: redaction only; no polarity: one metadata row
    named = [
        LeakageText(e.context, e.statement, e.label, {"property": "bright", "entity": "Al"})
        for e in [*train, *evals["id"]]
    ]
    rows = surface_leakage(named[:120], {"id": named[120:]})
    assert [row.group for row in rows] == [
        "full text",
        "query only",
        "facts only",
        "prop-redacted",
        "metadata (no polarity)",
    ]


def test_from_text_splits_at_the_last_newline():
    e = LeakageText.from_text("Ivo is a marn.\nEvery marn is bright.\nIvo is bright.", 0, {})
    assert (e.context, e.statement) == ("Ivo is a marn.\nEvery marn is bright.", "Ivo is bright.")
    assert full(e) == "Ivo is a marn.\nEvery marn is bright.\nIvo is bright."


def test_bad_input_names_the_field(sample):
    train, evals = sample
    unlabelled = LeakageText("a b", "c d", None, {})
    cases = [
        (lambda: surface_leakage([], evals), "'train'.*at least one"),
        (lambda: surface_leakage([*train, unlabelled], evals), "'train'.*item 120 has no label"),
        (lambda: surface_leakage(train, evals, k=2), "'train'.*label 2 at row"),
        (lambda: surface_leakage(train, evals, k=1), "'k'"),
        (lambda: surface_leakage(train[:1] * 5, evals), "'train'.*only label"),
        (lambda: surface_leakage(train, {}), "'evals'"),
        (lambda: surface_leakage(train, {"id": []}), "\"evals\\['id'\\]\".*at least one"),
        (lambda: surface_leakage(train, {"id": [unlabelled]}), "evals\\['id'\\].*no label"),
        (lambda: surface_leakage(train, {"id": ["a\nb"]}), "item 0 is str"),
        (lambda: LeakageText.from_text("no newline", 0, {}), "'text'"),
        (lambda: LeakageText("a", "b", True, {}), "'label'"),
        (lambda: LeakageText("a", None, 0, {}), "'statement'"),
        (lambda: LeakageText("a", "b", 0, None), "'metadata'"),
    ]
    for call, message in cases:
        with pytest.raises(InputError, match=message):
            call()
