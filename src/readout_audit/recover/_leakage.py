r"""The surface leakage audit (seed 003, Appendix C, Table 8): what shallow features reveal.

Each row is a feature group, each column a held-out split, each cell the accuracy of a
classifier trained on the labelled training split's examples and applied to that split's. A
cell well above chance says the group's features alone carry the label. Groups:

* ``full text``: the context and the statement, ``f"{context}\n{statement}"``, exactly what the
  recovery run's bag-of-words baseline reads (:func:`tfidf_predictions`: TF-IDF of word uni-
  and bigrams, sublinear tf, logistic regression);
* ``query only``: the statement alone, same classifier;
* ``facts only``: the context alone, same classifier;
* ``prop-redacted``: the full text with the queried property word (``metadata["property"]``)
  replaced, as a whole word and in any case, by :data:`REDACTED`, same classifier;
* ``template only``: the full text with every word of the generators' vocabulary
  (:data:`~readout_audit.data.NONCE_VOCABULARY`) replaced, as a whole word and in any case, by
  its kind's placeholder in :data:`SLOTS`: what is left is the sentence templates, their order
  and their count, same classifier;
* ``metadata (no polarity)``: the metadata's scalar fields one-hot (every value, numbers
  included, is a category; a list such as ``chain`` counts as its length), logistic regression.
  Identity and label-bearing fields are no features: ``split``, ``seed``, ``question``,
  ``generator``, ``source_context``, ``source_label`` and ``polarity``. The item's ``depth`` is
  no field either: a generated item's chain (``depth + 1`` categories) already carries it;
* ``metadata (all)``: the same plus ``polarity``, the polarity of the queried property's rule
  on the asked entity's chain, which decides a generated item's label (accuracy 1 expected).

The two text rewrites need generated items, and a metadata row needs its fields on every
example: a group is left out of the table unless every training and held-out example has what
it reads (a property word for ``prop-redacted``; an entity and property of the vocabulary for
``template only``; at least one feature field, resp. ``polarity``, for the metadata rows).

Why: the controlled-logic generator balances sentence counts, rule polarities and templates
over labels, so the text groups should stay near chance, and the label is one metadata field
away. The paper's metadata baselines are strong (``metadata (all)`` is perfect), which is why
it rests its evidence on the TF-IDF-missed slice and the count-preserving permutation nulls,
not on the generator's balance alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from readout_audit._exceptions import InputError
from readout_audit.data import NONCE_VOCABULARY
from readout_audit.recover._linear import class_labels, fit_logistic, two_classes
from readout_audit.recover._slices import tfidf_predictions

REDACTED = "REDACTED"
"""What the queried property word becomes in the ``prop-redacted`` group."""
SLOTS: dict[str, str] = {"entity": "ENTITY", "category": "CATEGORY", "property": "ADJECTIVE"}
"""What each kind of vocabulary word becomes in the ``template only`` group. "ADJECTIVE", not
"PROPERTY": the paraphrased templates say "has the property of being", and TF-IDF lower-cases."""
NOT_FEATURES = frozenset(
    {"split", "seed", "question", "generator", "source_context", "source_label", "polarity"}
)
"""Metadata fields the metadata groups never read (``metadata (all)`` adds ``polarity``)."""

_SLOT_OF = {word.lower(): SLOTS[kind] for kind, words in NONCE_VOCABULARY.items() for word in words}
_VOCABULARY = re.compile(
    r"\b(?:" + "|".join(re.escape(word) for word in sorted(_SLOT_OF)) + r")\b", re.IGNORECASE
)


@dataclass(frozen=True)
class LeakageText:
    """One labelled example as the audit reads it: text, label index, metadata."""

    context: str
    statement: str
    label: int | None
    """Index in the label order (true, false, unknown); None is refused by the audit."""
    metadata: Mapping[str, Any]

    def __post_init__(self) -> None:
        for name in ("context", "statement"):
            value = getattr(self, name)
            if not isinstance(value, str):
                raise InputError(f"expected text, got {type(value).__name__}", field=name)
        label = self.label
        if label is not None and (
            isinstance(label, bool) or not isinstance(label, int | np.integer)
        ):
            raise InputError(f"expected a label index or None, got {label!r}", field="label")
        if not isinstance(self.metadata, Mapping):
            raise InputError(
                f"expected a mapping, got {type(self.metadata).__name__}", field="metadata"
            )

    @classmethod
    def from_text(cls, text: str, label: int | None, metadata: Mapping[str, Any]) -> LeakageText:
        r"""The example of a recovery record's ``text``, ``f"{context}\n{statement}"``.

        The text is split at its last newline: a context may span lines, a statement does not.
        """
        if not isinstance(text, str):
            raise InputError(f"expected text, got {type(text).__name__}", field="text")
        context, newline, statement = text.rpartition("\n")
        if not newline:
            raise InputError("expected a context, a newline and a statement", field="text")
        return cls(context, statement, label, metadata)


@dataclass(frozen=True)
class LeakageRow:
    """One feature group's accuracy on each held-out split, and the split's size."""

    group: str
    accuracies: dict[str, float]
    n: dict[str, int]


def template_only(text: str) -> str:
    """``text`` with each vocabulary word (whole, any case) replaced by its kind's slot."""
    return _VOCABULARY.sub(lambda match: _SLOT_OF[match.group(0).lower()], text)


def _full(example: LeakageText) -> str:
    """The text the recovery run's bag-of-words baseline reads."""
    return f"{example.context}\n{example.statement}"


def _redacted(example: LeakageText) -> str:
    word = re.compile(rf"\b{re.escape(example.metadata['property'].strip())}\b", re.IGNORECASE)
    return word.sub(REDACTED, _full(example))


def _has_property(example: LeakageText) -> bool:
    word = example.metadata.get("property")
    return isinstance(word, str) and bool(word.strip())


def _generated(example: LeakageText) -> bool:
    """Whether the example names an entity and a property of the generators' vocabulary."""
    metadata = example.metadata
    return (
        metadata.get("entity") in NONCE_VOCABULARY["entity"]
        and metadata.get("property") in NONCE_VOCABULARY["property"]
    )


def _features(example: LeakageText, *, polarity: bool) -> dict[str, str]:
    """The example's metadata features as categories (see the module docstring)."""
    features: dict[str, str] = {}
    for key, value in example.metadata.items():
        if key in NOT_FEATURES:
            continue
        if isinstance(value, list | tuple):
            features[str(key)] = str(len(value))
        elif isinstance(value, str | int | float):
            features[str(key)] = str(value)
    if polarity:
        features["polarity"] = str(example.metadata["polarity"])
    return features


def _examples(items: Sequence[LeakageText], field: str) -> list[LeakageText]:
    examples = list(items)
    if not examples:
        raise InputError("expected at least one example", field=field)
    for i, example in enumerate(examples):
        if not isinstance(example, LeakageText):
            raise InputError(f"item {i} is {type(example).__name__}, not LeakageText", field=field)
        if example.label is None:
            raise InputError(f"item {i} has no label", field=field)
    return examples


def surface_leakage(
    train: Sequence[LeakageText], evals: Mapping[str, Sequence[LeakageText]], *, k: int = 3
) -> list[LeakageRow]:
    """Table 8: each available feature group's accuracy on each held-out split.

    Every classifier is trained on ``train`` (labels in 0..k−1, at least two of them) and
    scored on each split of ``evals``, whose examples must be labelled too. Rows follow the
    module docstring's order; groups whose fields some example lacks are left out.
    Deterministic: TF-IDF and one-hot features, L-BFGS logistic regressions.
    """
    training = _examples(train, "train")
    labels = class_labels([e.label for e in training], len(training), k, "train")
    two_classes(labels, "train")
    if not evals:
        raise InputError("expected at least one held-out split", field="evals")
    held_out = {name: _examples(items, f"evals[{name!r}]") for name, items in evals.items()}
    gold = {
        name: class_labels([e.label for e in items], len(items), k, f"evals[{name!r}]")
        for name, items in held_out.items()
    }
    tested = [e for items in held_out.values() for e in items]
    everything = [*training, *tested]

    def row(group: str, predicted: np.ndarray) -> LeakageRow:
        accuracies: dict[str, float] = {}
        start = 0
        for name, truth in gold.items():
            accuracies[name] = float(np.mean(predicted[start : start + truth.size] == truth))
            start += truth.size
        return LeakageRow(group, accuracies, {name: truth.size for name, truth in gold.items()})

    views: list[tuple[str, Callable[[LeakageText], str]]] = [
        ("full text", _full),
        ("query only", lambda e: e.statement),
        ("facts only", lambda e: e.context),
    ]
    if all(_has_property(e) for e in everything):
        views.append(("prop-redacted", _redacted))
    if all(_generated(e) for e in everything):
        views.append(("template only", lambda e: template_only(_full(e))))
    table = [
        row(
            group,
            tfidf_predictions([view(e) for e in training], labels, [view(e) for e in tested], k=k),
        )
        for group, view in views
    ]
    for group, polarity in (("metadata (no polarity)", False), ("metadata (all)", True)):
        if polarity and any(e.metadata.get("polarity") is None for e in everything):
            continue
        train_features = [_features(e, polarity=polarity) for e in training]
        test_features = [_features(e, polarity=polarity) for e in tested]
        if not all([*train_features, *test_features]):
            continue
        table.append(row(group, _metadata_predictions(train_features, labels, test_features)))
    return table


def _metadata_predictions(
    train: list[dict[str, str]], labels: np.ndarray, tested: list[dict[str, str]]
) -> np.ndarray:
    """Label indices a logistic regression on one-hot metadata gives the held-out examples."""
    from sklearn.feature_extraction import DictVectorizer

    vectorizer = DictVectorizer()
    model, _ = fit_logistic(vectorizer.fit_transform(train), labels)
    return np.asarray(model.predict(vectorizer.transform(tested)), dtype=np.int64)
