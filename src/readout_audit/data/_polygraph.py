"""MMLU as lm-polygraph's ``simple_instruct`` configuration quotes it (the P(True) input)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import numpy as np

from readout_audit._exceptions import InputError
from readout_audit.data._mc import MCItem
from readout_audit.data._qa import QAItem

SIMPLE_INSTRUCT = (
    "Given the following question about {subject} and four candidate answers (A, B, C, and D), "
    "choose the best answer. Your response should contain only the selected option's letter "
    "(A, B, C, or D), not a complete sentence."
)
"""The configuration's description: the instruction its inputs open with."""
QUESTION = "Q:{question}\nA. {choices[0]}\nB. {choices[1]}\nC. {choices[2]}\nD. {choices[3]}\n"
SHOTS_OPEN = "Here are a few examples of questions and answers:\n\n"
SHOTS_CLOSE = "Now answer the following question in the same format:\n\n"
LIBRARY_SHOTS = 5
LIBRARY_SEED = 1
MAX_PER_SUBJECT = 100
"""The builder's ``mmlu_max_subject_size``: the first 100 test rows of each subject."""


def _block(item: MCItem, answer: str) -> str:
    return QUESTION.format(question=item.question.strip(), choices=item.choices) + (
        f"Answer:{answer}"
    )


def polygraph_mmlu_items(
    items: Sequence[MCItem],
    shots: Sequence[MCItem] = (),
    *,
    n_shot: int = LIBRARY_SHOTS,
    seed: int = LIBRARY_SEED,
    max_per_subject: int = MAX_PER_SUBJECT,
) -> list[QAItem]:
    """MMLU rows as lm-polygraph's dataset builder writes them, subjects in sorted order.

    Each input is the instruction (the subject's description), a blank line, ``n_shot``
    examples of the subject drawn from ``shots`` (its dev rows) by a NumPy generator seeded
    once with ``seed`` and advanced subject by subject, then the question ending in
    ``Answer:``. Items need a ``subject`` in their metadata (MMLU loaders set it) and four
    choices; the instruction is kept apart so that Deleted can remove it.
    """
    by_subject: dict[str, list[MCItem]] = defaultdict(list)
    for item in items:
        by_subject[_subject(item)].append(item)
    dev: dict[str, list[MCItem]] = defaultdict(list)
    for item in shots:
        dev[_subject(item)].append(item)
    rng = np.random.RandomState(seed)
    converted = []
    for subject in sorted(by_subject):
        block = ""
        if n_shot > 0:
            pool = dev[subject]
            if len(pool) < n_shot:
                raise InputError(
                    f"subject {subject!r} has {len(pool)} example rows, fewer than {n_shot} shots",
                    field="shots",
                )
            chosen = rng.choice(len(pool), n_shot, replace=False)
            examples = "".join(_block(pool[i], pool[i].answer or "") + "\n\n" for i in chosen)
            block = SHOTS_OPEN + examples + SHOTS_CLOSE
        for item in by_subject[subject][:max_per_subject]:
            if len(item.choices) != 4 or item.answer is None:
                raise item.error("lm-polygraph's MMLU layout needs four choices and an answer")
            converted.append(
                item.derived(
                    QAItem(
                        id=item.id,
                        cluster=item.cluster,
                        metadata=item.metadata,
                        instruction=SIMPLE_INSTRUCT.format(subject=subject.replace("_", " ")),
                        question=block + _block(item, ""),
                        gold=item.answer,
                    )
                )
            )
    return converted


def _subject(item: MCItem) -> str:
    subject = item.metadata.get("subject")
    if not isinstance(subject, str):
        raise item.error("has no subject in its metadata", "metadata")
    return subject
