"""One lm-evaluation-harness document as it was scored: its context, continuations and gold."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

LM_EVAL_METRICS = ("acc", "acc_norm", "acc_bytes")
"""The multiple-choice metrics recomputed from full-option log-likelihoods, as lm-eval does."""


class Logged(BaseModel):
    """What a finished lm-eval run logged for a document (``--log_samples``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    logliks: tuple[float, ...]
    """Each continuation's log-likelihood as lm-eval computed it."""
    metrics: dict[str, float] = Field(default_factory=dict)
    """Its per-document metrics (acc, acc_norm, ...)."""


class LMEvalDoc(BaseModel):
    """A document of a multiple-choice (or loglikelihood) task, as lm-eval scores it.

    ``context`` and ``continuations`` are lm-eval's request arguments, unchanged; ``choices``
    are the task's ``doc_to_choice`` strings, whose lengths normalise ``acc_norm``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    task: str
    group: str | None = None
    doc_id: int
    output_type: Literal["multiple_choice", "loglikelihood"] = "multiple_choice"
    context: str
    continuations: tuple[str, ...]
    choices: tuple[str, ...]
    gold: tuple[int, ...]
    """Indices of the correct continuations (empty when the task gives none)."""
    logged: Logged | None = None

    @property
    def item_id(self) -> str:
        """The document's identity in a run: ``task/doc_id``."""
        return f"{self.task}/{self.doc_id}"


def choices_problem(values: Sequence[str]) -> str | None:
    """Why ``values`` cannot be a document's choices (none, an empty one, a repeat), or None.

    An empty choice has no length to normalise acc_norm by; two equal ones are no decision.
    """
    if not values:
        return "no choices"
    first: dict[str, int] = {}
    for index, value in enumerate(values):
        if value == "":
            return f"choice {index} is empty"
        if value in first:
            return f"choice {index} repeats choice {first[value]} ({value!r})"
        first[value] = index
    return None


def split_like_lm_eval(context: str, continuation: str) -> tuple[str, str]:
    """lm-eval's ``_encode_pair``: the context's trailing whitespace moves onto the continuation.

    lm-eval scores ``"Answer: " + "A"`` as ``"Answer:"`` followed by ``" A"``: the position it
    reads is before the whitespace, not after it.
    """
    stripped = context.rstrip()
    return stripped, context[len(stripped) :] + continuation


def stem_in_context(context: str, stem: str) -> bool:
    """Whether ``context`` already ends in ``stem`` (whitespace aside): it would read it twice."""
    return bool(stem.strip()) and context.rstrip().endswith(stem.strip())


def loglikelihood_metrics(greedy: bool | None) -> dict[str, float]:
    """A ``loglikelihood`` task's acc: whether its one continuation is the greedy one."""
    return {} if greedy is None else {"acc": float(greedy)}


def lm_eval_metrics(
    logliks: Sequence[float],
    choices: Sequence[str],
    gold: Sequence[int],
    greedy: Sequence[bool | None] = (),
) -> dict[str, float]:
    """acc, acc_norm and acc_bytes of one document, by lm-eval's ``process_results`` formulas.

    acc: argmax of the log-likelihoods; acc_norm: of log-likelihood per character of the choice
    (the continuation without its delimiter); acc_bytes: per UTF-8 byte. A document with
    several gold indices counts a pick of any of them. With each continuation's ``greedy``
    flag (:func:`is_greedy`), exact_match: whether a gold continuation is the greedy one.
    """
    lls = np.asarray(logliks, dtype=np.float64)
    chars = np.array([float(len(c)) for c in choices])
    octets = np.array([float(len(c.encode("utf-8"))) for c in choices])
    picks = {
        "acc": int(np.argmax(lls)),
        "acc_norm": int(np.argmax(lls / chars)),
        "acc_bytes": int(np.argmax(lls / octets)),
    }
    metrics = {name: float(pick in gold) for name, pick in picks.items()}
    flags = [greedy[g] for g in gold if g < len(greedy)]
    if flags and None not in flags:
        metrics["exact_match"] = float(any(flags))
    return metrics


def is_greedy(
    continuation: Sequence[int] | None, greedy: Sequence[int], budget: int
) -> bool | None:
    """Whether greedy decoding from the context writes ``continuation`` (lm-eval's is_greedy).

    ``greedy`` is the greedy continuation, at most ``budget`` tokens (shorter when it stopped).
    None when that cannot be told: the continuation's boundary is broken, or it is longer than
    a greedy text that ran its whole budget while agreeing with it.
    """
    if continuation is None:
        return None
    n = len(continuation)
    shared = min(n, len(greedy))
    if list(greedy[:shared]) != list(continuation[:shared]):
        return False
    if len(greedy) >= n:
        return True
    return None if len(greedy) >= budget else False
