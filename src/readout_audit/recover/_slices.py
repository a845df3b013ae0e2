"""The TF-IDF-missed slice (seed 003, §3 control 1; Appendix C, Table 8 "Full text").

A bag-of-words classifier trained on the labelled training texts; the held-out examples it
gets wrong (``tfidf_predictions(...) != eval_labels``) are the slice that surface word overlap
cannot solve, on which a recovery must still hold.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from readout_audit._exceptions import InputError
from readout_audit.recover._linear import class_labels, fit_logistic, two_classes


def _texts(texts: Sequence[str], field: str) -> list[str]:
    items = list(texts)
    if not items:
        raise InputError("expected at least one text", field=field)
    for i, text in enumerate(items):
        if not isinstance(text, str):
            raise InputError(f"item {i} is {type(text).__name__}, not a string", field=field)
    return items


def tfidf_predictions(
    train_texts: Sequence[str], train_labels: Any, eval_texts: Sequence[str], *, k: int = 3
) -> np.ndarray:
    """Label indices a TF-IDF logistic regression gives the eval texts (deterministic).

    Features: lower-cased word unigrams and bigrams (scikit-learn's default token pattern,
    tokens of two or more word characters), sublinear tf (1 + log tf), idf smoothed, rows
    L2-normalised; the vocabulary is the training texts'. Classifier: multinomial L-BFGS
    logistic regression, C = 1.
    """
    from sklearn.feature_extraction.text import TfidfVectorizer

    train = _texts(train_texts, "train_texts")
    held_out = _texts(eval_texts, "eval_texts")
    labels = class_labels(train_labels, len(train), k, "train_labels")
    two_classes(labels, "train_labels")
    vectorizer = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True)
    try:
        features = vectorizer.fit_transform(train)
    except ValueError as error:  # every training text without a word of two characters
        raise InputError(
            f"no words to build a vocabulary from ({error})", field="train_texts"
        ) from error
    model, _ = fit_logistic(features, labels)
    return np.asarray(model.predict(vectorizer.transform(held_out)), dtype=np.int64)
