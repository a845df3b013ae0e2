"""What an lm-eval user can change in a task, ranked by what the audit measured of it.

The knobs are lm-eval's own (the task YAML's ``doc_to_text``, ``target_delimiter``,
``doc_to_choice``, ``num_fewshot``; the command's ``--apply_chat_template``): a repair the run
read (``--stem``) is ranked by the option mass it gave, before the knobs it could not measure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from readout_audit.lmeval._record import LMEvalRecord

COMPARE = "rerun with {flag} into another --out, then `readout compare` the two runs"
"""How to measure a knob one run cannot: the paired per-task differences of two runs."""


class Advice(BaseModel):
    """One knob of a task to change, with what the run measured of the change."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    knob: str
    """lm-eval's name for it (a task YAML key or a command option)."""
    change: str
    acc_affected: str
    """Whether lm-eval's acc moves: its decisions that change under the repair, or why not."""
    median_mass_after: float | None = None
    acc_after: float | None = None
    n_changed: int | None = None
    """Documents whose acc decision (the highest full-option log-likelihood) changes."""
    measure: str | None = None
    """How to measure it, where this run did not."""


def changed_decisions(original: Sequence[LMEvalRecord], repaired: Sequence[LMEvalRecord]) -> int:
    """Documents whose lm-eval choice (highest log-likelihood) differs under the repair."""
    before = {r.item_id: r.readout_choices.get("loglik") for r in original}
    return sum(
        r.item_id in before and r.readout_choices.get("loglik") != before[r.item_id]
        for r in repaired
    )


def _stem_advice(stem: str | None, n_stem_in_context: int, stemmed: Any) -> Advice | None:
    if stemmed is not None and stem is not None:
        return Advice(
            knob="doc_to_text",
            change=f"end it with {stem!r} and set target_delimiter: ' '",
            acc_affected=f"{stemmed.n_changed} of {stemmed.n_docs} decisions change",
            median_mass_after=stemmed.median_mass,
            acc_after=None if stemmed.acc is None else stemmed.acc.estimate,
            n_changed=stemmed.n_changed,
        )
    if n_stem_in_context:
        return None  # the context already ends in the stem asked for
    return Advice(
        knob="doc_to_text",
        change="end it with an answer cue such as 'Answer:' (target_delimiter: ' ')",
        acc_affected="not measured",
        measure="add --stem 'Answer:' to this command",
    )


def task_advice(
    original: Sequence[LMEvalRecord],
    median_mass: float | None,
    share_below_floor: float | None,
    repairs: Mapping[str, Any],
    *,
    stem: str | None,
    n_stem_in_context: int,
    settings: Mapping[str, Any] | None,
) -> list[Advice]:
    """The knobs of one task to change, measured ones first by the median mass they reach.

    Advice is given where documents fall below the 0.5 floor (the options hold under half of
    the next-token probability at lm-eval's position) or their options share a first token.
    ``repairs`` are the run's repair rows (``stem``, with their changed decisions);
    ``settings`` are lm-eval's prompt settings where the run built the prompts (None for a
    logged run, whose settings the samples do not say).
    """
    advice: list[Advice] = []
    if share_below_floor:
        found = _stem_advice(stem, n_stem_in_context, repairs.get("stem"))
        if found is not None:
            advice.append(found)
        shots = (settings or {}).get("num_fewshot")
        advice.append(
            Advice(
                knob="num_fewshot",
                change="more solved examples before the question"
                if shots
                else "solved examples before the question (e.g. 5)",
                acc_affected="not measured",
                measure=COMPARE.format(flag=f"--num_fewshot {max(5, 2 * (shots or 0))}"),
            )
        )
        bare = [
            r
            for r in original
            if r.ending == "none" and not all(o[:1].isspace() for o in r.options)
        ]
        if len(bare) * 2 > len(original):
            advice.append(
                Advice(
                    knob="target_delimiter",
                    change="' ' (the context ends with no separator and the choices bring none)",
                    acc_affected="not measured",
                    measure=COMPARE.format(flag="the task's target_delimiter: ' '"),
                )
            )
        if settings is not None and not settings.get("apply_chat_template"):
            advice.append(
                Advice(
                    knob="--apply_chat_template",
                    change="render the prompt with the model's chat template (with "
                    "--fewshot_as_multiturn for few-shot examples)",
                    acc_affected="not measured",
                    measure=COMPARE.format(flag="--apply_chat_template"),
                )
            )
    if any(r.distinct_first_tokens is False for r in original):
        advice.append(
            Advice(
                knob="doc_to_choice",
                change="choices whose first tokens differ (letters, say), for the option mass "
                "to separate them",
                acc_affected="no: lm-eval's acc already scores each full continuation",
            )
        )
    base = median_mass if median_mass is not None else 0.0
    measured = sorted(
        (a for a in advice if a.median_mass_after is not None),
        key=lambda a: base - (a.median_mass_after or 0.0),
    )
    return measured + [a for a in advice if a.median_mass_after is None]
