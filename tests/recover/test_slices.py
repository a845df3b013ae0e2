"""The TF-IDF-missed slice: a bag-of-words classifier gets keyword answers and misses the rest."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline

from readout_audit._exceptions import InputError
from readout_audit.recover import tfidf_predictions

FALSE, TRUE, UNKNOWN = 0, 1, 2
TRAIN = [
    ("ivo is bright", TRUE),
    ("mia is bright", TRUE),
    ("tom is bright", TRUE),
    ("ivo is dull", FALSE),
    ("mia is dull", FALSE),
    ("tom is dull", FALSE),
    ("ivo may be tall", UNKNOWN),
    ("mia may be tall", UNKNOWN),
    ("tom may be tall", UNKNOWN),
]
HELD_OUT = [
    ("sam is bright", TRUE),  # the keyword gives the answer
    ("sam is dull", FALSE),
    ("sam may be tall", UNKNOWN),
    ("sam is not dull", TRUE),  # "not" and "not dull" were never seen: "dull" says false
    ("sam is not bright", FALSE),
]


def direct_pipeline(texts, labels):
    """The stated settings written out with scikit-learn."""
    vectorizer = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True)
    return make_pipeline(vectorizer, LogisticRegression(C=1.0, max_iter=1000)).fit(texts, labels)


def test_keyword_answers_are_got_and_negated_ones_missed():
    texts, labels = zip(*TRAIN, strict=True)
    eval_texts, gold = zip(*HELD_OUT, strict=True)
    predicted = tfidf_predictions(texts, labels, eval_texts)
    assert predicted.tolist() == [TRUE, FALSE, UNKNOWN, FALSE, TRUE]
    assert (predicted != np.array(gold)).tolist() == [False, False, False, True, True]
    assert np.array_equal(predicted, direct_pipeline(texts, labels).predict(eval_texts))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_corpus_equals_the_direct_pipeline(seed):
    rng = np.random.default_rng(seed)
    words = np.array([f"w{i:02d}" for i in range(40)])
    # each label favours its own third of the vocabulary; words repeat, so sublinear tf matters
    weights = np.ones((3, 40)) + 3 * np.kron(np.eye(3), np.ones(14))[:, :40]
    weights /= weights.sum(axis=1, keepdims=True)

    def corpus(n):
        labels = rng.integers(0, 3, n)
        texts = [" ".join(rng.choice(words, rng.integers(3, 12), p=weights[y])) for y in labels]
        return texts, labels

    (texts, labels), (eval_texts, _) = corpus(150), corpus(80)
    predicted = tfidf_predictions(texts, labels, eval_texts)
    assert np.array_equal(predicted, direct_pipeline(texts, labels).predict(eval_texts))
    assert np.array_equal(predicted, tfidf_predictions(texts, labels, eval_texts))


def test_bad_input_names_the_field():
    texts = [t for t, _ in TRAIN]
    labels = [y for _, y in TRAIN]
    cases = [
        (lambda: tfidf_predictions([*texts[:-1], 3], labels, ["a"]), "'train_texts'.*item 8"),
        (lambda: tfidf_predictions(texts, labels, []), "'eval_texts'"),
        (lambda: tfidf_predictions(texts, labels[:-1], ["a"]), "'train_labels'.*expected 9"),
        (lambda: tfidf_predictions(texts, [3] * 9, ["a"]), "label 3 at row 0"),
        (lambda: tfidf_predictions(texts, [1] * 9, ["a"]), "only label \\[1\\]"),
        (lambda: tfidf_predictions(["a b", "c"], [0, 1], ["a"]), "no words"),
    ]
    for call, message in cases:
        with pytest.raises(InputError, match=message):
            call()
